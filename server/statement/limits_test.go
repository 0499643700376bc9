package statement

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckExpressionSize(t *testing.T) {
	chain := func(term, op string, n int) string { return strings.Repeat(term+op, n) + term }
	cases := []struct {
		name, sql string
		want      string // "" when within limits, else the limit's What
	}{
		{"select 1", "SELECT 1", ""},
		{"32 additions", "SELECT " + chain("1", "+", 32), ""},
		{"33 additions", "SELECT " + chain("1", "+", 33), "arithmetic operators"},
		{"mixed arithmetic", "SELECT " + chain("a", " * ", 20) + " - " + chain("2", " DIV ", 13), "arithmetic operators"},
		{"parenthesized parts count", "SELECT " + strings.Repeat("(1+", 33) + "1" + strings.Repeat(")", 33), "arithmetic operators"},
		{"function arguments count", "SELECT " + strings.Repeat("abs(1+", 33) + "1" + strings.Repeat(")", 33), "arithmetic operators"},
		{"shifts and bits", "SELECT " + chain("1", "<<", 17) + "|" + chain("1", ">>", 16), "arithmetic operators"},
		{"show where", "SHOW VARIABLES WHERE " + chain("1", "+", 1500) + "=0", "arithmetic operators"},
		{"comparison splits arithmetic", "SELECT " + chain("1", "+", 30) + " = " + chain("1", "+", 30), ""},
		{"commas split", "SELECT " + chain("1", "+", 30) + ", " + chain("1", "+", 30), ""},
		{"statements split", "SELECT " + chain("1", "+", 30) + "; SELECT " + chain("1", "+", 30), ""},
		{"signs are not operators", "INSERT INTO t VALUES " + chain("(-1, +2, - -3)", ",", 500), ""},
		{"stars are not products", "SELECT *, t.*, COUNT(*) FROM t WHERE a = - 1", ""},
		{"json paths are not arithmetic", "SELECT " + chain("j->>'$.a'", " OR ", 40), ""},
		{"operators in strings and comments", "SELECT '" + chain("1", "+", 100) + "' /* " + chain("1", "+", 100) + " */", ""},
		{"2000 ORs", "SELECT * FROM t WHERE " + chain("a", " OR ", 2000), ""},
		{"2001 ORs", "SELECT * FROM t WHERE " + chain("a", " OR ", 2001), "operators"},
		{"two-byte operators count once", "SELECT * FROM t WHERE " + chain("a", " || ", 1000) + " && " + chain("b", "<=>", 999), ""},
		{"comparisons count", "SELECT * FROM t WHERE " + chain("a = 1", " AND ", 1001), "operators"},
		{"in list is not a chain", "SELECT 1 IN (" + chain("1", ",", 100000) + ")", ""},
		{"unbalanced", ")))" + chain("1", "+", 10) + "(((", ""},
		{"deep nesting", strings.Repeat("(", 1000) + chain("1", "+", 10), ""},
		{"200 KB", "SELECT " + chain("1", "+", 100000), "arithmetic operators"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckExpressionSize(tc.sql)
			var tce *TooComplexError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
			case !errors.As(err, &tce):
				t.Fatalf("got %v, want a TooComplexError for %s", err, tc.want)
			case tce.What != tc.want:
				t.Fatalf("got %v, want the limit on %s", err, tc.want)
			}
		})
	}
}

func TestCheckExpressionSizeDoesNotAllocate(t *testing.T) {
	sql := "SELECT a + 1, b * 2 FROM t WHERE c = 1 AND d <> 'x' OR e IN (1, 2)"
	if n := testing.AllocsPerRun(10, func() { _ = CheckExpressionSize(sql) }); n != 0 {
		t.Errorf("CheckExpressionSize allocates %v times", n)
	}
}

func BenchmarkCheckExpressionSize(b *testing.B) {
	for _, s := range benchStatements {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = CheckExpressionSize(s.sql)
			}
		})
	}
}
