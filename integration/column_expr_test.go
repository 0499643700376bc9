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
	execAll(t, db,
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
	if _, err := db.Exec("INSERT INTO g (d) VALUES (950)"); err == nil {
		t.Error("CHECK (d < 900) took 950")
	}

	// What SHOW CREATE TABLE shows creates the same table.
	var name, create string
	if err := db.QueryRow("SHOW CREATE TABLE g").Scan(&name, &create); err != nil {
		t.Fatal(err)
	}
	execAll(t, db, strings.Replace(create, "CREATE TABLE `g`", "CREATE TABLE `g2`", 1),
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
