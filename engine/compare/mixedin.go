package compare

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `x IN (a, b)` whose list
// mixes text and numbers compares x with each item as `x = item` does (the engine, and
// textReadAsNumber reading every text item as a number once any side is a number, compared
// the whole list in one type: with c VARCHAR holding 'y', `c IN ('x', 1)` held, 'x' and 'y'
// both reading as 0; with t TIME holding 00:00:02, `t IN ('00:00:01', 5)` held).
// Test: TestComparisons/MixedInLists fails without it.
//
// MySQL compares the left side of an IN list whose items are not of one type with each item
// in the type of that pair. mixedInList writes such a list, when its left side is not a number
// (a number reads every item as a number, which textReadAsNumber does) and it has at most
// mixedInListMax items, as the OR of its equalities, each corrected as a comparison; IN is
// that OR in SQL's logic, NULLs included.
func mixedInList(ctx *sql.Context, in *expression.InTuple) (sql.Expression, bool, error) {
	list, ok := in.Right().(expression.Tuple)
	if !ok || len(list) < 2 || len(list) > mixedInListMax || types.IsNumber(in.Left().Type(ctx)) {
		return in, false, nil
	}
	text, number := false, false
	for _, item := range list {
		switch t := item.Type(ctx); {
		case types.IsText(t):
			text = true
		case types.IsNumber(t):
			number = true
		}
	}
	if !text || !number {
		return in, false, nil
	}
	var out sql.Expression
	for _, item := range list {
		eq, _, err := Comparison(ctx, expression.NewEquals(in.Left(), item))
		if err != nil {
			return nil, false, err
		}
		if out == nil {
			out = eq
		} else {
			out = expression.NewOr(out, eq)
		}
	}
	return out, true, nil
}

// mixedInListMax is the longest list mixedInList writes as equalities; a longer one keeps the
// engine's comparison.
const mixedInListMax = 64
