package functions

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// resultSize bounds, in bytes, the result of a function from its evaluated arguments; it
// saturates instead of overflowing.
type resultSize func(ctx *sql.Context, args []any) uint64

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): functions that build a
// value over max_allowed_packet return NULL with warning 1301 (the engine allocates any size).
// Test: TestBigValuesAreNull, TestMemoryAttacksFailCleanly (the aggregates) fail without it.
//
// boundedFunctions are those functions, each with the bound of its result.
var boundedFunctions = map[string]resultSize{
	"repeat": func(ctx *sql.Context, a []any) uint64 { return mul(size(a[0]), count(ctx, a[1])) },
	"space":  func(ctx *sql.Context, a []any) uint64 { return count(ctx, a[0]) },
	"lpad":   padSize,
	"rpad":   padSize,
	"concat": func(_ *sql.Context, a []any) uint64 { return sum(a) },
	"concat_ws": func(_ *sql.Context, a []any) uint64 {
		return add(sum(a[1:]), mul(size(a[0]), uint64(max(len(a)-2, 0))))
	},
	"replace":     replaceSize,
	"to_base64":   func(_ *sql.Context, a []any) uint64 { return mul(size(a[0]), 2) },
	"hex":         func(_ *sql.Context, a []any) uint64 { return mul(size(a[0]), 2) },
	"json_array":  func(_ *sql.Context, a []any) uint64 { return mul(sum(a), 2) },
	"json_object": func(_ *sql.Context, a []any) uint64 { return mul(sum(a), 2) },
	// A control character is quoted as \u00XX.
	"json_quote":          func(_ *sql.Context, a []any) uint64 { return add(mul(sum(a), 6), 2) },
	"json_set":            jsonModifySize,
	"json_insert":         jsonModifySize,
	"json_replace":        jsonModifySize,
	"json_array_append":   jsonModifySize,
	"json_array_insert":   jsonModifySize,
	"json_merge":          jsonMergeSize,
	"json_merge_preserve": jsonMergeSize,
	"json_merge_patch":    jsonMergeSize,
	"json_pretty":         jsonPrettySize,
}

// boundedAggregates are the engine's aggregates that keep every value they are given, each
// with the bound of one value's share of the result (the sum over the rows bounds the result).
// GROUP_CONCAT stops at group_concat_max_len instead (the server bounds that setting by
// max_allowed_packet: boundGroupConcat, server/variables.go).
var boundedAggregates = map[string]resultSize{
	"json_arrayagg":  func(_ *sql.Context, a []any) uint64 { return add(mul(sum(a), 2), 2) },
	"json_objectagg": func(_ *sql.Context, a []any) uint64 { return add(mul(sum(a), 2), 4) },
}

// boundedCall is a call of an engine function whose result size is checked before it is
// built: the arguments are evaluated once, and the engine's function runs on them only when
// the result fits in max_allowed_packet.
type boundedCall struct {
	call    sql.Expression
	name    string
	size    resultSize
	limit   func() int
	stopped func(context.Context) error
}

var (
	_ sql.FunctionExpression = (*boundedCall)(nil)
	_ sql.CollationCoercible = (*boundedCall)(nil)
)

func (b *boundedCall) Resolved() bool                 { return b.call.Resolved() }
func (b *boundedCall) String() string                 { return b.call.String() }
func (b *boundedCall) Type(ctx *sql.Context) sql.Type { return b.call.Type(ctx) }
func (b *boundedCall) IsNullable(*sql.Context) bool   { return true }
func (b *boundedCall) Children() []sql.Expression     { return b.call.Children() }
func (b *boundedCall) FunctionName() string           { return b.name }

func (b *boundedCall) Description() string {
	if f, ok := b.call.(sql.FunctionExpression); ok {
		return f.Description()
	}
	return b.name
}

func (b *boundedCall) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	if c, ok := b.call.(sql.CollationCoercible); ok {
		return c.CollationCoercibility(ctx)
	}
	return sql.Collation_binary, 5
}

func (b *boundedCall) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	call, err := b.call.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	return &boundedCall{call: call, name: b.name, size: b.size, limit: b.limit, stopped: b.stopped}, nil
}

