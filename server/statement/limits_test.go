package statement

import (
	"errors"
	"fmt"
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
		{"signs count per list item", "INSERT INTO t VALUES " + chain("(-1, +2, - -3)", ",", 500), ""},
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
		{"deep nesting hides nothing", "SELECT " + strings.Repeat("1+1+(", 100) + "1" + strings.Repeat(")", 100), "arithmetic operators"},
		{"deep nesting then a sibling", strings.Repeat("(", 100) + chain("1", "+", 20) + strings.Repeat(")", 100) + "+" + chain("1", "+", 20), "arithmetic operators"},
		{"200 KB", "SELECT " + chain("1", "+", 100000), "arithmetic operators"},
		{"2000 NOTs", "SELECT " + strings.Repeat("NOT ", 2000) + "1", ""},
		{"2001 NOTs", "SELECT " + strings.Repeat("NOT ", 2001) + "1", "operators"},
		{"bangs", "SELECT " + strings.Repeat("!", 2001) + "1", "operators"},
		{"IS chain", "SELECT 1" + strings.Repeat(" IS TRUE", 2001), "operators"},
		{"nested CASE", "SELECT " + strings.Repeat("CASE WHEN 1 THEN ", 2001) + "1" + strings.Repeat(" END", 2001), "operators"},
		{"CASE branches are not a chain", "SELECT CASE " + strings.Repeat("WHEN 1 THEN 1 ", 5000) + "END", ""},
		{"signs", "SELECT " + strings.Repeat("- ", 2001) + "1", "operators"},
		{"BINARY", "SELECT " + strings.Repeat("BINARY ", 2001) + "'a'", "operators"},
		// The engine's parser reads the SQL in version comments.
		{"in a version comment", "SELECT /*! " + chain("1", "+", 33) + " */", "arithmetic operators"},
		{"in a nested version comment", "SELECT /*!50000 /*!80000 " + chain("1", "+", 33) + " */", "arithmetic operators"},
		{"after a version comment", "SELECT /*!50000 " + chain("1", "+", 20) + " */ + " + chain("1", "+", 12), "arithmetic operators"},
		{"a version comment's end is no operator", "SELECT /*!50000 " + chain("1", "+", 31) + " */ + 1", ""},
		{"unterminated version comment", "SELECT /*! " + chain("1", "+", 33), "arithmetic operators"},
		{"empty version comment", "SELECT 1 /*!*/ /*!50000*/", ""},
		{"nested version comments, unterminated", strings.Repeat("/*!", 400_000), ""},
		{"nested version comments", strings.Repeat("/*!", 400_000) + "1 */", ""},
		{"nested version comments and line comments", strings.Repeat("/*! #\n", 200_000) + "1 */", ""},
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

// FuzzCheckExpressionSize checks that any text is read without a panic, and that a text the
// check accepts stays accepted with a comment appended (comments hold no operators).
func FuzzCheckExpressionSize(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "SELECT " + strings.Repeat("1+", 40) + "1", "SELECT a->>'$.x' - -1, b<=>c, d<<2",
		"SHOW VARIABLES WHERE (1+(2*3)) = 0", "))) + ((( ", "SELECT '", "SELECT 1 /* + */ + 2 -- +\n",
		"x'1F' | b'01' & 0x1F ^ .5e-3 % :v ? @a @@b.c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		err := CheckExpressionSize(sql)
		if err == nil && CheckExpressionSize(sql+"\n/* + - * */") != nil {
			t.Fatalf("a trailing comment changed the verdict on %q", sql)
		}
	})
}

