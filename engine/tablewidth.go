package engine

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): at most 1017 columns per
// table (1117) and maxAddedColumnWork per ALTER TABLE (slow planning).
// Test: TestWideTablesAreBounded fails without it.

// Limits on the width of a table and on the columns one ALTER TABLE adds.
const (
	maxTableColumns    = 1017      // InnoDB's
	maxAddedColumnWork = 64 * 1024 // added columns x resulting columns; 64 at 1024
)

func boundTableWidth(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch n := n.(type) {
	case *plan.CreateTable:
		if len(n.PkSchema().Schema) > maxTableColumns {
			return nil, transform.SameTree, tooManyColumns()
		}
	case *plan.AddColumn:
		return n, transform.SameTree, checkAddedColumns(ctx, []sql.Node{n})
	case *plan.Block:
		return n, transform.SameTree, checkAddedColumns(ctx, n.Children())
	}
	return n, transform.SameTree, nil
}

// checkAddedColumns refuses the ADD COLUMN clauses of one ALTER TABLE (the engine's nodes of
// one statement) that make the table too wide or cost too much to plan.
func checkAddedColumns(ctx *sql.Context, nodes []sql.Node) error {
	added, columns := 0, 0
	for _, node := range nodes {
		add, ok := node.(*plan.AddColumn)
		if !ok {
			continue
		}
		added++
		if columns == 0 {
			columns = len(add.Table.Schema(ctx))
		}
	}
	if added == 0 {
		return nil
	}
	if columns+added > maxTableColumns {
		return tooManyColumns()
	}
	if added*(columns+added) > maxAddedColumnWork {
		return mysqlerr.New(mysql.ERUnknownError,
			"ALTER TABLE adds too many columns at once: %d to a table of %d; at most %d added columns times the table's columns after them in one statement. Split it into several ALTER TABLE statements",
			added, columns, maxAddedColumnWork)
	}
	return nil
}

func tooManyColumns() error {
	return mysqlerr.New(mysql.ERTooManyFields, "Too many columns: a table has at most %d", maxTableColumns)
}
