package compare

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): DECIMALs and index keys
// compare exactly with other numbers (the engine rounds or clamps).
// Test: TestComparisons/NumericComparisonsAreExact, TestComparisons/TextComparedWithNumbers fails without it.
//
// MySQL compares the exact values. Two steps bring that back. The engine's planner
// converts a decimal literal compared with a DECIMAL column to the column's type (`d > 1.499`
// becomes `d > 1.50`), so the parser's output first gives each decimal literal of a comparison a
// type that holds it (ExactDecimalLiterals: CAST(1.499 AS DECIMAL(5,3)), which the engine folds
// back into a constant, for index lookups too). Then exactComparison, part of the analyzer rule
// correctComparisons (engine/planwalk.go) that runs before the engine's own, finds the comparisons (=,
// <=>, <, <=, >, >=, BETWEEN, IN) where a side would be rounded or clamped: a literal that the
// column's type cannot hold exactly, or a DECIMAL compared with a number of a larger scale or more
// integer digits than its type has. It compares every side of those as DECIMAL(65, s), s the
// largest scale among them, which holds them all exactly. A column so wrapped is not looked up in
// an index (the lookup would clamp its key), so such a comparison reads the table; all the others,
// the common case, are left as they were.

// exactDecimalPrecision is the precision of the DECIMAL the sides are compared in: MySQL's
// largest. Its scale is at most exactDecimalMaxScale, MySQL's largest.
const (
	exactDecimalPrecision = 65
	exactDecimalMaxScale  = 30
)

// ExactDecimalLiterals gives each decimal literal (1.499, not 1.5e0) that is a side of a
// comparison in stmt a type that holds it exactly, CAST(1.499 AS DECIMAL(5,3)), so that the
// engine's planner leaves its value as written (see the top of the file): in queries, INSERT,
// UPDATE, DELETE, the query of a view and CHECK constraints. The column a comparison names
// keeps the text the client wrote.
func ExactDecimalLiterals(stmt ast.Statement) ast.Statement {
	var tree ast.SQLNode
	switch s := stmt.(type) {
	case *ast.Select, *ast.SetOp, *ast.Update, *ast.Delete:
		tree = s
	case *ast.Insert:
		values, ok := insertValues(s)
		if !ok { // INSERT ... SELECT
			tree = s
			break
		}
		exactValuesLiterals(values)
		_ = ast.Walk(exactComparisonLiterals, s.OnDup, s.With)
		return stmt
	case *ast.Explain: // Walk does not look into it
		ExactDecimalLiterals(s.Statement)
		return stmt
	case *ast.DDL:
		// A view's query, and CHECK constraints: the engine keeps a constraint as the text of
		// its planned expression, where 1.499 becomes 1.50 for a DECIMAL(8,2) column.
		exactCheckLiterals(s)
		exactRoutineLiterals(s)
		if s.ViewSpec == nil || s.ViewSpec.ViewExpr == nil {
			return stmt
		}
		tree = s.ViewSpec.ViewExpr
	case *ast.AlterTable:
		for _, ddl := range s.Statements {
			exactCheckLiterals(ddl)
		}
		return stmt
	default:
		return stmt
	}
	_ = ast.Walk(exactComparisonLiterals, tree)
	return stmt
}

// exactValuesLiterals gives the decimal literals of the comparisons in the rows of a VALUES
// clause their exact type. A multi-row INSERT's rows can be many and are mostly literals, which
// hold no comparison: those are not walked, the other values (an expression, a subquery) are.
func exactValuesLiterals(rows ast.Values) {
	for _, row := range rows {
		for _, v := range row {
			switch v.(type) {
			case *ast.SQLVal, *ast.NullVal, ast.BoolVal, *ast.Default:
				continue
			}
			_ = ast.Walk(exactComparisonLiterals, v)
		}
	}
}

// insertValues is the rows of an INSERT ... VALUES; false for an INSERT ... SELECT.
func insertValues(insert *ast.Insert) (ast.Values, bool) {
	switch rows := insert.Rows.(type) {
	case *ast.AliasedValues:
		return rows.Values, true
	case ast.Values:
		return rows, true
	}
	return nil, false
}

