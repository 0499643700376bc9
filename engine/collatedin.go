package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `x IN (...)` of a text
// column and text constants compares in the column's collation (the engine compares in the
// literals' collation, so under utf8mb4_0900_ai_ci `b IN ('E')` misses 'e' and 'é' that
// `b = 'E'` finds).
// Test: TestCollatedIn/TextInListUsesTheColumnsCollation fails without it.
//
// MySQL compares the sides of IN in the collation that wins by coercibility: a column's (2)
// over a literal's (4). collatedInLists replaces such an IN, once the engine has chosen its
// plan, by collatedIn, which looks the value up by its collation hash and confirms a hit with
// the column type's own comparison, the one `=` uses.

//
// `x <=> 'text'` alike: the engine compares it in bytes, so `b <=> 'A'` misses 'a' that
// `b = 'A'` finds; collatedNullSafeEquals compares with the column type's comparison.
// Test: TestCollatedIn/NullSafeEqualsUsesTheColumnsCollation fails without it.

var collatedInLists = planRule(func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if c, ok := newCollatedIn(ctx, e); ok {
		return c, transform.NewTree, nil
	}
	if c, ok := newCollatedNullSafeEquals(ctx, e); ok {
		return c, transform.NewTree, nil
	}
	if c, ok := timeInList(ctx, e); ok {
		return c, transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}, func(_ *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return n, transform.SameTree, nil
})

// collatedIn is an IN of a text value and text constants, in the value's collation.
type collatedIn struct {
	in      sql.Expression // the engine's IN, for its text, type and children
	left    sql.Expression
	typ     sql.StringType
	coll    sql.CollationID
	byHash  map[uint64][]string
	hasNull bool
}

var (
	_ sql.Expression         = (*collatedIn)(nil)
	_ sql.CollationCoercible = (*collatedIn)(nil)
)

// collatedColumn is the string type and collation of a text value whose collation wins over
// a literal's (coercibility at most 2) and compares by weights (neither binary nor _bin).
func collatedColumn(ctx *sql.Context, e sql.Expression) (sql.StringType, sql.CollationID, bool) {
	typ, ok := e.Type(ctx).(sql.StringType)
	if !ok || !types.IsTextOnly(typ) {
		return nil, 0, false
	}
	coll, coercibility := sql.GetCoercibility(ctx, e)
	if coercibility > 2 || coll == sql.Collation_binary || strings.HasSuffix(coll.Name(), "_bin") {
		return nil, 0, false
	}
	return typ, coll, true
}

// newCollatedIn is e as a collatedIn, if e is an IN whose left side is text in a collation
// stronger than its list's and whose list is text constants (or NULL).
func newCollatedIn(ctx *sql.Context, e sql.Expression) (*collatedIn, bool) {
	var left, right sql.Expression
	switch in := e.(type) {
	case *expression.InTuple:
		left, right = in.Left(), in.Right()
	case *expression.HashInTuple:
		left, right = in.Left(), in.Right()
	default:
		return nil, false
	}
	list, ok := right.(expression.Tuple)
	if !ok {
		return nil, false
	}
	typ, coll, ok := collatedColumn(ctx, left)
	if !ok {
		return nil, false
	}
	c := &collatedIn{in: e, left: left, typ: typ, coll: coll, byHash: make(map[uint64][]string, len(list))}
	for _, el := range list {
		lit, ok := el.(*expression.Literal)
		if !ok {
			return nil, false
		}
		v := lit.Value()
		if v == nil {
			c.hasNull = true
			continue
		}
		s, ok := v.(string)
		if !ok || !types.IsTextOnly(lit.Type(ctx)) {
			return nil, false
		}
		h, err := coll.HashToUint(s)
		if err != nil {
			return nil, false
		}
		c.byHash[h] = append(c.byHash[h], s)
	}
	return c, true
}

func (c *collatedIn) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.left.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	s, ok := v.(string)
	if !ok {
		return c.in.Eval(ctx, row)
	}
	h, err := c.coll.HashToUint(s)
	if err != nil {
		return nil, err
	}
	for _, candidate := range c.byHash[h] {
		cmp, err := c.typ.Compare(ctx, s, candidate)
		if err != nil {
			return nil, err
		}
		if cmp == 0 {
			return true, nil
		}
	}
	if c.hasNull {
		return nil, nil
	}
	return false, nil
}

func (c *collatedIn) Resolved() bool                   { return c.in.Resolved() }
func (c *collatedIn) String() string                   { return c.in.String() }
func (c *collatedIn) Type(ctx *sql.Context) sql.Type   { return c.in.Type(ctx) }
func (c *collatedIn) IsNullable(ctx *sql.Context) bool { return c.in.IsNullable(ctx) }
func (c *collatedIn) Children() []sql.Expression       { return c.in.Children() }

func (c *collatedIn) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	in, err := c.in.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	if out, ok := newCollatedIn(ctx, in); ok {
		return out, nil
	}
	return in, nil
}

func (c *collatedIn) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, c.in)
}

// collatedNullSafeEquals is `x <=> 'text'` of a text value, in the value's collation.
type collatedNullSafeEquals struct {
	eq    sql.Expression // the engine's <=>, for its text, type and children
	value sql.Expression
	typ   sql.StringType
	text  string
}

var (
	_ sql.Expression         = (*collatedNullSafeEquals)(nil)
	_ sql.CollationCoercible = (*collatedNullSafeEquals)(nil)
)

// newCollatedNullSafeEquals is e as a collatedNullSafeEquals, if e is a <=> of a text value
// in a collation stronger than a text literal's, either way round.
func newCollatedNullSafeEquals(ctx *sql.Context, e sql.Expression) (*collatedNullSafeEquals, bool) {
	eq, ok := e.(*expression.NullSafeEquals)
	if !ok {
		return nil, false
	}
	value, other := eq.Left(), eq.Right()
	if _, ok := value.(*expression.Literal); ok {
		value, other = other, value
	}
	lit, ok := other.(*expression.Literal)
	if !ok || !types.IsTextOnly(lit.Type(ctx)) {
		return nil, false
	}
	text, ok := lit.Value().(string)
	if !ok {
		return nil, false
	}
	typ, _, ok := collatedColumn(ctx, value)
	if !ok {
		return nil, false
	}
	return &collatedNullSafeEquals{eq: e, value: value, typ: typ, text: text}, true
}

func (c *collatedNullSafeEquals) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.value.Eval(ctx, row)
	if err != nil || v == nil {
		return false, err
	}
	s, ok := v.(string)
	if !ok {
		return c.eq.Eval(ctx, row)
	}
	cmp, err := c.typ.Compare(ctx, s, c.text)
	return cmp == 0, err
}

func (c *collatedNullSafeEquals) Resolved() bool                   { return c.eq.Resolved() }
func (c *collatedNullSafeEquals) String() string                   { return c.eq.String() }
func (c *collatedNullSafeEquals) Type(ctx *sql.Context) sql.Type   { return c.eq.Type(ctx) }
func (c *collatedNullSafeEquals) IsNullable(ctx *sql.Context) bool { return false }
func (c *collatedNullSafeEquals) Children() []sql.Expression       { return c.eq.Children() }

func (c *collatedNullSafeEquals) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	eq, err := c.eq.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	if out, ok := newCollatedNullSafeEquals(ctx, eq); ok {
		return out, nil
	}
	return eq, nil
}

func (c *collatedNullSafeEquals) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, c.eq)
}
