package server

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Not-equal on an indexed DECIMAL column. To read `d <> v` through an index, the engine's range
// builder takes a v with a fractional part (0.25) for a value no row can hold, as it would be
// for an integer column, and reads every row but the NULLs; its planner then drops the condition,
// so `d <> 0.25` returned the rows holding 0.25 (`d < 0.25 OR d > 0.25`, written so, fared no
// better once the planner had given 0.25 the column's type).
//
// notEqualUnindexed, part of the analyzer rule correctComparisons (planwalk.go) that runs before
// the engine's, has such a condition on a DECIMAL column compared with a number (a literal as
// literalDecimal reads one: the parser's CAST of a decimal literal looked through) read the table
// instead of the index (the column wrapped in unindexed, as exactcompare.go does), where the
// engine evaluates it on every row. A not-equal reads about every row anyway.
func notEqualUnindexed(ctx *sql.Context, not *expression.Not) (sql.Expression, transform.TreeIdentity, error) {
	eq, ok := not.Child.(*expression.Equals)
	if !ok {
		return not, transform.SameTree, nil
	}
	number := func(e sql.Expression) bool { _, ok := literalDecimal(ctx, e); return ok }
	left, right := eq.Left(), eq.Right()
	switch {
	case decimalColumn(left) && number(right):
		left = unindexed{column: left}
	case decimalColumn(right) && number(left):
		right = unindexed{column: right}
	default:
		return not, transform.SameTree, nil
	}
	return expression.NewNot(expression.NewEquals(left, right)), transform.NewTree, nil
}

// decimalColumn reports whether e is a DECIMAL column.
func decimalColumn(e sql.Expression) bool {
	_, ok := e.(*expression.GetField)
	return ok && types.IsDecimal(e.Type())
}
