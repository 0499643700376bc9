package compare

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `x NOT IN (SELECT y ...)`
// keeps no row when x or a y is NULL (the engine's anti join does).
// Test: TestComparisons/NotInWithNulls fails without it; upstream dolthub/go-mysql-server#3861 (open).
//
// NullSafeNotIn, part of the analyzer rule correctComparisons (engine/planwalk.go) that runs before the
// engine's, marks those conditions (and `NOT (x = (SELECT ...))`, which the planner treats alike)
// as `(...) IS TRUE` when either side may be NULL: the same rows pass a WHERE, and the planner
// leaves the condition to be evaluated (the subquery's result is read once when it does not
// depend on the row). Where neither side can be NULL the anti join is right and stays.
func NullSafeNotIn(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	filter, ok := n.(*plan.Filter)
	if !ok {
		return n, transform.SameTree, nil
	}
	conjuncts := expression.SplitConjunction(ctx, filter.Expression)
	changed := false
	for i, c := range conjuncts {
		if nullableNotIn(ctx, c) {
			conjuncts[i], changed = expression.NewIsTrue(c), true
		}
	}
	if !changed {
		return n, transform.SameTree, nil
	}
	return plan.NewFilter(ctx, expression.JoinAnd(conjuncts...), filter.Child), transform.NewTree, nil
}

// nullableNotIn reports whether e is NOT (x IN (subquery)) or NOT (x op (subquery)) whose x or
// whose subquery's column may be NULL.
func nullableNotIn(ctx *sql.Context, e sql.Expression) bool {
	not, ok := e.(*expression.Not)
	if !ok {
		return false
	}
	var left, right sql.Expression
	switch c := not.Child.(type) {
	case *plan.InSubquery:
		left, right = c.LeftChild, c.RightChild
	case expression.Comparer:
		left, right = c.Left(), c.Right()
	default:
		return false
	}
	sub, ok := right.(*plan.Subquery)
	if !ok {
		return false
	}
	if left.IsNullable(ctx) {
		return true
	}
	for _, col := range sub.Query.Schema(ctx) {
		if col.Nullable {
			return true
		}
	}
	return false
}
