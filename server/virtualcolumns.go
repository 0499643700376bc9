package server

import (
	"strings"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Tables with VIRTUAL columns. The engine reads such a table through a wrapper that computes
// each virtual column from the stored ones by their positions in the whole row, and its rule
// pruneTables, which makes a table read only the columns a statement uses, leaves that wrapper
// as it was: a statement that used some columns of such a table read the virtual column's
// inputs from the wrong positions and failed with 1105 ("unable to find field with index 1 in
// row of 1 columns" for SELECT a FROM t, t (a, b, v AS (a + 1) VIRTUAL); a panic "index out of
// range" for SELECT c FROM t, t (a, v AS (a + 1) VIRTUAL, c)). keepVirtualColumnTables keeps
// the rule away from statements that read such a table: they read whole rows.
func keepVirtualColumnTables(a *analyzer.Analyzer) {
	wrapEngineRule(a, "pruneTables", func(prune ruleFunc) ruleFunc {
		return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
			if readsVirtualColumns(ctx, n) {
				return n, transform.SameTree, nil
			}
			return prune(ctx, a, n, scope, sel, qFlags)
		}
	})
}

// readsVirtualColumns reports whether the plan n, its subqueries' plans included, reads a table
// with virtual columns.
func readsVirtualColumns(ctx *sql.Context, n sql.Node) bool {
	found := false
	var node func(*sql.Context, sql.Node) bool
	node = func(ctx *sql.Context, n sql.Node) bool {
		if n == nil || found {
			return false
		}
		if rt, ok := n.(*plan.ResolvedTable); ok {
			if _, ok := rt.WrappedTable().(*plan.VirtualColumnTable); ok {
				found = true
			}
		}
		if ex, ok := n.(sql.Expressioner); ok {
			for _, e := range ex.Expressions() {
				transform.InspectExpr(ctx, e, func(ctx *sql.Context, e sql.Expression) bool {
					if sub, ok := e.(*plan.Subquery); ok && sub.Query != nil && !found {
						transform.InspectWithOpaque(ctx, sub.Query, node)
					}
					return found
				})
			}
		}
		return !found
	}
	transform.InspectWithOpaque(ctx, n, node)
	return found
}

// refuseVirtualColumnShifts refuses, with 1235, an ALTER TABLE that changes a column placed
// after a VIRTUAL column (MODIFY, CHANGE, RENAME COLUMN, ALTER COLUMN ... SET or DROP DEFAULT).
// The engine's in-memory table keeps only the stored columns in its rows but rewrites them by
// the column's position among all columns: it converted the value of the next stored column
// (t (a, v AS (a + 1) VIRTUAL, c INT, z VARCHAR(5)): MODIFY c TINYINT failed on z's 'abc',
// MODIFY c VARCHAR(20) left c's numbers unconverted) or failed with 1105 "slice bounds out of
// range" (the last column). Columns before the first VIRTUAL column are changed as usual.
func refuseVirtualColumnShifts(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	nodes := []sql.Node{n}
	if b, ok := n.(*plan.Block); ok {
		nodes = b.Children()
	}
	for _, node := range nodes {
		var table sql.Node
		var column string
		switch m := node.(type) {
		case *plan.ModifyColumn:
			table, column = m.Table, m.Column()
		case *plan.RenameColumn:
			table, column = m.Table, m.ColumnName
		case *plan.AlterDefaultSet:
			table, column = m.Table, m.ColumnName
		case *plan.AlterDefaultDrop:
			table, column = m.Table, m.ColumnName
		default:
			continue
		}
		if table == nil {
			continue
		}
		if virtual := virtualColumnBefore(table.Schema(ctx), column); virtual != "" {
			return nil, transform.SameTree, mysqlerr.New(mysql.ERNotSupportedYet,
				"This version of MySQL doesn't yet support 'changing column %s, which follows the VIRTUAL column %s (the in-memory engine rewrites the wrong values)'", column, virtual)
		}
	}
	return n, transform.SameTree, nil
}

// virtualColumnBefore returns the name of a virtual column of sch placed before the column
// named column, or "".
func virtualColumnBefore(sch sql.Schema, column string) string {
	for _, c := range sch {
		if strings.EqualFold(c.Name, column) {
			return ""
		}
		if c.Virtual {
			return c.Name
		}
	}
	return ""
}
