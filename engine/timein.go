package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `t IN ('00:00:01', ...)`
// of a TIME value and constants holds when t is one of them (the engine's hashed IN list hashes
// the TIME and the constants in different forms, so it never holds: `t IN ('00:00:01')` missed
// the row holding 00:00:01, and `t NOT IN ('00:00:01')` kept it).
// Test: TestConvertedKeys/TimeInList fails without it.
//
// timeInList, part of the analyzer rule collatedInLists that runs once the engine has chosen its
// plan, replaces such a hashed list by the engine's plain IN, which compares the TIME with each
// constant as `=` does.
func timeInList(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	in, ok := e.(*expression.HashInTuple)
	if !ok || in.Left().Type(ctx).Type() != sqltypes.Time {
		return e, false
	}
	return expression.NewInTuple(in.Left(), in.Right()), true
}
