package compare

import (
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `x <> v` on an indexed DOUBLE
// column leaves out the rows holding v (the range builder drops it).
// Test: TestNotEqual/DoubleNotEqual fails without it.
//
// notEqualUnindexed, part of the analyzer rule correctComparisons (engine/planwalk.go) that runs before
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
