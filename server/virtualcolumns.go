package server

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

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
			return nil, transform.SameTree, mysql.NewSQLError(mysql.ERNotSupportedYet, mysql.SSUnknownSQLState,
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
