package integration

import (
	"slices"
	"strings"
	"testing"
)

// TestGeneratedColumnsWithComparisons: MySQL takes any expression for a generated column (`b INT
// AS (d > 1) STORED`) and a column default (`DEFAULT (1 > 0)`). The engine's grammar takes there
// only an expression without a comparison (also IS, IN, BETWEEN, LIKE, NOT, AND, OR) at its top,
// and the statement failed with 1064 "... near 'd'"; `AS ((d > 1))` parsed. The server parses
// such a statement again with the expressions in a second pair of parentheses.
func TestGeneratedColumnsWithComparisons(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db,
		"CREATE TABLE g (d DECIMAL(5,2), b INT AS (d > 1) STORED, n INT GENERATED ALWAYS AS (d IS NULL) STORED, "+
			"l INT AS (d BETWEEN 1 AND 2) STORED, i INT AS (d IN (1, 2)) STORED, y INT AS (d > 0 AND NOT d > 1.5) STORED, "+
			"e INT DEFAULT (1 > 0), CHECK (d < 900))",
		"INSERT INTO g (d) VALUES (0.5), (1.5), (2), (NULL)",
		"ALTER TABLE g ADD COLUMN w INT AS (d < 1) STORED",
		"CREATE TABLE gv (d INT, v INT AS (d >= 2) VIRTUAL)",
		"INSERT INTO gv (d) VALUES (1), (2)",
		"CREATE TABLE a (x INT, e INT)",
		"ALTER TABLE a ALTER COLUMN e SET DEFAULT (2 > 1)",
		"INSERT INTO a (x) VALUES (1)",
	)
	want := []string{
		"NULL\tNULL\t1\tNULL\tNULL\tNULL\t1\tNULL",
		"0.50\t0\t0\t0\t0\t1\t1\t1",
		"1.50\t1\t0\t1\t0\t1\t1\t0",
		"2.00\t1\t0\t1\t1\t0\t1\t0",
	}
	if got := queryStrings(t, db, "SELECT * FROM g ORDER BY d"); !slices.Equal(got, want) {
		t.Errorf("SELECT * FROM g:\n%q\nwant\n%q", got, want)
	}
	if got := queryStrings(t, db, "SELECT * FROM gv ORDER BY d"); !slices.Equal(got, []string{"1\t0", "2\t1"}) {
		t.Errorf("SELECT * FROM gv: %q, want [1 0, 2 1]", got)
	}
	if got := oneValue(t, db, "SELECT e FROM a"); got != "1" {
		t.Errorf("a.e = %s, want 1 (DEFAULT (2 > 1))", got)
	}
	wantError(t, db, "INSERT INTO g (d) VALUES (950)", 3819, "HY000") // CHECK (d < 900)

	// What SHOW CREATE TABLE shows creates the same table.
	var name, create string
	if err := db.QueryRow("SHOW CREATE TABLE g").Scan(&name, &create); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, strings.Replace(create, "CREATE TABLE `g`", "CREATE TABLE `g2`", 1),
		"INSERT INTO g2 (d) SELECT d FROM g")
	if got := queryStrings(t, db, "SELECT * FROM g2 ORDER BY d"); !slices.Equal(got, want) {
		t.Errorf("SELECT * FROM g2 (created from SHOW CREATE TABLE g):\n%q\nwant\n%q", got, want)
	}

	// A statement wrong for another reason fails as written, with MySQL's syntax error.
	for _, q := range []string{
		"CREATE TABLE bad (a INT, b INT AS (a > 1) nonsense)",
		"CREATE TABLE bad (a INT, b INT AS (a > ) STORED)",
	} {
		_, err := db.Exec(q)
		if err == nil {
			t.Errorf("%s succeeded", q)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1064 {
			t.Errorf("%s: %d %s, want 1064", q, me.Number, me.Message)
		}
	}
}

// TestVirtualColumns: a table with a VIRTUAL column answers a statement that reads some of its
// columns, as in MySQL. The engine's rule that makes a table read only the columns a statement
// uses left the virtual column computed from positions in the whole row: SELECT a FROM t (t (a,
// b, v AS (a + 1) VIRTUAL)) failed with 1105 "unable to find field with index 1 in row of 1
// columns", SELECT c FROM u (u (a, v AS (a + 1) VIRTUAL, c)) with a panic, 1105. An ALTER TABLE
// that changes a column after a VIRTUAL column, which the engine's in-memory table rewrites from
// the wrong stored value (MODIFY c TINYINT failed on the next column's 'abc'; the last column
// with 1105 "slice bounds out of range"), is refused with 1235 and changes nothing.
func TestVirtualColumns(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db,
		"CREATE TABLE t (a INT, b INT, v INT AS (a + 1) VIRTUAL)",
		"INSERT INTO t (a, b) VALUES (1, 2), (5, 6)",
		"CREATE TABLE u (a INT, v INT AS (a > 1) VIRTUAL, c INT, z VARCHAR(5))",
		"INSERT INTO u (a, c, z) VALUES (1, 1000, 'abc'), (2, 20, 'x')")
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"SELECT a FROM t ORDER BY a", []string{"1", "5"}},
		{"SELECT a, v FROM t WHERE b = 6", []string{"5\t6"}},
		{"SELECT v FROM t ORDER BY v", []string{"2", "6"}},
		{"SELECT c FROM u ORDER BY c", []string{"20", "1000"}},
		{"SELECT c + 0 FROM u WHERE a = 1", []string{"1000"}},
		{"SELECT z FROM u WHERE v = 1", []string{"x"}},
		{"SELECT (SELECT MAX(c) FROM u), COUNT(*) FROM t", []string{"1000\t2"}},
		{"SELECT x.c FROM (SELECT c FROM u WHERE a = 2) x", []string{"20"}},
		{"SELECT t.a FROM t JOIN u ON u.a = t.a", []string{"1"}},
	} {
		if got := queryStrings(t, db, c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.query, got, c.want)
		}
	}

	for _, q := range []string{
		"ALTER TABLE u MODIFY COLUMN c TINYINT",
		"ALTER TABLE u MODIFY COLUMN c VARCHAR(20)",
		"ALTER TABLE u CHANGE COLUMN z z2 VARCHAR(5)",
		"ALTER TABLE u RENAME COLUMN z TO z2",
		"ALTER TABLE u ALTER COLUMN z SET DEFAULT 'q'",
		"ALTER TABLE u ALTER COLUMN c DROP DEFAULT",
		"ALTER TABLE u ADD COLUMN n INT, MODIFY COLUMN c BIGINT",
	} {
		_, err := db.Exec(q)
		if err == nil {
			t.Errorf("%s succeeded, want 1235", q)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1235 {
			t.Errorf("%s: %d %s, want 1235", q, me.Number, me.Message)
		}
	}
	mustExec(t, db,
		"ALTER TABLE u MODIFY COLUMN a BIGINT",
		"ALTER TABLE u ALTER COLUMN a SET DEFAULT 3",
		"ALTER TABLE u ADD COLUMN n INT DEFAULT 7 AFTER c",
		"INSERT INTO u (c, z) VALUES (30, 'y')")
	want := []string{"1\t0\t1000\t7\tabc", "2\t1\t20\t7\tx", "3\t1\t30\t7\ty"}
	if got := queryStrings(t, db, "SELECT * FROM u ORDER BY a"); !slices.Equal(got, want) {
		t.Errorf("SELECT * FROM u: %q, want %q", got, want)
	}
}
