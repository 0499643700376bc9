package server

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Indexes per table. The engine creates the indexes of a CREATE TABLE one by one, and looks
// through all the table's indexes for a duplicate after each: time that grows with the square
// of their number, deaf to KILL QUERY and to the client leaving, under the write lock. A
// CREATE TABLE of 8000 index definitions (150 KB) ran 24 s (4000: 5.5 s). boundIndexes, an
// analyzer rule that runs before the engine's own, holds a table to MySQL's 64 secondary
// indexes, with MySQL's error 1069, for CREATE TABLE and for CREATE INDEX and ALTER TABLE ...
// ADD INDEX (also UNIQUE, FULLTEXT, SPATIAL, and the ones a foreign key adds).

const (
	maxTableIndexes = 64   // MySQL's MAX_KEY
	erTooManyKeys   = 1069 // ER_TOO_MANY_KEYS
)

func errTooManyKeys() error {
	return mysql.NewSQLError(erTooManyKeys, "42000", "Too many keys specified; max %d keys allowed", maxTableIndexes)
}

func boundIndexes(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch n := n.(type) {
	case *plan.CreateTable:
		if secondary(n.Indexes()) > maxTableIndexes {
			return nil, transform.SameTree, errTooManyKeys()
		}
	case *plan.AlterIndex:
		return n, transform.SameTree, checkAddedIndexes(ctx, []sql.Node{n})
	case *plan.Block:
		return n, transform.SameTree, checkAddedIndexes(ctx, n.Children())
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
