package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a multi-column merge join
// orders NULLs first and never matches NULL keys.
// Test: TestJoinsMatchEqualValues fails without it; upstream dolthub/go-mysql-server#1903.
//
// mergeJoinNulls, part of the analyzer rule correctExecution (planwalk.go) that runs after the
// engine's, has the tuples compare in the index's order (nullsFirst), and adds each pair of their
// columns (a.x = b.x, a.y = b.y) to the join's condition; the engine evaluates those on every pair
// the tuples match, as SQL does, and a NULL among them rejects the pair (a LEFT JOIN keeps its
// left row, without a match).
func mergeJoinNulls(ctx *sql.Context, join *plan.JoinNode) (sql.Node, transform.TreeIdentity, error) {
	if !join.Op.IsMerge() || join.Filter == nil {
		return join, transform.SameTree, nil
	}
	conds := expression.SplitConjunction(ctx, join.Filter)
	eq, ok := conds[0].(*expression.Equals) // not yet a nullsFirst
	if !ok {
		return join, transform.SameTree, nil
	}
	left, lok := eq.Left().(expression.Tuple)
	right, rok := eq.Right().(expression.Tuple)
	if !lok || !rok || len(left) != len(right) {
		return join, transform.SameTree, nil
	}
	cmp := newNullsFirst(eq)
	conds[0] = cmp
	for _, p := range cmp.pairs {
		conds = append(conds, p)
	}
	paired, err := join.WithExpressions(ctx, expression.JoinAnd(conds...))
	if err != nil {
		return nil, transform.SameTree, err
	}
	return paired, transform.NewTree, nil
}

// nullsFirst is a merge join's comparison of two tuples, ordered as an index orders them:
// column by column, NULL before any value and equal to NULL, values as the engine compares
// their pair.
type nullsFirst struct {
	*expression.Equals
	pairs []*expression.Equals
}

var _ expression.Comparer = nullsFirst{}

// newNullsFirst is eq, a comparison of two tuples of as many columns, ordered with NULLs first.
func newNullsFirst(eq *expression.Equals) nullsFirst {
	left, right := eq.Left().(expression.Tuple), eq.Right().(expression.Tuple)
	pairs := make([]*expression.Equals, len(left))
	for i := range left {
		pairs[i] = expression.NewEquals(left[i], right[i])
	}
	return nullsFirst{Equals: eq, pairs: pairs}
}

func (c nullsFirst) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	eq, err := c.Equals.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	return newNullsFirst(eq.(*expression.Equals)), nil
}

func (c nullsFirst) Compare(ctx *sql.Context, row sql.Row) (int, error) {
	for _, p := range c.pairs {
		a, err := p.Left().Eval(ctx, row)
		if err != nil {
			return 0, err
		}
		b, err := p.Right().Eval(ctx, row)
		if err != nil {
			return 0, err
		}
		var cmp int
		switch {
		case a == nil && b == nil:
		case a == nil:
			cmp = -1
		case b == nil:
			cmp = 1
		default:
			if cmp, err = p.Compare(ctx, row); err != nil {
				return 0, err
			}
		}
		if cmp != 0 {
			return cmp, nil
		}
	}
	return 0, nil
}
