package integration

import (
	"slices"
	"testing"
)

// TestUnionRepeatingAColumn: a set operation of three SELECTs or more whose first SELECT (or the
// first SELECT of any nested part, such as the second half of a chain the server balances)
// names one column twice without alias failed with 1105 "internal error: runtime error: index
// out of range [1] with length 1" in the engine's planner; MySQL returns the rows, the columns
// named as written.
func TestUnionRepeatingAColumn(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db,
		"CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (1, 2), (3, 4)",
		"CREATE TABLE u (a INT, c INT)", "INSERT INTO u VALUES (5, 6)")
	const three = "SELECT a, a FROM t UNION SELECT a, a FROM t UNION SELECT a, a FROM t"
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"SELECT a, a FROM t UNION SELECT a, a FROM t", []string{"1\t1", "3\t3"}},
		{"SELECT 1, 1 UNION SELECT 2, 2 UNION SELECT 3, 3", []string{"1\t1", "2\t2", "3\t3"}},
		{three, []string{"1\t1", "3\t3"}},
		{three + " ORDER BY 1 DESC", []string{"3\t3", "1\t1"}},
		{three + " ORDER BY a DESC LIMIT 1", []string{"3\t3"}},
		{"SELECT a, a FROM t UNION ALL SELECT a, a FROM t UNION ALL SELECT a, a FROM u ORDER BY 1",
			[]string{"1\t1", "1\t1", "3\t3", "3\t3", "5\t5"}},
		{"SELECT DISTINCT a, a FROM t UNION ALL SELECT DISTINCT a, a FROM u UNION ALL SELECT a, a FROM u ORDER BY 1",
			[]string{"1\t1", "3\t3", "5\t5", "5\t5"}},
		{"(SELECT a, a FROM t UNION SELECT a, a FROM t) UNION SELECT a, a FROM u ORDER BY 1", []string{"1\t1", "3\t3", "5\t5"}},
		{"SELECT a, a FROM u UNION (SELECT a, a FROM t UNION SELECT a, a FROM t) ORDER BY 1", []string{"1\t1", "3\t3", "5\t5"}},
		{"SELECT a, a + 0 FROM t UNION SELECT a, a FROM t UNION SELECT a, c FROM u ORDER BY 1", []string{"1\t1", "3\t3", "5\t6"}},
		{"SELECT t.a, a FROM t UNION ALL SELECT a, A FROM u UNION ALL SELECT a, t.a FROM t ORDER BY 1",
			[]string{"1\t1", "1\t1", "3\t3", "3\t3", "5\t5"}},
		{"SELECT *, a FROM t UNION SELECT *, a FROM t UNION SELECT a, c, a FROM u ORDER BY 1",
			[]string{"1\t2\t1", "3\t4\t3", "5\t6\t5"}},
		{"SELECT a, a FROM t INTERSECT SELECT a, a FROM t INTERSECT SELECT a, a FROM t ORDER BY 1", []string{"1\t1", "3\t3"}},
		{"SELECT a, a FROM t EXCEPT SELECT a, a FROM u EXCEPT SELECT a, a FROM u ORDER BY 1", []string{"1\t1", "3\t3"}},
		{"SELECT a, a FROM t UNION SELECT a, a FROM u EXCEPT SELECT a, a FROM u ORDER BY 1", []string{"1\t1", "3\t3"}},
		{"SELECT COUNT(*) FROM (SELECT a, a AS x FROM t UNION ALL SELECT a, a FROM t UNION ALL SELECT a, a FROM t) d", []string{"6"}},
		{"SELECT a FROM t WHERE (a, a) IN (" + three + ") ORDER BY a", []string{"1", "3"}},
		{"WITH c AS (SELECT a, a AS x FROM t UNION SELECT a, a FROM t UNION SELECT a, a FROM t) SELECT * FROM c ORDER BY a", []string{"1\t1", "3\t3"}},
	} {
		if got := queryStrings(t, db, c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.query, got, c.want)
		}
	}

	rows, err := db.Query(three)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if !slices.Equal(cols, []string{"a", "a"}) {
		t.Errorf("%s names its columns %q, want [a a]", three, cols)
	}

	// A view keeps the statement's text: it is read again with each use.
	mustExec(t, db, "CREATE VIEW vu AS SELECT a, a AS x FROM t UNION ALL SELECT a, a FROM t UNION ALL SELECT a, a FROM u")
	if got := queryStrings(t, db, "SELECT x FROM vu ORDER BY x"); !slices.Equal(got, []string{"1", "1", "3", "3", "5"}) {
		t.Errorf("SELECT x FROM vu: %q, want [1 1 3 3 5]", got)
	}
}

// TestDerivedTablesNameTheirColumnsOnce: MySQL refuses a derived table, a common table
// expression or a view whose columns do not have distinct names with 1060 (42S21) "Duplicate
// column name 'a'". The engine took them: SELECT * FROM (SELECT a, a FROM t UNION ...) d
// returned two columns a, a view made so was created and reading its column failed with 1105
// (ambiguous column name).
func TestDerivedTablesNameTheirColumnsOnce(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (1, 2), (3, 4)")
	for _, c := range []struct{ query, dup string }{
		{"SELECT * FROM (SELECT a, a FROM t) d", "a"},
		{"SELECT * FROM (SELECT a, a FROM t UNION SELECT a, a FROM t) d", "a"},
		{"SELECT COUNT(*) FROM (SELECT a, A FROM t) d", "A"},
		{"SELECT * FROM (SELECT 1, 1) d", "1"},
		{"SELECT * FROM (SELECT * FROM t x JOIN t y ON x.a = y.a) d", "a"},
		{"WITH c AS (SELECT a, a FROM t) SELECT * FROM c", "a"},
		{"WITH RECURSIVE r AS (SELECT 1, 1 UNION ALL SELECT 2, 2) SELECT * FROM r", "1"},
		{"SELECT (SELECT COUNT(*) FROM (SELECT a, a FROM t) d)", "a"},
		{"CREATE VIEW v AS SELECT a, a FROM t UNION SELECT a, a FROM t", "a"},
		{"CREATE VIEW v (x, x) AS SELECT 1, 2", "x"},
		{"INSERT INTO t SELECT * FROM (SELECT 5, 5) d", "5"},
	} {
		_, err := db.Exec(c.query)
		if err == nil {
			t.Errorf("%s succeeded, want 1060", c.query)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1060 || string(me.SQLState[:]) != "42S21" ||
			me.Message != "Duplicate column name '"+c.dup+"'" {
			t.Errorf("%s: %d (%s) %s, want 1060 (42S21) Duplicate column name '%s'", c.query, me.Number, string(me.SQLState[:]), me.Message, c.dup)
		}
	}
	mustExec(t, db, "CREATE VIEW w (x, y) AS SELECT a, a FROM t UNION SELECT a, a FROM t")
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"SELECT * FROM (SELECT a, a AS x FROM t) d ORDER BY a", []string{"1\t1", "3\t3"}},
		{"SELECT y FROM (SELECT a, a FROM t) d (x, y) ORDER BY y", []string{"1", "3"}},
		{"WITH c (x, y) AS (SELECT a, a FROM t) SELECT y FROM c ORDER BY y", []string{"1", "3"}},
		{"SELECT y FROM w ORDER BY y", []string{"1", "3"}},
		{"SELECT a, a FROM t ORDER BY a", []string{"1\t1", "3\t3"}},
	} {
		if got := queryStrings(t, db, c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.query, got, c.want)
		}
	}
}
