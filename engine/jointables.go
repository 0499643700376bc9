package engine

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a join of more than 61 tables
// fails with 1116; unnesting stays within 61 (engine: 1105 bitSet).
// Test: TestTooManyTablesInAJoin fails without it.
//
// refuseTooManyTables counts the relations of each join as the planner will see them, in every
// query block; limitUnnesting keeps such a subquery a subquery, as in MySQL.

const (
	maxJoinTables = 61 // MySQL's MAX_TABLES
)

func tooManyTables() error {
	return mysqlerr.New(mysql.ERTooManyTables,
		"Too many tables; MySQL can only use %d tables in a join", maxJoinTables)
}

// refuseTooManyTables is the analyzer rule that refuses a statement with a join of more than
// maxJoinTables relations.
func refuseTooManyTables(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if largestJoin(ctx, n) > maxJoinTables {
		return nil, transform.SameTree, tooManyTables()
	}
	return n, transform.SameTree, nil
}

// largestJoin returns the number of relations of the largest join in the plan n, its
// subqueries' plans included: what the engine's join planner (memo.joinOrderBuilder) takes
// for the vertices of one join graph.
func largestJoin(ctx *sql.Context, n sql.Node) int {
	largest := 0
	var node func(sql.Node)
	var joinLeaves func(sql.Node) int
	// exprs visits the plans of the subqueries among n's expressions.
	exprs := func(n sql.Node) {
		ex, ok := n.(sql.Expressioner)
		if !ok {
			return
		}
		for _, e := range ex.Expressions() {
			transform.InspectExpr(ctx, e, func(ctx *sql.Context, e sql.Expression) bool {
				if sub, ok := e.(*plan.Subquery); ok && sub.Query != nil {
					node(sub.Query)
				}
				return false
			})
		}
	}
	node = func(n sql.Node) {
		if n == nil {
			return
		}
		exprs(n)
		if j, ok := n.(*plan.JoinNode); ok {
			largest = max(largest, joinLeaves(j))
			return
		}
		if ins, ok := n.(*plan.InsertInto); ok {
			node(ins.Source) // not among its children: the engine analyzes it on its own
		}
		for _, c := range n.Children() {
			node(c)
		}
	}
	// joinLeaves counts the relations under a join as memo's populateSubgraph finds them: it
	// goes through joins and the nodes listed here, and takes any other node for one relation
	// (whose own plan, a derived table's or a view's, is a query block of its own).
	joinLeaves = func(n sql.Node) int {
		switch n := n.(type) {
		case *plan.JoinNode:
			exprs(n)
			return joinLeaves(n.Left()) + joinLeaves(n.Right())
		case *plan.Filter, *plan.Having, *plan.Limit, *plan.Project, *plan.Sort, *plan.Distinct,
			*plan.Max1Row, *plan.CachedResults:
			exprs(n)
			return joinLeaves(n.Children()[0])
		}
		node(n)
		return 1
	}
	node(n)
	return largest
}

// limitUnnesting wraps one of the analyzer's rules that turn IN and EXISTS subqueries into
// joins: where its plan would join more than maxJoinTables relations, the plan stays as it was.
func limitUnnesting(unnest ruleFunc) ruleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		out, same, err := unnest(ctx, a, n, scope, sel, qFlags)
		if err != nil || same || largestJoin(ctx, out) <= maxJoinTables {
			return out, same, err
		}
		return n, transform.SameTree, nil
	}
}