func (b *boundedCall) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if err := b.stopped(ctx); err != nil {
		return nil, err
	}
	children := b.call.Children()
	args := make([]any, len(children))
	for i, c := range children {
		v, err := c.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	if limit := b.limit(); b.size(ctx, args) > uint64(limit) {
		ctx.Warn(mysqlerr.ERWarnAllowedPacketOverflowed, "Result of %s() was larger than max_allowed_packet (%d) - truncated", b.name, limit)
		return nil, nil
	}
	literals := make([]sql.Expression, len(args))
	for i, v := range args {
		literals[i] = expression.NewLiteral(v, children[i].Type(ctx))
	}
	call, err := b.call.WithChildren(ctx, literals...)
	if err != nil {
		return nil, err
	}
	v, err := call.Eval(ctx, row)
	// A statement stopped or cancelled while the value was built fails here, in the row that
	// holds the value (the stopped given to NewBoundedProvider).
	if err := b.stopped(ctx); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	default:
	}
	return v, err
}

// boundedAggregate is an aggregate whose result size is checked while it is built: each
// buffer sums the bound of every value it is given, and once the sum is over max_allowed_packet
// it keeps no more values and its result is NULL with warning 1301, as MySQL's. Each argument
// is evaluated once, by the buffer, which hands the values to the engine's buffer. (Used as a
// window function, the aggregate is the engine's own: see docs/reference.md, Limits.)
type boundedAggregate struct {
	sql.Aggregation
	name  string
	size  resultSize
	limit func() int
}

var _ sql.FunctionExpression = (*boundedAggregate)(nil)

func (b *boundedAggregate) FunctionName() string         { return b.name }
func (b *boundedAggregate) IsNullable(*sql.Context) bool { return true }

func (b *boundedAggregate) Description() string {
	if f, ok := b.Aggregation.(sql.FunctionExpression); ok {
		return f.Description()
	}
	return b.name
}

func (b *boundedAggregate) with(e sql.Expression) (sql.Expression, error) {
	agg, ok := e.(sql.Aggregation)
	if !ok {
		return nil, fmt.Errorf("functions: %s is no longer an aggregate", b.name)
	}
	return &boundedAggregate{Aggregation: agg, name: b.name, size: b.size, limit: b.limit}, nil
}

func (b *boundedAggregate) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	e, err := b.Aggregation.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	return b.with(e)
}

func (b *boundedAggregate) WithId(id sql.ColumnId) sql.IdExpression {
	e, err := b.with(b.Aggregation.WithId(id))
	if err != nil {
		panic(err) // the engine's aggregates keep their type
	}
	return e.(sql.IdExpression)
}

func (b *boundedAggregate) WithWindow(ctx *sql.Context, w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	e, err := b.with(b.Aggregation.WithWindow(ctx, w))
	if err != nil {
		panic(err) // the engine's aggregates keep their type
	}
	return e.(sql.WindowAdaptableExpression)
}

// NewBuffer gives the engine's buffer of a copy of the aggregate whose arguments are the
// values this buffer evaluated.
func (b *boundedAggregate) NewBuffer(ctx *sql.Context) (sql.AggregationBuffer, error) {
	children := b.Aggregation.Children()
	values := make([]any, len(children))
	held := make([]sql.Expression, len(children))
	own := make([]sql.Expression, len(children))
	for i, c := range children {
		held[i] = heldValue{Expression: c, value: &values[i]}
		// An argument may keep state (DISTINCT): each buffer evaluates its own copy.
		clone, err := transform.Clone(ctx, c)
		if err != nil {
			return nil, err
		}
		own[i] = clone
	}
	inner, err := b.Aggregation.WithChildren(ctx, held...)
	if err != nil {
		return nil, err
	}
	buf, err := inner.(sql.Aggregation).NewBuffer(ctx)
	if err != nil {
		return nil, err
	}
	return &boundedBuffer{agg: b, children: own, values: values, buf: buf}, nil
}

// heldValue stands for an argument of an aggregate: its value was evaluated by boundedBuffer.
type heldValue struct {
	sql.Expression
	value *any
}

func (h heldValue) Eval(*sql.Context, sql.Row) (any, error) { return *h.value, nil }

func (h heldValue) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(h, len(children), 0)
	}
	return h, nil
}

func (h heldValue) Children() []sql.Expression { return nil }

type boundedBuffer struct {
	agg      *boundedAggregate
	children []sql.Expression
	values   []any
	buf      sql.AggregationBuffer
	total    uint64
	over     bool
}