func TestCheckSubqueryNesting(t *testing.T) {
	chain := func(n int, open, inner, close string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	big := "1 IN (" + strings.Repeat("1,", 5000) + "1)" // 10 KB
	cases := []struct {
		name, sql string
		want      string // "" when within limits, "depth" or "select lists"
	}{
		{"select list, 9 deep", "SELECT " + chain(9, "(SELECT ", "1", ")"), ""},
		{"select list, 10 deep", "SELECT " + chain(10, "(SELECT ", "1", ")"), "select lists"},
		{"select list, 30 deep", "SELECT " + chain(30, "(SELECT ", "1", ")"), "depth"},
		{"aliased", "SELECT " + chain(10, "(SELECT ", "1", ") AS a"), "select lists"},
		{"through functions", "SELECT " + chain(10, "abs((SELECT ", "1", "))"), "select lists"},
		{"through FROM inside a function", "SELECT " + chain(10, "EXTRACT(YEAR FROM (SELECT ", "NOW()", "))"), "select lists"},
		{"10 KB, 5 deep", "SELECT " + chain(5, "(SELECT ", big, ")"), ""},
		{"10 KB, 6 deep", "SELECT " + chain(6, "(SELECT ", big, ")"), "select lists"},
		{"600 KB in one", "SELECT (SELECT 1 IN (" + strings.Repeat("1,", 300000) + "1))", ""},
		{"1 MB in one", "SELECT (SELECT 1 IN (" + strings.Repeat("1,", 500000) + "1))", "select lists"},
		{"1 MB outside", "SELECT 1 IN (" + strings.Repeat("1,", 500000) + "1)", ""},
		{"where, 16 deep", "SELECT 1 " + chain(16, "WHERE 1 = (SELECT 1 ", "", ")"), ""},
		{"where, 17 deep", "SELECT 1 " + chain(17, "WHERE 1 = (SELECT 1 ", "", ")"), "depth"},
		{"where, 10 KB, 16 deep", "SELECT 1 " + chain(16, "WHERE 1 = (SELECT 1 ", "WHERE "+big, ")"), ""},
		{"derived tables, 16 deep", "SELECT * FROM " + chain(16, "(SELECT * FROM ", "(SELECT 1) t", ") t"), "depth"},
		{"derived tables, 15 deep", "SELECT * FROM " + chain(15, "(SELECT * FROM ", "(SELECT 1) t", ") t"), ""},
		{"derived tables with scalar subqueries", "SELECT * FROM " + chain(7, "(SELECT (SELECT 1) a, t.* FROM ", "(SELECT 1 b) t", ") t"), ""},
		{"select list and where alternate", "SELECT " + chain(8, "(SELECT 1 WHERE 1 = (SELECT ", "1", "))"), ""},
		{"ctes", chain(16, "WITH c AS (", "SELECT 1 AS a", ") SELECT * FROM c"), ""},
		{"after a union", "SELECT 1 UNION SELECT " + chain(10, "(SELECT ", "1", ")"), "select lists"},
		{"statements split", "SELECT " + chain(9, "(SELECT ", "1", ")") + "; SELECT " + chain(9, "(SELECT ", "1", ")"), ""},
		{"insert select", "INSERT INTO t SELECT " + chain(10, "(SELECT ", "1", ")"), "select lists"},
		{"beyond the tracked parentheses", "SELECT " + strings.Repeat("(", 70) + "(SELECT 1)" + strings.Repeat(")", 70), "depth"},
		{"in strings", "SELECT '" + chain(30, "(SELECT ", "1", ")") + "'", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckExpressionSize(tc.sql)
			var tde *TooDeepError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
			case !errors.As(err, &tde):
				t.Fatalf("got %v, want a TooDeepError (%s)", err, tc.want)
			case tde.SelectLists != (tc.want == "select lists"):
				t.Fatalf("got %v, want the limit on %s", err, tc.want)
			}
		})
	}
}