// exactCheckLiterals gives the decimal literals of the comparisons in ddl's CHECK constraints
// their exact type.
func exactCheckLiterals(ddl *ast.DDL) {
	if ddl == nil || ddl.TableSpec == nil {
		return
	}
	for _, c := range ddl.TableSpec.Constraints {
		if check, ok := c.Details.(*ast.CheckConstraintDefinition); ok && check.Expr != nil {
			_ = ast.Walk(exactComparisonLiterals, check.Expr)
		}
	}
	for _, col := range ddl.TableSpec.Columns {
		for _, e := range []ast.Expr{col.Type.GeneratedExpr, col.Type.Default} {
			if e != nil {
				_ = ast.Walk(exactComparisonLiterals, e)
			}
		}
	}
}

// exactRoutineLiterals gives the decimal literals of the comparisons in the body of a stored
// procedure, a trigger or an event their exact type: in its statements, and in the conditions of
// its IF, CASE, WHILE and REPEAT and its RETURN, which the parser's walk does not visit. The
// engine parses a procedure's body again on each CALL, and a trigger's when it fires, with the
// same parser (the catalog's override, which applies Rewrite), so the body it runs is the one
// so rewritten.
func exactRoutineLiterals(ddl *ast.DDL) {
	if body := RoutineBody(ddl); body != nil {
		_ = ast.Walk(exactRoutineNode, body)
	}
}

// exactRoutineNode is exactComparisonLiterals for a node of a routine's body, conditions included.
func exactRoutineNode(node ast.SQLNode) (bool, error) {
	var conditions []ast.Expr
	switch n := node.(type) {
	case *ast.IfStatement:
		for _, c := range n.Conditions {
			conditions = append(conditions, c.Expr)
		}
	case *ast.CaseStatement:
		conditions = append(conditions, n.Expr)
		for _, c := range n.Cases {
			conditions = append(conditions, c.Case)
		}
	case *ast.While:
		conditions = append(conditions, n.Condition)
	case *ast.Repeat:
		conditions = append(conditions, n.Condition)
	case *ast.Return:
		conditions = append(conditions, n.Expr)
	}
	for _, e := range conditions {
		if e != nil {
			_ = ast.Walk(exactComparisonLiterals, e)
		}
	}
	return exactComparisonLiterals(node)
}

// exactComparisonLiterals is the walk that gives a comparison's decimal literals their exact type.
func exactComparisonLiterals(node ast.SQLNode) (bool, error) {
	if c, ok := node.(*ast.ComparisonExpr); ok {
		c.Left, c.Right = exactDecimalLiteral(c.Left), exactDecimalLiteral(c.Right)
	}
	return true, nil
}

// exactDecimalLiteral is e, or CAST(e AS DECIMAL(p+1, s)) when e is a decimal literal with p
// digits, s of them after the point, that MySQL's DECIMAL can hold.
func exactDecimalLiteral(e ast.Expr) ast.Expr {
	v, ok := e.(*ast.SQLVal)
	if !ok || v.Type != ast.FloatVal || bytes.ContainsAny(v.Val, "eE") {
		return e
	}
	whole, fraction, ok := bytes.Cut(bytes.TrimLeft(v.Val, "+-"), []byte("."))
	if !ok {
		return e
	}
	whole = bytes.TrimLeft(whole, "0")
	scale := len(fraction)
	// One digit more than the literal's own type has (which counts the 0 of 0.001): the planner
	// drops a CAST to that type, and then rounds the literal to the column's.
	precision := max(len(whole), 1) + scale + 1
	if scale > exactDecimalMaxScale || precision > exactDecimalPrecision {
		return e
	}
	return &ast.ConvertExpr{Name: "CAST", Expr: v, Type: &ast.ConvertType{Type: "decimal",
		Length: ast.NewIntVal([]byte(strconv.Itoa(precision))), Scale: ast.NewIntVal([]byte(strconv.Itoa(scale)))}}
}

