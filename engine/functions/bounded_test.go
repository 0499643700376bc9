package functions

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

func TestBoundedFunctionSizes(t *testing.T) {
	ctx := sql.NewEmptyContext()
	for _, tc := range []struct {
		function string
		args     []any
		want     uint64
	}{
		{"repeat", []any{"ab", int64(3)}, 6},
		{"repeat", []any{"ab", int64(-3)}, 0},
		{"repeat", []any{"ab", nil}, 0},
		{"repeat", []any{"ab", "1e9"}, 2}, // the engine reads text up to its first non-digit
		{"repeat", []any{"ab", "12abc"}, 24},
		{"repeat", []any{"abc", float64(1e9)}, 3_000_000_000},
		{"repeat", []any{"x", int64(1) << 62}, 1 << 62},
		{"repeat", []any{"xxxxxxxx", int64(1) << 62}, saturated},
		{"space", []any{int64(10)}, 10},
		{"lpad", []any{"x", int64(10), "y"}, 10},
		{"lpad", []any{"x", int64(10), "é"}, 40},
		{"rpad", []any{"é", int64(10), "y"}, 40},
		{"concat", []any{"ab", nil, "cde", int64(7)}, 2 + 3 + 64},
		{"concat_ws", []any{",,", "a", "b", "c"}, 3 + 4},
		{"concat_ws", []any{",", "a"}, 1},
		{"replace", []any{"banana", "a", "oo"}, 6 + 3},
		{"replace", []any{"banana", "an", "a"}, 6},
		{"replace", []any{"banana", "", "xyz"}, 6},
		{"to_base64", []any{"abc"}, 6},
		{"hex", []any{"abc"}, 6},
		{"json_array", []any{"ab", "c"}, 6},
		{"json_object", []any{"k", "v"}, 4},
		{"json_quote", []any{"ab"}, 14},
		{"json_arrayagg", []any{"ab"}, 6},
		{"json_objectagg", []any{"k", "v"}, 8},
		{"json_set", []any{`{"a":1}`, "$.b", "xy"}, 7 + 2*5},
		{"json_merge_preserve", []any{"[1]", "[2]"}, 6 + 4},
		{"json_pretty", []any{`[[1],{"a":"[[[["}]`}, 18 * (2 + 2*2)},
		{"json_pretty", []any{`"[\"[["`}, 7 * 2},
	} {
		bound, ok := boundedFunctions[tc.function]
		if !ok {
			bound = boundedAggregates[tc.function]
		}
		if got := bound(ctx, tc.args); got != tc.want {
			t.Errorf("%s%v: bound %d, want %d", tc.function, tc.args, got, tc.want)
		}
	}
}
