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

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a derived table, CTE or view
// whose columns repeat a name fails with 1060.
// Test: TestColumnNames/DerivedTablesNameTheirColumnsOnce fails without it.
func refuseDuplicateDerivedColumns(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	var err error
	InspectPlan(ctx, n, func(n sql.Node) bool {
		sq, ok := n.(*plan.SubqueryAlias)
		if !ok {
			return true
		}
		names := sq.ColumnNames
		if len(names) == 0 {
			names = columnNames(ctx, sq.Child)
		}
		seen := make(map[string]bool, len(names))
		for _, name := range names {
			lower := strings.ToLower(name)
			if seen[lower] {
				err = mysqlerr.New(mysql.ERDupFieldName, "Duplicate column name '%s'", name)
				return false
			}
			seen[lower] = true
		}
		return true
	}, func(sql.Expression) bool { return true })
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, transform.SameTree, nil
}

// columnNames returns the names of the columns of n's rows, as its Schema would, without asking
// a set operation for its schema: the engine computes that from both sides at every level, and
// each projection of a side asks its own child again per column, so asking costs time that
// grows faster than the chain: the names are read from its left-most SELECT instead.
func columnNames(ctx *sql.Context, n sql.Node) []string {
	for {
		switch m := n.(type) {
		case *plan.SetOp:
			n = m.Left()
		case *plan.SubqueryAlias:
			if len(m.ColumnNames) > 0 {
				return m.ColumnNames
			}
			n = m.Child
		case *plan.Limit, *plan.Offset, *plan.Sort, *plan.TopN, *plan.Distinct, *plan.OrderedDistinct,
			*plan.Having, *plan.Filter:
			n = m.Children()[0]
		case *plan.Project:
			names := make([]string, len(m.Projections))
			for i, e := range m.Projections {
				if named, ok := e.(sql.Nameable); ok {
					names[i] = named.Name()
				} else {
					names[i] = plan.AliasSubqueryString(ctx, e)
				}
			}
			return names
		default:
			sch := n.Schema(ctx)
			names := make([]string, len(sch))
			for i, c := range sch {
				names[i] = c.Name
			}
			return names
		}
	}
}
