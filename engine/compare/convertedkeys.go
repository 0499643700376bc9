package compare

import (
	"bytes"
	"math"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): an index lookup on a
// column compared with a constant its type does not hold exactly finds the rows the comparison
// finds (the engine's range builder converts the constant to the column's type first, and
// under PreciseMatch drops the comparison: with f FLOAT holding 0.1, `f > 0.1` missed it; with
// d DATE, `d < '2026-01-01 10:00:00'` missed 2026-01-01; `y > 1999.5` on a YEAR missed 2000;
// `bn > 'a'` on a BINARY(3) missed 'a'; a constant the type refuses, `e = 'x'` on an ENUM
// without 'x', `bt < 16` on a BIT(4), failed with 1105). And a text column compared with a
// constant whose collation wins over the column's, `c = 'A' COLLATE utf8mb4_0900_ai_ci` or
// `c = _binary'a'`, finds the rows of that collation, not of the column's.
// Test: TestConvertedKeys fails without it.
//
// unindexedInexactKey, part of the analyzer rule correctComparisons (engine/planwalk.go) that runs
// before the engine's, has such a comparison (=, <=>, <, <=, >, >=, BETWEEN, IN) read the table
// instead of the index (the column wrapped in unindexed), where the engine evaluates it on
// every row. It looks at FLOAT, DATE, DATETIME, TIMESTAMP, YEAR, BIT, BINARY, ENUM and SET
// columns, whose types convert a constant with rounding, padding or an error, and at text
// columns; a constant the column's type holds exactly keeps its index lookup.
func unindexedInexactKey(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	sides, ok := comparisonSides(e)
	if !ok {
		return e, false
	}
	// Between's and InTuple's column is their first side; a binary comparison's either.
	column, others := 0, sides[1:]
	if len(sides) == 2 && !inexactKeyColumn(ctx, sides[0]) {
		column, others = 1, sides[:1]
	}
	if !inexactKeyColumn(ctx, sides[column]) {
		return e, false
	}
	inexact := false
	for _, other := range others {
		if inexactKey(ctx, sides[column], other) {
			inexact = true
			break
		}
	}
	if !inexact {
		return e, false
	}
	out := append([]sql.Expression(nil), sides...)
	out[column] = unindexed{column: sides[column]}
	w, err := withSides(ctx, e, out)
	if err != nil {
		return e, false
	}
	return w, true
}

// inexactKeyColumn says whether e is a column of a type whose lookups unindexedInexactKey checks.
func inexactKeyColumn(ctx *sql.Context, e sql.Expression) bool {
	if _, ok := e.(*expression.GetField); !ok {
		return false
	}
	t := e.Type(ctx)
	switch t.Type() {
	case sqltypes.Float32, sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp, sqltypes.Year,
		sqltypes.Bit, sqltypes.Binary, sqltypes.Enum, sqltypes.Set:
		return true
	}
	return types.IsTextOnly(t)
}

// constantValue is the value of a literal, or of a conversion, collation or negation of one
// (`-1e-300` is a negation until the engine folds it).
func constantValue(ctx *sql.Context, e sql.Expression) (any, bool) {
	switch c := e.(type) {
	case *expression.Literal:
		return c.Value(), true
	case *expression.Convert, *expression.CollatedExpression, *expression.UnaryMinus:
		if _, ok := constantValue(ctx, e.Children()[0]); !ok {
			return nil, false
		}
		v, err := e.Eval(ctx, nil)
		return v, err == nil
	}
	return nil, false
}

