package engine

import (
	"overloadsql/engine/compare"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// The analyzer rules that correct how the engine plans and runs a statement (comparisons, joins,
// assignments) share two walks of its plan, not one each: every statement pays for each walk,
// whether or not it holds anything a rule corrects. (Other rules still walk the plan on their
// own: unindexedInLists, cancellableLikes, boundRowComparisons, refuseDuplicateDerivedColumns,
// refuseTooManyTables, checkedGeometryWrites.)
//
// correctComparisons runs before the engine's rules, which choose index lookups from the
// comparisons and turn NOT IN into anti joins. It corrects each expression, bottom-up, then each
// filter: an IN list with a spatial left side, checkedGeometryList (geometry.go); any other
// expression, the corrections of single comparisons of package engine/compare
// (compare.Comparison: row equalities, NOT, IN lists of text and numbers, exact numbers, other
// collations, inexact index keys); a filter, compare.NullSafeNotIn. Each changes only what the
// later ones do not look at (the lists the geometry check changes are those the others leave
// alone), so one walk gives the plan that a separate walk for each would.
//
// correctExecution runs after the engine's rules, on the joins they chose and the assignments
// they left: mergeJoinNulls (mergejoin.go) and rangeCheckedAssignments (outofrange.go), each on
// its own kind of node.
var (
	correctComparisons = planRule(comparison, compare.NullSafeNotIn)
	correctExecution   = planRule(nil, execution)
)

// comparison corrects one expression, its children already corrected: the geometry check of an
// IN list, then compare.Comparison.
func comparison(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if in, ok := e.(*expression.InTuple); ok {
		if out, same, err := checkedGeometryList(ctx, in); !same || err != nil {
			return out, same, err
		}
	}
	return compare.Comparison(ctx, e)
}

// execution corrects one node of a planned statement.
func execution(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	switch n := n.(type) {
	case *plan.JoinNode:
		return mergeJoinNulls(ctx, n)
	case *plan.UpdateSource, *plan.InsertInto:
		return rangeCheckedAssignments(ctx, n)
	}
	return n, transform.SameTree, nil
}

// ruleFunc is an analyzer rule's function.
type ruleFunc = func(*sql.Context, *analyzer.Analyzer, sql.Node, *plan.Scope, analyzer.RuleSelector, *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error)

// exprFunc and nodeFunc correct one expression and one node of a plan.
type (
	exprFunc = func(*sql.Context, sql.Expression) (sql.Expression, transform.TreeIdentity, error)
	nodeFunc = func(*sql.Context, sql.Node) (sql.Node, transform.TreeIdentity, error)
)

// planRule is an analyzer rule that walks a plan once, bottom-up, the plans of its subqueries
// included (the engine's walks of a plan do not enter those). At each node it applies expr to
// each of the node's expressions, bottom-up (none when expr is nil), then node to the node.
func planRule(expr exprFunc, node nodeFunc) ruleFunc {
	var rule ruleFunc
	rule = func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		return transform.NodeWithOpaque(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
			n, sameExprs, err := transform.OneNodeExpressions(ctx, n, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				return transform.Expr(ctx, e, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
					if sub, ok := e.(*plan.Subquery); ok {
						q, same, err := rule(ctx, a, sub.Query, scope, sel, qFlags)
						if same || err != nil {
							return sub, transform.SameTree, err
						}
						return sub.WithQuery(q), transform.NewTree, nil
					}
					if expr == nil {
						return e, transform.SameTree, nil
					}
					return expr(ctx, e)
				})
			})
			if err != nil {
				return nil, transform.SameTree, err
			}
			out, same, err := node(ctx, n)
			return out, same && sameExprs, err
		})
	}
	return rule
}

// InspectPlan calls node for every node of a plan and expr for every expression, also where the
// engine's own walk does not look: the source of INSERT ... SELECT, the SELECT of CREATE TABLE
// ... SELECT, the statement of PREPARE, and subqueries. It stops when a function returns false.
func InspectPlan(ctx *sql.Context, n sql.Node, node func(sql.Node) bool, expr func(sql.Expression) bool) bool {
	ok := true
	transform.InspectWithOpaque(ctx, n, func(_ *sql.Context, n sql.Node) bool {
		if !ok {
			return false
		}
		if ok = node(n); !ok {
			return false
		}
		switch n := n.(type) {
		case *plan.InsertInto:
			if n.Source != nil {
				ok = InspectPlan(ctx, n.Source, node, expr)
			}
		case *plan.CreateTable:
			if s := n.Select(); s != nil {
				ok = InspectPlan(ctx, s, node, expr)
			}
		case *plan.TableCopier:
			ok = InspectPlan(ctx, n.Source, node, expr) && InspectPlan(ctx, n.Destination, node, expr)
		case *plan.PrepareQuery:
			ok = InspectPlan(ctx, n.Child, node, expr)
		}
		if e, isExpr := n.(sql.Expressioner); isExpr && ok {
			for _, x := range e.Expressions() {
				if ok = inspectExpr(ctx, x, node, expr); !ok {
					break
				}
			}
		}
		return ok
	})
	return ok
}

func inspectExpr(ctx *sql.Context, x sql.Expression, node func(sql.Node) bool, expr func(sql.Expression) bool) bool {
	ok := true
	transform.InspectExpr(ctx, x, func(ctx *sql.Context, e sql.Expression) bool {
		if ok = expr(e); ok {
			if sq, isSubquery := e.(*plan.Subquery); isSubquery && sq.Query != nil {
				ok = InspectPlan(ctx, sq.Query, node, expr)
			}
		}
		return !ok
	})
	return ok
}