// exactComparison corrects one comparison as MySQL compares: its text literals compared with
// numbers read as numbers (textReadAsNumber), text with numbers and DECIMAL with DOUBLE compared
// as DOUBLE (asDoubles), and other numbers by their exact values where the engine would round
// or clamp a side (exactSides).
func exactComparison(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	sides, ok := comparisonSides(e)
	if !ok {
		return e, transform.SameTree, nil
	}
	sides, read := textReadAsNumber(ctx, sides)
	if doubles, ok := asDoubles(ctx, sides); ok {
		out, err := withSides(ctx, e, doubles)
		return out, transform.NewTree, err
	}
	if read {
		var err error
		if e, err = withSides(ctx, e, sides); err != nil {
			return nil, transform.SameTree, err
		}
	}
	out, same, err := exactSides(ctx, e)
	return out, same && transform.TreeIdentity(!read), err
}

// exactSides rewrites one comparison whose sides the engine would round or clamp.
func exactSides(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	inexact := func(left, right sql.Expression) bool {
		return clampedKey(ctx, left, right) || clampedKey(ctx, right, left) || rounded(ctx, left, right)
	}
	var sides []sql.Expression
	switch e := e.(type) {
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual:
		sides = e.Children()
		if !inexact(sides[0], sides[1]) {
			return e, transform.SameTree, nil
		}
	case *expression.Between:
		// Evaluated as Lower <= Val AND Upper >= Val.
		sides = []sql.Expression{e.Val, e.Lower, e.Upper}
		if !inexact(e.Lower, e.Val) && !inexact(e.Upper, e.Val) {
			return e, transform.SameTree, nil
		}
	case *expression.InTuple:
		list, ok := e.Right().(expression.Tuple)
		if !ok || !slices.ContainsFunc(list, func(item sql.Expression) bool { return inexact(e.Left(), item) }) {
			return e, transform.SameTree, nil
		}
		scale, ok := exactScale(ctx, append([]sql.Expression{e.Left()}, list...))
		if !ok {
			return e, transform.SameTree, nil
		}
		items := make(expression.Tuple, len(list))
		for i, item := range list {
			items[i] = asExactDecimal(item, scale)
		}
		return expression.NewInTuple(asExactDecimal(e.Left(), scale), items), transform.NewTree, nil
	default:
		return e, transform.SameTree, nil
	}
	scale, ok := exactScale(ctx, sides)
	if !ok {
		return e, transform.SameTree, nil
	}
	exact := make([]sql.Expression, len(sides))
	for i, side := range sides {
		exact[i] = asExactDecimal(side, scale)
	}
	out, err := e.WithChildren(ctx, exact...)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return out, transform.NewTree, nil
}

// asExactDecimal is e compared as DECIMAL(65, scale).
func asExactDecimal(e sql.Expression, scale int) sql.Expression {
	return expression.NewConvertWithLengthAndScale(e, expression.ConvertToDecimal, exactDecimalPrecision, scale)
}

// fitsExactDecimal says whether e's value fits DECIMAL(65, scale) exactly for some scale, so
// that exactSides can compare it exactly (1e300 and 1e-300 do not).
func fitsExactDecimal(ctx *sql.Context, e sql.Expression) bool {
	d, ok := numericDigits(ctx, e)
	return ok && d.scale <= exactDecimalMaxScale && d.integer <= exactDecimalPrecision-d.scale
}

// exactScale is the scale that holds every side exactly, and whether DECIMAL(65, scale) holds
// their integer digits too.
func exactScale(ctx *sql.Context, sides []sql.Expression) (int, bool) {
	scale, digits := 0, 0
	for _, side := range sides {
		d, ok := numericDigits(ctx, side)
		if !ok {
			return 0, false
		}
		scale, digits = max(scale, d.scale), max(digits, d.integer)
	}
	return scale, scale <= exactDecimalMaxScale && digits <= exactDecimalPrecision-scale
}

// digits are the integer and fractional digits a number has (a literal) or may have (its type).
type digits struct{ integer, scale int }

// numericDigits are e's digits: a literal's own, otherwise its type's; false when e is not an
// exact number (an integer or a DECIMAL).
func numericDigits(ctx *sql.Context, e sql.Expression) (digits, bool) {
	if l, ok := e.(*expression.Literal); ok && l.Value() == nil {
		return digits{}, true // NULL holds no digits, at any scale
	}
	if v, ok := literalDecimal(ctx, e); ok {
		return valueDigits(v), true
	}
	return typeDigits(e.Type(ctx))
}