func TestCheckCTEExpansion(t *testing.T) {
	// doubling(n) is a chain of n CTEs, each joining the one before it to itself.
	doubling := func(n int, ref string) string {
		q := "WITH c0 AS (SELECT a FROM t)"
		for i := 1; i <= n; i++ {
			r := fmt.Sprintf(ref, i-1)
			q += fmt.Sprintf(", c%d AS (SELECT x.a FROM %s x, %s y WHERE x.a = y.a)", i, r, r)
		}
		return q + fmt.Sprintf(" SELECT * FROM c%d", n)
	}
	big := "SELECT a FROM t WHERE a IN (" + strings.Repeat("1,", 500_000) + "1)" // 1 MB
	cases := []struct {
		name, sql string
		refused   bool
	}{
		{"doubling, 11", doubling(11, "c%d"), false},
		{"doubling, 12", doubling(12, "c%d"), true},
		{"doubling, upper case", doubling(12, "C%d"), true},
		{"doubling, backquoted", doubling(12, "`c%d`"), true},
		{"doubling, with column lists", strings.ReplaceAll(doubling(12, "c%d"), " AS (SELECT", " (a) AS (SELECT"), true},
		{"doubling, recursive", strings.Replace(doubling(12, "c%d"), "WITH", "WITH RECURSIVE", 1), true},
		{"doubling in a derived table", "SELECT * FROM (" + doubling(12, "c%d") + ") d", true},
		{"doubling in a version comment", "/*!80000 " + doubling(12, "c%d") + " */", true},
		{"statements split", doubling(11, "c%d") + "; " + doubling(11, "c%d"), false},
		{"one CTE, 60 references", "WITH c AS (SELECT a FROM t) SELECT * FROM " + strings.Repeat("c, ", 59) + "c", false},
		{"1 MB CTE, one reference", "WITH c AS (" + big + ") SELECT c.a, c.b, c.c FROM c WHERE c.a = 1", false},
		{"1 MB CTE, three references", "WITH c AS (" + big + ") SELECT * FROM c x, c y, c z", false},
		{"1 MB CTE, four references", "WITH c AS (" + big + ") SELECT * FROM c w, c x, c y, c z", true},
		{"qualified names are no references", "WITH c AS (" + big + ") SELECT * FROM c, main.c, c.c", false},
		{"strings are no references", "WITH c AS (" + big + ") SELECT 'c', 'c', 'c' FROM c", false},
		{"recursion is no reference", "WITH RECURSIVE r AS (" + big + " UNION ALL SELECT a + 1 FROM r, r, r WHERE a < 9) SELECT * FROM r", false},
		{"an inner CTE of the same name", "WITH c AS (" + big + ") SELECT * FROM (WITH c AS (SELECT * FROM c, c, c, c) SELECT * FROM c) d", true},
		{"WITH ROLLUP", "SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckExpressionSize(tc.sql)
			var tme *TooManyCTEReferencesError
			switch {
			case !tc.refused && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused && !errors.As(err, &tme):
				t.Fatalf("got %v, want a TooManyCTEReferencesError", err)
			}
		})
	}
}

func TestCheckAlterClauses(t *testing.T) {
	clauses := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "ADD COLUMN c" + strings.Repeat("x", i%3) + " INT"
		}
		return strings.Join(parts, ", ")
	}
	for _, c := range []struct {
		name, sql string
		refused   bool
	}{
		{"1024 clauses", "ALTER TABLE t " + clauses(1024), false},
		{"1025 clauses", "ALTER TABLE t " + clauses(1025), true},
		{"lower case, after a comment", "/* c */ alter table t " + clauses(1025), true},
		{"commas in parentheses", "ALTER TABLE t ADD INDEX k (" + strings.Repeat("a, ", 2000) + "b)", false},
		{"a select list", "SELECT " + strings.Repeat("1, ", 2000) + "1", false},
		{"the statement after", "SELECT 1; ALTER TABLE t " + clauses(1025), true},
		{"the statement before", "ALTER TABLE t ADD COLUMN a INT; SELECT " + strings.Repeat("1, ", 2000) + "1", false},
		{"insert values", "INSERT INTO t VALUES " + strings.Repeat("(1), ", 2000) + "(1)", false},
	} {
		err := CheckExpressionSize(c.sql)
		var tmc *TooManyClausesError
		if got := errors.As(err, &tmc); got != c.refused {
			t.Errorf("%s: %v, want refused %v", c.name, err, c.refused)
		}
	}
}