// inexactKey says whether a lookup of column by the constant other would convert other to a
// different value (or fail), or compare it in another collation than other's comparison does.
func inexactKey(ctx *sql.Context, column, other sql.Expression) bool {
	v, ok := constantValue(ctx, other)
	if !ok {
		return false // not a constant: not this rule's case
	}
	if v == nil {
		return false
	}
	typ := column.Type(ctx)
	if types.IsTextOnly(typ) {
		coll, coercibility := sql.GetCoercibility(ctx, other)
		colColl, colCoercibility := sql.GetCoercibility(ctx, column)
		return coll != colColl && (coercibility < colCoercibility || coll == sql.Collation_binary)
	}
	cv, inRange, err := typ.Convert(ctx, v)
	if err != nil || inRange != sql.InRange || cv == nil {
		return true
	}
	switch typ.Type() {
	case sqltypes.Float32:
		f, _, err := types.Float64.Convert(ctx, v)
		c, ok := cv.(float32)
		return err != nil || !ok || f == nil || float64(c) != f.(float64) || math.IsNaN(float64(c))
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		full, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
		c, ok := cv.(time.Time)
		f, fok := full.(time.Time)
		return err != nil || !ok || !fok || !c.Equal(f)
	case sqltypes.Year, sqltypes.Bit:
		n, ok := integerValue(v)
		if !ok {
			return true
		}
		c, ok := integerValue(cv)
		return !ok || c != n
	case sqltypes.Binary:
		var b []byte
		switch x := v.(type) {
		case string:
			b = []byte(x)
		case []byte:
			b = x
		default:
			return true
		}
		c, ok := cv.([]byte)
		if s, isString := cv.(string); isString {
			c, ok = []byte(s), true
		}
		return !ok || !bytes.Equal(b, c)
	}
	return false // ENUM and SET: a value the type takes
}

// integerValue is an integer of any Go integer type as an int64 (false for any other value, and
// for a uint64 above the int64 range).
func integerValue(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	case uint:
		return int64(x), uint64(x) <= math.MaxInt64
	}
	return 0, false
}

// inexactKeysUnindexed is unindexedInexactKey and unindexedMixedJoin applied to the output of the other corrections of
// a comparison.
func inexactKeysUnindexed(ctx *sql.Context, e sql.Expression, same transform.TreeIdentity) (sql.Expression, transform.TreeIdentity) {
	if out, ok := unindexedInexactKey(ctx, e); ok {
		return out, transform.NewTree
	}
	if out, ok := unindexedMixedJoin(ctx, e); ok {
		return out, transform.NewTree
	}
	return e, same
}

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a join of two columns of
// different types finds the pairs the comparison finds (a lookup join converts the other
// table's value to the indexed column's type, so with n INT indexed, `n = x` for a DOUBLE x
// of 1.5 joined the rows whose n is 2, and with an ENUM, SET, BIT or TIME column indexed it
// failed with 1105 on a value that type refuses).
// Test: TestConvertedKeys/JoinsOfMixedTypes fails without it.
//
// unindexedMixedJoin, with unindexedInexactKey, has an equality of two columns not looked up
// in the index of a column whose type does not hold every value of the other's exactly (the
// column wrapped in unindexed): the join is then a hash join or reads both tables, and the
// engine compares every pair. Integers of any width and sign key each other (a value out of
// the column's range matches no row), a DECIMAL keys one with as many digits on both sides of
// the point, an integer keys a DECIMAL with enough integer digits, text keys text of its
// collation at least as long, and any type keys itself.
func unindexedMixedJoin(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	switch e.(type) {
	case *expression.Equals, *expression.NullSafeEquals:
	default:
		return e, false
	}
	sides := e.Children()
	left, lok := sides[0].(*expression.GetField)
	right, rok := sides[1].(*expression.GetField)
	if !lok || !rok {
		return e, false
	}
	lt, rt := left.Type(ctx), right.Type(ctx)
	out := []sql.Expression{sides[0], sides[1]}
	if !keysExactly(rt, lt) {
		out[0] = unindexed{column: sides[0]}
	}
	if !keysExactly(lt, rt) {
		out[1] = unindexed{column: sides[1]}
	}
	if out[0] == sides[0] && out[1] == sides[1] {
		return e, false
	}
	w, err := e.WithChildren(ctx, out...)
	if err != nil {
		return e, false
	}
	return w, true
}

// keysExactly says whether every value of type key converts to a column of type col exactly,
// or out of its range, so that a lookup by it finds the rows that compare equal.
func keysExactly(key, col sql.Type) bool {
	switch {
	case types.TypesEqual(key, col):
		return true
	case types.IsInteger(key) && types.IsInteger(col):
		return true
	case types.IsTextOnly(key) && types.IsTextOnly(col):
		k, c := key.(sql.StringType), col.(sql.StringType)
		return k.Collation() == c.Collation() && k.MaxCharacterLength() <= c.MaxCharacterLength()
	case types.IsDecimal(col) && (types.IsDecimal(key) || types.IsInteger(key)):
		have, _ := typeDigits(col)
		need, ok := typeDigits(key)
		return ok && need.integer <= have.integer && need.scale <= have.scale
	}
	return false
}