func valueDigits(v decimal.Decimal) digits {
	scale := 0
	if exp := v.Exponent(); exp < 0 {
		scale = int(-exp)
	}
	integer := len(v.Abs().Truncate(0).String())
	return digits{integer: integer, scale: scale}
}

// intRange is the range of an integer type.
type intRange struct{ min, max decimal.Decimal }

var intRanges = map[query.Type]intRange{
	sqltypes.Int8:   {decimal.NewFromInt(-1 << 7), decimal.NewFromInt(1<<7 - 1)},
	sqltypes.Uint8:  {decimal.Zero, decimal.NewFromInt(1<<8 - 1)},
	sqltypes.Int16:  {decimal.NewFromInt(-1 << 15), decimal.NewFromInt(1<<15 - 1)},
	sqltypes.Uint16: {decimal.Zero, decimal.NewFromInt(1<<16 - 1)},
	sqltypes.Int24:  {decimal.NewFromInt(-1 << 23), decimal.NewFromInt(1<<23 - 1)},
	sqltypes.Uint24: {decimal.Zero, decimal.NewFromInt(1<<24 - 1)},
	sqltypes.Int32:  {decimal.NewFromInt(-1 << 31), decimal.NewFromInt(1<<31 - 1)},
	sqltypes.Uint32: {decimal.Zero, decimal.NewFromInt(1<<32 - 1)},
	sqltypes.Int64:  {decimal.NewFromInt(-1 << 63), decimal.NewFromInt(1<<63 - 1)},
	sqltypes.Uint64: {decimal.Zero, decimal.RequireFromString("18446744073709551615")},
}

func typeDigits(t sql.Type) (digits, bool) {
	if dt, ok := t.(sql.DecimalType); ok {
		return digits{integer: int(dt.Precision()) - int(dt.Scale()), scale: int(dt.Scale())}, true
	}
	if r, ok := intRanges[t.Type()]; ok {
		return digits{integer: max(len(r.min.Abs().String()), len(r.max.String()))}, true
	}
	return digits{}, false
}

// clampedKey reports whether an index lookup on column would clamp or round other: other is a
// literal that the column's type cannot hold exactly (the lookup converts its key to that type).
func clampedKey(ctx *sql.Context, column, other sql.Expression) bool {
	if _, ok := column.(*expression.GetField); !ok || !types.IsInteger(column.Type(ctx)) && !types.IsDecimal(column.Type(ctx)) {
		return false // holds would say yes: no literal to read (reading a text one allocates)
	}
	v, ok := literalDecimal(ctx, other)
	return ok && !holds(column.Type(ctx), v)
}

// rounded reports whether the engine's comparison of left with right would round or clamp one
// of them: it compares in left's type when that is a DECIMAL, else in right's when that is, and
// that type has fewer digits than the other side has.
func rounded(ctx *sql.Context, left, right sql.Expression) bool {
	lt, rt := left.Type(ctx), right.Type(ctx)
	switch {
	case types.TypesEqual(lt, rt):
		return false
	case types.IsDecimal(lt):
		return !wide(ctx, lt, right)
	case types.IsDecimal(rt):
		return !wide(ctx, rt, left)
	}
	return false
}

// wide reports whether the DECIMAL type t holds every value e may have.
func wide(ctx *sql.Context, t sql.Type, e sql.Expression) bool {
	have, _ := typeDigits(t)
	need, ok := numericDigits(ctx, e)
	if !ok {
		return true // not an exact number: not this rule's case
	}
	return need.integer <= have.integer && need.scale <= have.scale
}

// holds reports whether the integer or DECIMAL type t holds v exactly.
func holds(t sql.Type, v decimal.Decimal) bool {
	if r, ok := intRanges[t.Type()]; ok {
		return v.Equal(v.Truncate(0)) && v.Cmp(r.min) >= 0 && v.Cmp(r.max) <= 0
	}
	if dt, ok := t.(sql.DecimalType); ok {
		d := valueDigits(v)
		return d.scale <= int(dt.Scale()) && (v.IsZero() || d.integer <= int(dt.Precision())-int(dt.Scale()))
	}
	return true
}

