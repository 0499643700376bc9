package server

import (
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Not-equal on an indexed DECIMAL, FLOAT or DOUBLE column. To read `d <> v` or `d NOT IN (v,
// w)` through an index, the engine's range builder takes a v with a fractional part (0.25) for a
// value no row can hold, as it would be for an integer column, and reads every row but the
// NULLs; its planner then drops the condition, so `d <> 0.25` returned the rows holding 0.25
// (`d < 0.25 OR d > 0.25`, written so, fared no better once the planner had given 0.25 the
// column's type). On a DOUBLE column `x <> 1.5e0` and `x NOT IN (0.25e0, 0.75e0)` did the same,
// and a DELETE with either deleted every row that was not NULL.
//
// notEqualUnindexed, part of the analyzer rule correctComparisons (planwalk.go) that runs before
// the engine's, has such a condition on such a column compared with numbers (literals as
// literalDecimal reads them: the parser's CAST of a decimal literal looked through) read the
// table instead of the index (the column wrapped in unindexed, defined in exactcompare.go), where
// the engine evaluates it on every row. A not-equal reads about every row anyway.
func notEqualUnindexed(ctx *sql.Context, not *expression.Not) (sql.Expression, transform.TreeIdentity, error) {
	number := func(e sql.Expression) bool {
		if c, ok := e.(*expression.Convert); ok && types.IsFloat(c.Type(ctx)) {
			e = c.Child // exactComparison's DOUBLE of the literal
		}
		_, ok := literalDecimal(ctx, e)
		return ok
	}
	switch c := not.Child.(type) {
	case *expression.Equals:
		left, right := c.Left(), c.Right()
		switch {
		case fractionalColumn(ctx, left) && number(right):
			left = unindexed{column: left}
		case fractionalColumn(ctx, right) && number(left):
			right = unindexed{column: right}
		default:
			return not, transform.SameTree, nil
		}
		return expression.NewNot(expression.NewEquals(left, right)), transform.NewTree, nil
	case *expression.InTuple:
		list, ok := c.Right().(expression.Tuple)
		if !ok || !fractionalColumn(ctx, c.Left()) || !slices.ContainsFunc(list, number) {
			return not, transform.SameTree, nil
		}
		return expression.NewNot(expression.NewInTuple(unindexed{column: c.Left()}, list)), transform.NewTree, nil
	}
	return not, transform.SameTree, nil
}

// fractionalColumn reports whether e is a DECIMAL, FLOAT or DOUBLE column.
func fractionalColumn(ctx *sql.Context, e sql.Expression) bool {
	_, ok := e.(*expression.GetField)
	return ok && (types.IsDecimal(e.Type(ctx)) || types.IsFloat(e.Type(ctx)))
}
