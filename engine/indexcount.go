package engine

import (
	"strings"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): at most 64 secondary indexes
// (1069) and maxForeignKeys foreign keys (1235) per table.
// Test: TestIndexesPerTableAreBounded, TestForeignKeysPerTableAreBounded fails without it.

const (
	maxTableIndexes = 64 // MySQL's MAX_KEY
	maxForeignKeys  = 64
)

func errTooManyForeignKeys() error {
	return mysqlerr.New(mysql.ERNotSupportedYet,
		"This version of overloadsql doesn't yet support 'more than %d foreign keys in one table'", maxForeignKeys)
}

func errTooManyKeys() error {
	return mysqlerr.New(mysql.ERTooManyKeys, "Too many keys specified; max %d keys allowed", maxTableIndexes)
}

func boundIndexes(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch n := n.(type) {
	case *plan.CreateTable:
		if secondary(n.Indexes()) > maxTableIndexes {
			return nil, transform.SameTree, errTooManyKeys()
		}
		if len(n.ForeignKeys()) > maxForeignKeys {
			return nil, transform.SameTree, errTooManyForeignKeys()
		}
	case *plan.AlterIndex, *plan.CreateForeignKey:
		return n, transform.SameTree, checkAddedKeys(ctx, []sql.Node{n})
	case *plan.Block:
		return n, transform.SameTree, checkAddedKeys(ctx, n.Children())
	}
	return n, transform.SameTree, nil
}

// secondary counts the indexes other than the primary key.
func secondary(defs sql.IndexDefs) int {
	count := 0
	for _, d := range defs {
		if !d.IsPrimary() {
			count++
		}
	}
	return count
}

// checkAddedKeys refuses the indexes and foreign keys one statement adds beyond the limits.
func checkAddedKeys(ctx *sql.Context, nodes []sql.Node) error {
	if err := checkAddedIndexes(ctx, nodes); err != nil {
		return err
	}
	return checkAddedForeignKeys(ctx, nodes)
}

// checkAddedForeignKeys refuses the ADD FOREIGN KEY clauses of one statement that give a table
// more than maxForeignKeys.
func checkAddedForeignKeys(ctx *sql.Context, nodes []sql.Node) error {
	type table struct{ db, name string }
	added := map[table]int{}
	var provider sql.DatabaseProvider
	for _, node := range nodes {
		fk, ok := node.(*plan.CreateForeignKey)
		if !ok || fk.FkDef == nil {
			continue
		}
		added[table{strings.ToLower(fk.FkDef.Database), strings.ToLower(fk.FkDef.Table)}]++
		provider = fk.DbProvider
	}
	for t, n := range added {
		existing := 0
		if provider != nil {
			if db, err := provider.Database(ctx, t.db); err == nil {
				if tbl, ok, err := db.GetTableInsensitive(ctx, t.name); err == nil && ok {
					if fkt, ok := tbl.(sql.ForeignKeyTable); ok {
						fks, err := fkt.GetDeclaredForeignKeys(ctx)
						if err != nil {
							return err
						}
						existing = len(fks)
					}
				}
			}
		}
		if existing+n > maxForeignKeys {
			return errTooManyForeignKeys()
		}
	}
	return nil
}

// checkAddedIndexes refuses the CREATE INDEX or ADD INDEX clauses of one statement that give a
// table more than maxTableIndexes secondary indexes.
func checkAddedIndexes(ctx *sql.Context, nodes []sql.Node) error {
	added := map[string]int{}
	tables := map[string]sql.Table{}
	for _, node := range nodes {
		alter, ok := node.(*plan.AlterIndex)
		if !ok || alter.Action != plan.IndexAction_Create || alter.Table == nil {
			continue
		}
		t := alter.Table.UnderlyingTable()
		if t == nil {
			continue
		}
		name := strings.ToLower(t.Name())
		added[name]++
		tables[name] = t
	}
	for name, n := range added {
		existing := 0
		if ia, ok := tables[name].(sql.IndexAddressable); ok {
			indexes, err := ia.GetIndexes(ctx)
			if err != nil {
				return err
			}
			for _, ix := range indexes {
				if !strings.EqualFold(ix.ID(), "PRIMARY") {
					existing++
				}
			}
		}
		if existing+n > maxTableIndexes {
			return errTooManyKeys()
		}
	}
	return nil
}