// literalDecimal is the value of a numeric literal (or a text literal that is a number, or a
// literal converted to DECIMAL by ExactDecimalLiterals), exactly; false for anything else.
func literalDecimal(ctx *sql.Context, e sql.Expression) (decimal.Decimal, bool) {
	var value any
	switch e := e.(type) {
	case *expression.Literal:
		value = e.Value()
	case *expression.Convert:
		if _, ok := e.Child.(*expression.Literal); !ok || !types.IsDecimal(e.Type(ctx)) {
			return decimal.Decimal{}, false
		}
		v, err := e.Eval(ctx, nil)
		if err != nil {
			return decimal.Decimal{}, false
		}
		value = v
	default:
		return decimal.Decimal{}, false
	}
	switch v := value.(type) {
	case *apd.Decimal: // the engine's DECIMAL values
		d, err := decimal.NewFromString(v.Text('f'))
		if err != nil {
			return decimal.Decimal{}, false
		}
		return trimZeros(d), true
	case decimal.Decimal:
		return trimZeros(v), true
	case int8:
		return decimal.NewFromInt(int64(v)), true
	case int16:
		return decimal.NewFromInt(int64(v)), true
	case int32:
		return decimal.NewFromInt(int64(v)), true
	case int64:
		return decimal.NewFromInt(v), true
	case uint8:
		return decimal.NewFromInt(int64(v)), true
	case uint16:
		return decimal.NewFromInt(int64(v)), true
	case uint32:
		return decimal.NewFromInt(int64(v)), true
	case uint64:
		return decimal.RequireFromString(strconv.FormatUint(v, 10)), true
	case float64:
		// A client's DOUBLE parameter (go-sql-driver sends a float64 so): the shortest decimal
		// that reads back as the same double, 1.499 for 1.499.
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return decimal.Decimal{}, false
		}
		return trimZeros(decimal.NewFromFloat(v)), true
	case string:
		// A client's parameter sent as text (DECIMAL values often are), when it is a number.
		d, err := decimal.NewFromString(strings.TrimSpace(v))
		return trimZeros(d), err == nil
	}
	return decimal.Decimal{}, false
}

// trimZeros drops a decimal's trailing fractional zeros: 1.500 holds in DECIMAL(8,2).
func trimZeros(v decimal.Decimal) decimal.Decimal {
	for v.Exponent() < 0 && v.Equal(v.Truncate(-v.Exponent()-1)) {
		v = v.Truncate(-v.Exponent() - 1)
	}
	return v
}

// Text compared with a number. MySQL compares text with a number as floating-point numbers,
// reading the text's longest numeric prefix: with s VARCHAR, `s = 0` holds for 'aa' and '0', `s
// = 1` for '1', '1.0' and ' 1', `s = 2` for '2x'. The engine reads a text column as the
// number's type, strictly: '2x' is 0, so `s = 2` misses it and `s = 0` finds it; an index lookup
// on s converts the number to text first and finds only '0', or '1'; `s IN (1, 0)` compares as
// text; and a join `s = n` with an INT n finds different rows through an index on s, one on n,
// and none. asDoubles reads each text side that is not a literal as MySQL does (textAsDouble)
// and compares the number sides as DOUBLE; text literals are read by textReadAsNumber, below.
// A text side so read is not looked up in an index.

// A DECIMAL compared with a FLOAT or DOUBLE: MySQL compares them as floating-point numbers. The
// engine compares them in the DECIMAL's type, rounding the other side: with d DECIMAL(8,2)
// holding 1.50 and f DOUBLE holding 1.499, `d = f` is true. asDoubles compares such a
// comparison's number sides as DOUBLE when the floating-point side is not a literal, or is one
// that no DECIMAL(65) holds exactly (1e300, 1e-300; the engine's index lookup fails on it with
// 1105); a literal that fits is compared exactly, by exactSides, which gives the same answers.
// An integer compared with such a literal is compared as DOUBLE too: the engine converts the
// literal to the integer's type, so `h IN (1, -1e-300)` holds for 0.