func (b *boundedBuffer) Update(ctx *sql.Context, row sql.Row) error {
	if b.over {
		return nil
	}
	for i, c := range b.children {
		v, err := c.Eval(ctx, row)
		if err != nil {
			return err
		}
		b.values[i] = v
	}
	b.total = add(b.total, b.agg.size(ctx, b.values))
	if b.total > uint64(b.agg.limit()) {
		b.over = true
		b.buf.Dispose(ctx)
		return nil
	}
	return b.buf.Update(ctx, row)
}

func (b *boundedBuffer) Eval(ctx *sql.Context) (any, error) {
	if b.over {
		limit := b.agg.limit()
		ctx.Warn(mysqlerr.ERWarnAllowedPacketOverflowed, "Result of %s() was larger than max_allowed_packet (%d) - truncated", b.agg.name, limit)
		return nil, nil
	}
	return b.buf.Eval(ctx)
}

func (b *boundedBuffer) Dispose(ctx *sql.Context) {
	if !b.over {
		b.buf.Dispose(ctx)
	}
}

// jsonModifySize bounds JSON_SET(doc, path, value, ...) and its kin: the document, and every
// path and value quoted.
func jsonModifySize(_ *sql.Context, a []any) uint64 {
	if len(a) == 0 {
		return 0
	}
	return add(size(a[0]), mul(sum(a[1:]), 2))
}

// jsonMergeSize bounds JSON_MERGE_PRESERVE(doc, doc, ...) and its kin: the documents, each
// wrapped in an array at most.
func jsonMergeSize(_ *sql.Context, a []any) uint64 {
	return add(sum(a), mul(uint64(len(a)), 2))
}

// jsonPrettySize bounds JSON_PRETTY(doc): every byte may start a line indented by two spaces per
// level of nesting.
func jsonPrettySize(_ *sql.Context, a []any) uint64 {
	text := jsonText(a[0])
	return mul(uint64(len(text)), add(2, mul(uint64(jsonDepth(text)), 2)))
}

// jsonText is a JSON argument as text.
func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// jsonDepth is the deepest nesting of arrays and objects in JSON text, outside strings.
func jsonDepth(text string) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '[' || ch == '{':
			depth++
			deepest = max(deepest, depth)
		case ch == ']' || ch == '}':
			depth--
		}
	}
	return deepest
}

// size is the byte length of a value as a string, an upper bound for values that are not
// strings (numbers, dates) and 0 for NULL.
func size(v any) uint64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return uint64(len(x))
	case []byte:
		return uint64(len(x))
	case fmt.Stringer:
		return uint64(len(x.String()))
	}
	return 64
}

// count is a numeric argument as a non-negative count (0 for NULL, negative or not a number),
// read as the engine reads it: text up to its first non-digit ('1e9' is 1, with an error the
// engine reports itself).
func count(ctx *sql.Context, v any) uint64 {
	if v == nil {
		return 0
	}
	n, _, _ := types.Int64.Convert(ctx, v)
	i, ok := n.(int64)
	if !ok {
		return 0
	}
	return uint64(max(i, 0))
}

// padSize bounds LPAD/RPAD(str, n, pad): n characters, each as wide as the widest of str and
// pad.
func padSize(ctx *sql.Context, a []any) uint64 {
	width := uint64(1)
	for _, v := range []any{a[0], a[len(a)-1]} {
		if s, ok := v.(string); ok && utf8.RuneCountInString(s) != len(s) {
			width = utf8.UTFMax
		}
	}
	return mul(count(ctx, a[1]), width)
}

// replaceSize bounds REPLACE(str, from, to) by counting the occurrences of from.
func replaceSize(_ *sql.Context, a []any) uint64 {
	str, ok1 := a[0].(string)
	from, ok2 := a[1].(string)
	to, ok3 := a[2].(string)
	if !ok1 || !ok2 || !ok3 {
		return add(size(a[0]), mul(size(a[0]), size(a[2])))
	}
	if from == "" || len(to) <= len(from) {
		return uint64(len(str))
	}
	return add(uint64(len(str)), mul(uint64(strings.Count(str, from)), uint64(len(to)-len(from))))
}

func sum(args []any) uint64 {
	var total uint64
	for _, v := range args {
		total = add(total, size(v))
	}
	return total
}

const saturated = ^uint64(0)

func add(a, b uint64) uint64 {
	if a > saturated-b {
		return saturated
	}
	return a + b
}

func mul(a, b uint64) uint64 {
	if a != 0 && b > saturated/a {
		return saturated
	}
	return a * b
}
