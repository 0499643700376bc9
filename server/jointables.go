package server

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Tables in one join. The engine's join planner numbers the relations of a join in a 64-bit
// set and fails past 64 of them with an internal error (1105 "cannot insert 64 into bitSet").
// MySQL refuses a query block that joins more than 61 tables (MAX_TABLES) with 1116, and it
// flattens an IN or EXISTS subquery into the outer join only when the result stays within
// that limit. refuseTooManyTables, a rule that runs before the engine's, counts the relations
// of each join as the engine's planner will see them, in every query block of the statement
// (subqueries, derived tables, views, UNION branches, the SELECT of INSERT ... SELECT), and
// answers 1116 above 61; limitUnnesting keeps the engine's rules that turn IN and EXISTS
// subqueries into semi and anti joins from building a join of more than 61 relations: such a
// subquery stays a subquery, as in MySQL.

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

// limitUnnesting wraps the analyzer's rules that turn IN and EXISTS subqueries into joins:
// where a rule's plan would join more than maxJoinTables relations, the plan stays as it was.
func limitUnnesting(a *analyzer.Analyzer) {
	wrap := func(unnest ruleFunc) ruleFunc {
		return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
			out, same, err := unnest(ctx, a, n, scope, sel, qFlags)
			if err != nil || same || largestJoin(ctx, out) <= maxJoinTables {
				return out, same, err
			}
			return n, transform.SameTree, nil
		}
	}
	wrapEngineRule(a, "unnestInSubqueries", wrap)
	wrapEngineRule(a, "unnestExistsSubqueries", wrap)
}