// asDoubles is the sides of a comparison compared as DOUBLE when they mix text that is not a
// literal with numbers, a DECIMAL with a FLOAT or DOUBLE that is not an exact literal, or an
// integer with a floating-point literal no DECIMAL(65) holds: text sides
// read as MySQL reads them (textAsDouble), integer and DECIMAL sides converted. False when they
// do not.
func asDoubles(ctx *sql.Context, sides []sql.Expression) ([]sql.Expression, bool) {
	var text, number, decimal, integer, float, huge bool
	for _, side := range sides {
		_, literal := side.(*expression.Literal)
		text = text || types.IsText(side.Type(ctx)) && !literal
		number = number || types.IsNumber(side.Type(ctx))
		decimal = decimal || types.IsDecimal(side.Type(ctx))
		integer = integer || types.IsInteger(side.Type(ctx))
		huge = huge || types.IsFloat(side.Type(ctx)) && literal && !fitsExactDecimal(ctx, side)
		float = float || types.IsFloat(side.Type(ctx)) && (!literal || !fitsExactDecimal(ctx, side))
	}
	if !(text && number) && !(decimal && float) && !(integer && huge) {
		return sides, false
	}
	doubles := make([]sql.Expression, len(sides))
	for i, side := range sides {
		_, literal := side.(*expression.Literal)
		switch {
		case types.IsText(side.Type(ctx)) && !literal:
			doubles[i] = textAsDouble{text: side}
		case types.IsFloat(side.Type(ctx)) || literal && !types.IsDecimal(side.Type(ctx)):
			doubles[i] = side
		default:
			doubles[i] = expression.NewConvert(side, expression.ConvertToDouble)
			if v, ok := literalDecimal(ctx, side); ok {
				// The parser's CAST of a decimal literal: a DOUBLE literal, which the
				// engine's planner takes for a constant.
				f, _ := v.Float64()
				doubles[i] = expression.NewLiteral(f, types.Float64)
			}
		}
	}
	return doubles, true
}

// comparisonSides is the sides of comparison e (=, <=>, <, <=, >, >=, BETWEEN, or IN a list of
// values); false when e is none of those. withSides makes the same comparison of other sides.
func comparisonSides(e sql.Expression) ([]sql.Expression, bool) {
	switch c := e.(type) {
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual:
		return c.Children(), true
	case *expression.Between:
		return []sql.Expression{c.Val, c.Lower, c.Upper}, true
	case *expression.InTuple:
		if list, ok := c.Right().(expression.Tuple); ok {
			return append([]sql.Expression{c.Left()}, list...), true
		}
	}
	return nil, false
}

// withSides is comparison e, as comparisonSides reads it, of sides instead.
func withSides(ctx *sql.Context, e sql.Expression, sides []sql.Expression) (sql.Expression, error) {
	switch e.(type) {
	case *expression.Between:
		return expression.NewBetween(sides[0], sides[1], sides[2]), nil
	case *expression.InTuple:
		return expression.NewInTuple(sides[0], expression.Tuple(sides[1:])), nil
	}
	return e.WithChildren(ctx, sides...)
}

// textAsDouble is text read as MySQL reads text compared with a number, or CAST(text AS DOUBLE):
// its longest numeric prefix (numericPrefix), a DOUBLE; NULL stays NULL. (MySQL also warns, 1292,
// for each value that is not a number as a whole; this does not, so that a large table of such
// values cannot fill the session's warnings.) It reads as CAST(text AS DOUBLE), which is what
// SHOW CREATE TABLE writes for a CHECK constraint or a generated column that holds it; the
// engine reads that CAST with the same numeric prefix.
type textAsDouble struct{ text sql.Expression }

func (t textAsDouble) Resolved() bool                   { return t.text.Resolved() }
func (t textAsDouble) String() string                   { return fmt.Sprintf("convert(%v, double)", t.text) }
func (t textAsDouble) Type(ctx *sql.Context) sql.Type   { return types.Float64 }
func (t textAsDouble) IsNullable(ctx *sql.Context) bool { return t.text.IsNullable(ctx) }
func (t textAsDouble) Children() []sql.Expression       { return []sql.Expression{t.text} }
func (t textAsDouble) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.text.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	text, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	s, ok := text.(string)
	if !ok {
		return nil, fmt.Errorf("text_as_double: %T is not text", text)
	}
	f, _ := numericPrefix(s)
	return f, nil
}

func (t textAsDouble) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return textAsDouble{text: children[0]}, nil
}

