package statement

import "testing"

func TestParenthesizeColumnExpressions(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CREATE TABLE g (d INT, b INT AS (d > 1) STORED)", "CREATE TABLE g (d INT, b INT AS ((d > 1)) STORED)"},
		{"create table g (d int, b int generated always as (d in (1, f(2))) virtual, e int default (1 > 0))",
			"create table g (d int, b int generated always as ((d in (1, f(2)))) virtual, e int default ((1 > 0)))"},
		{"ALTER TABLE g ADD COLUMN w INT AS (d >= 1) STORED, ALTER COLUMN e SET DEFAULT (2 < 1)",
			"ALTER TABLE g ADD COLUMN w INT AS ((d >= 1)) STORED, ALTER COLUMN e SET DEFAULT ((2 < 1))"},
		{"CREATE TABLE g (b INT AS ((d) > 1)); CREATE TABLE h (c INT AS (x = 1))",
			"CREATE TABLE g (b INT AS (((d) > 1))); CREATE TABLE h (c INT AS ((x = 1)))"},
		// Queries, other statements, strings and comments stay as written.
		{"CREATE TABLE t AS (SELECT 1 AS a)", "CREATE TABLE t AS (SELECT 1 AS a)"},
		{"CREATE VIEW v AS (WITH c AS (SELECT 1) SELECT * FROM c)", "CREATE VIEW v AS (WITH c AS (SELECT 1) SELECT * FROM c)"},
		{"SELECT CAST(1 AS SIGNED), 'AS (' FROM t", "SELECT CAST(1 AS SIGNED), 'AS (' FROM t"},
		{"CREATE TABLE g (b INT /* AS (d > 1) */ AS 'x (')", "CREATE TABLE g (b INT /* AS (d > 1) */ AS 'x (')"},
		{"CREATE TABLE g (d INT, CHECK (d > 1))", "CREATE TABLE g (d INT, CHECK (d > 1))"},
		{"SELECT 1; CREATE TABLE g (b INT AS (d > 1", "SELECT 1; CREATE TABLE g (b INT AS ((d > 1"},
	} {
		if got := ParenthesizeColumnExpressions(c.in); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	same := "SELECT a FROM t"
	if got := ParenthesizeColumnExpressions(same); got != same {
		t.Errorf("%s: %s", same, got)
	}
}