// A number compared with text that is not a number: MySQL compares them as floating-point
// numbers, reading the text's longest numeric prefix ('1x' is 1, '2.5e1zz' 25, 'abc' 0) with a
// warning 1292. The engine converts such text to the number's type: a lookup in an index on an
// INT n fails with 1366 ("'1x' is not a valid value for 'int'"), and without one '1x' reads as
// 0, so `n = '1x'` finds the rows holding 0. textReadAsNumber gives such a text literal its value
// as MySQL reads it, a DOUBLE; text that is a number as a whole (' 1', '1.5') is left to the
// engine, which reads it right.

// textReadAsNumber is the sides of a comparison with its text literals that are not numbers as
// a whole read as numbers, when a side is a number; whether it read any.
func textReadAsNumber(ctx *sql.Context, sides []sql.Expression) ([]sql.Expression, bool) {
	if !slices.ContainsFunc(sides, func(side sql.Expression) bool { return types.IsNumber(side.Type(ctx)) }) {
		return sides, false
	}
	var read []sql.Expression // a copy of sides, made at the first change
	for i, side := range sides {
		lit, ok := side.(*expression.Literal)
		if !ok || !types.IsText(lit.Type(ctx)) {
			continue
		}
		text, ok := lit.Value().(string)
		if !ok {
			continue
		}
		if v, whole := numericPrefix(text); !whole {
			ctx.Warn(mysql.ERTruncatedWrongValue, "Truncated incorrect DOUBLE value: '%s'", text)
			if read == nil {
				read = slices.Clone(sides)
			}
			read[i] = expression.NewLiteral(v, types.Float64)
		}
	}
	if read == nil {
		return sides, false
	}
	return read, true
}

// numericPrefix is MySQL's reading of text as a number: after leading spaces, an optional sign,
// digits with at most one point, and an exponent; 0 when no digit starts it. whole reports
// whether only spaces follow.
func numericPrefix(text string) (value float64, whole bool) {
	i := 0
	spaces := func() {
		for i < len(text) && strings.IndexByte(" \t\n\r\f\v", text[i]) >= 0 {
			i++
		}
	}
	digits := func() int {
		start := i
		for i < len(text) && text[i] >= '0' && text[i] <= '9' {
			i++
		}
		return i - start
	}
	spaces()
	start := i
	if i < len(text) && (text[i] == '+' || text[i] == '-') {
		i++
	}
	n := digits()
	if i < len(text) && text[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		i = start
	} else if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		mantissa := i
		i++
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			i++
		}
		if digits() == 0 {
			i = mantissa
		}
	}
	number := text[start:i]
	spaces()
	whole = i == len(text) && number != ""
	if number == "" {
		return 0, whole
	}
	value, err := strconv.ParseFloat(number, 64)
	if err != nil { // out of range: ParseFloat gives ±Inf, as MySQL's largest DOUBLE would be
		return value, false
	}
	return value, whole
}

// unindexed is a column that evaluates as itself, and that the engine's planner does not take
// for a column to look up in an index.
type unindexed struct{ column sql.Expression }

var _ sql.CollationCoercible = unindexed{}

func (u unindexed) Resolved() bool                                  { return u.column.Resolved() }
func (u unindexed) String() string                                  { return u.column.String() }
func (u unindexed) Type(ctx *sql.Context) sql.Type                  { return u.column.Type(ctx) }
func (u unindexed) IsNullable(ctx *sql.Context) bool                { return u.column.IsNullable(ctx) }
func (u unindexed) Eval(ctx *sql.Context, row sql.Row) (any, error) { return u.column.Eval(ctx, row) }
func (u unindexed) Children() []sql.Expression                      { return []sql.Expression{u.column} }

func (u unindexed) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 1)
	}
	return unindexed{column: children[0]}, nil
}

func (u unindexed) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, u.column)
}

// RoutineBody is the body of the stored procedure, trigger or event ddl creates, or nil.
func RoutineBody(ddl *ast.DDL) ast.Statement {
	switch {
	case ddl.ProcedureSpec != nil:
		return ddl.ProcedureSpec.Body
	case ddl.TriggerSpec != nil:
		return ddl.TriggerSpec.Body
	case ddl.EventSpec != nil:
		return ddl.EventSpec.Body
	}
	return nil
}
