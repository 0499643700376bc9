package integration

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// TestColumnExpressions holds the scripts of generated and virtual columns.
func TestColumnExpressions(t *testing.T) { runScripts(t, columnExpressionScripts) }

// generatedRows are the rows of g in GeneratedColumnsWithComparisons.
var generatedRows = tsv(
	"NULL\tNULL\t1\tNULL\tNULL\tNULL\t1\tNULL",
	"0.50\t0\t0\t0\t0\t1\t1\t1",
	"1.50\t1\t0\t1\t0\t1\t1\t0",
	"2.00\t1\t0\t1\t1\t0\t1\t0",
)

var columnExpressionScripts = []scriptTest{
	// GeneratedColumnsWithComparisons: MySQL takes any expression for a generated column (`b INT
	// AS (d > 1) STORED`) and a column default (`DEFAULT (1 > 0)`). The engine's grammar takes
	// there only an expression without a comparison (also IS, IN, BETWEEN, LIKE, NOT, AND, OR) at
	// its top, and the statement failed with 1064 "... near 'd'"; `AS ((d > 1))` parsed. The
	// server parses such a statement again with the expressions in a second pair of parentheses.
	{
		name: "GeneratedColumnsWithComparisons",
		setup: []string{
			"CREATE TABLE g (d DECIMAL(5,2), b INT AS (d > 1) STORED, n INT GENERATED ALWAYS AS (d IS NULL) STORED, " +
				"l INT AS (d BETWEEN 1 AND 2) STORED, i INT AS (d IN (1, 2)) STORED, y INT AS (d > 0 AND NOT d > 1.5) STORED, " +
				"e INT DEFAULT (1 > 0), CHECK (d < 900))",
			"INSERT INTO g (d) VALUES (0.5), (1.5), (2), (NULL)",
			"ALTER TABLE g ADD COLUMN w INT AS (d < 1) STORED",
			"CREATE TABLE gv (d INT, v INT AS (d >= 2) VIRTUAL)",
			"INSERT INTO gv (d) VALUES (1), (2)",
			"CREATE TABLE a (x INT, e INT)",
			"ALTER TABLE a ALTER COLUMN e SET DEFAULT (2 > 1)",
			"INSERT INTO a (x) VALUES (1)",
		},
		assertions: []assertion{
			{query: "SELECT * FROM g ORDER BY d", rows: generatedRows},
			{query: "SELECT * FROM gv ORDER BY d", rows: tsv("1\t0", "2\t1")},
			{query: "SELECT e FROM a", rows: column("1")},                        // DEFAULT (2 > 1)
			{query: "INSERT INTO g (d) VALUES (950)", err: 3819, state: "HY000"}, // CHECK (d < 900)
			// A statement wrong for another reason fails as written, with MySQL's syntax error.
			{query: "CREATE TABLE bad (a INT, b INT AS (a > 1) nonsense)", err: 1064},
			{query: "CREATE TABLE bad (a INT, b INT AS (a > ) STORED)", err: 1064},
		},
		// What SHOW CREATE TABLE shows creates the same table.
		then: func(t *testing.T, c *sql.Conn) {
			var name, create string
			if err := c.QueryRowContext(context.Background(), "SHOW CREATE TABLE g").Scan(&name, &create); err != nil {
				t.Fatal(err)
			}
			mustExec(t, c, strings.Replace(create, "CREATE TABLE `g`", "CREATE TABLE `g2`", 1),
				"INSERT INTO g2 (d) SELECT d FROM g")
			_, got, err := queryRows(context.Background(), c, "SELECT * FROM g2 ORDER BY d")
			if err != nil || !slices.EqualFunc(got, generatedRows, slices.Equal[[]string]) {
				t.Errorf("SELECT * FROM g2 (created from SHOW CREATE TABLE g): %v\n%s\nwant\n%s", err, showRows(got), showRows(generatedRows))
			}
		},
	},

	// VirtualColumns: a table with a VIRTUAL column answers a statement that reads some of its
	// columns, as in MySQL. The engine's rule that makes a table read only the columns a
	// statement uses left the virtual column computed from positions in the whole row: SELECT a
	// FROM t (t (a, b, v AS (a + 1) VIRTUAL)) failed with 1105 "unable to find field with index 1
	// in row of 1 columns", SELECT c FROM u (u (a, v AS (a + 1) VIRTUAL, c)) with a panic, 1105.
	// An ALTER TABLE that changes a column after a VIRTUAL column, which the engine's in-memory
	// table rewrites from the wrong stored value (MODIFY c TINYINT failed on the next column's
	// 'abc'; the last column with 1105 "slice bounds out of range"), is refused with 1235 and
	// changes nothing.
	{
		name: "VirtualColumns",
		setup: []string{
			"CREATE TABLE t (a INT, b INT, v INT AS (a + 1) VIRTUAL)",
			"INSERT INTO t (a, b) VALUES (1, 2), (5, 6)",
			"CREATE TABLE u (a INT, v INT AS (a > 1) VIRTUAL, c INT, z VARCHAR(5))",
			"INSERT INTO u (a, c, z) VALUES (1, 1000, 'abc'), (2, 20, 'x')",
		},
		assertions: []assertion{
			{query: "SELECT a FROM t ORDER BY a", rows: column("1", "5")},
			{query: "SELECT a, v FROM t WHERE b = 6", rows: tsv("5\t6")},
			{query: "SELECT v FROM t ORDER BY v", rows: column("2", "6")},
			{query: "SELECT c FROM u ORDER BY c", rows: column("20", "1000")},
			{query: "SELECT c + 0 FROM u WHERE a = 1", rows: column("1000")},
			{query: "SELECT z FROM u WHERE v = 1", rows: column("x")},
			{query: "SELECT (SELECT MAX(c) FROM u), COUNT(*) FROM t", rows: tsv("1000\t2")},
			{query: "SELECT x.c FROM (SELECT c FROM u WHERE a = 2) x", rows: column("20")},
			{query: "SELECT t.a FROM t JOIN u ON u.a = t.a", rows: column("1")},
			{query: "ALTER TABLE u MODIFY COLUMN c TINYINT", err: 1235},
			{query: "ALTER TABLE u MODIFY COLUMN c VARCHAR(20)", err: 1235},
			{query: "ALTER TABLE u CHANGE COLUMN z z2 VARCHAR(5)", err: 1235},
			{query: "ALTER TABLE u RENAME COLUMN z TO z2", err: 1235},
			{query: "ALTER TABLE u ALTER COLUMN z SET DEFAULT 'q'", err: 1235},
			{query: "ALTER TABLE u ALTER COLUMN c DROP DEFAULT", err: 1235},
			{query: "ALTER TABLE u ADD COLUMN n INT, MODIFY COLUMN c BIGINT", err: 1235},
			{query: "ALTER TABLE u MODIFY COLUMN a BIGINT"},
			{query: "ALTER TABLE u ALTER COLUMN a SET DEFAULT 3"},
			{query: "ALTER TABLE u ADD COLUMN n INT DEFAULT 7 AFTER c"},
			{query: "INSERT INTO u (c, z) VALUES (30, 'y')"},
			{query: "SELECT * FROM u ORDER BY a", rows: tsv("1\t0\t1000\t7\tabc", "2\t1\t20\t7\tx", "3\t1\t30\t7\ty")},
		},
	},

	// VirtualColumnChecks: the CHECK constraints of a table with a VIRTUAL column hold as those of
	// any table, as in MySQL: SHOW CREATE TABLE shows them, and INSERT, REPLACE, INSERT ... ON
	// DUPLICATE KEY UPDATE, INSERT ... SELECT, UPDATE (also through an alias or a join) and a
	// trigger's INSERT refuse a row that violates one with 3819, storing nothing. The engine
	// hid them behind its wrapper of such tables: SHOW CREATE TABLE left them out, the rows
	// were stored, and ALTER TABLE ... DROP CHECK failed with 1105. A STORED column's table
	// always kept its checks.
	{
		name: "VirtualColumnChecks",
		setup: []string{
			"CREATE TABLE c2 (id INT PRIMARY KEY, g INT AS (id*2) VIRTUAL, amt INT, CHECK (amt >= 0))",
			"CREATE TABLE c3 (id INT PRIMARY KEY, g INT AS (id*2) STORED, amt INT, CHECK (amt >= 0))",
			"CREATE TABLE other (id INT PRIMARY KEY, q INT)",
			"INSERT INTO other VALUES (1, 1), (2, 2)",
			"CREATE TABLE feed (id INT, amt INT)",
			"CREATE TRIGGER feed_c2 AFTER INSERT ON feed FOR EACH ROW INSERT INTO c2 (id, amt) VALUES (new.id, new.amt)",
		},
		assertions: []assertion{
			{query: "SHOW CREATE TABLE c2", contains: "CONSTRAINT `c2_chk_1` CHECK ((`amt` >= 0))"},
			{query: "SHOW CREATE TABLE c3", contains: "CONSTRAINT `c3_chk_1` CHECK ((`amt` >= 0))"},
			{query: "INSERT INTO c2 (id, amt) VALUES (1, -5)", err: 3819, state: "HY000", message: "Check constraint 'c2_chk_1' is violated."},
			{query: "INSERT INTO c3 (id, amt) VALUES (1, -5)", err: 3819, state: "HY000", message: "Check constraint 'c3_chk_1' is violated."},
			{query: "INSERT INTO c2 (id, amt) VALUES (1, 5), (2, 6)"},
			{query: "REPLACE INTO c2 (id, amt) VALUES (1, -3)", err: 3819},
			{query: "INSERT INTO c2 (id, amt) VALUES (1, 1) ON DUPLICATE KEY UPDATE amt = -9", err: 3819},
			{query: "INSERT INTO c2 (id, amt) SELECT id + 10, -q FROM other", err: 3819},
			{query: "INSERT INTO feed VALUES (20, -1)", err: 3819},
			{query: "INSERT INTO c2 (id, amt) VALUES (?, ?)", args: []any{30, -1}, err: 3819},
			{query: "UPDATE c2 SET amt = -1", err: 3819, state: "HY000", message: "Check constraint 'c2_chk_1' is violated."},
			{query: "UPDATE c2 SET amt = amt - 6 WHERE id = 1", err: 3819},
			{query: "UPDATE c2 AS x SET x.amt = -4 WHERE x.g = 2", err: 3819},
			{query: "UPDATE other JOIN c2 ON c2.id = other.id SET c2.amt = -1", err: 3819},
			{query: "UPDATE c2 SET amt = 7 WHERE id = 2"},
			{query: "SELECT * FROM c2 ORDER BY id", rows: tsv("1\t2\t5", "2\t4\t7")},
			{query: "SELECT COUNT(*) FROM feed", rows: column("0")},
			// A check added later, here on the VIRTUAL column, holds too, and is dropped.
			{query: "ALTER TABLE c2 ADD CONSTRAINT g_small CHECK (g < 2)", err: 3819, message: "Check constraint 'g_small' is violated."},
			{query: "ALTER TABLE c2 ADD CONSTRAINT g_small CHECK (g < 10)"},
			{query: "SHOW CREATE TABLE c2", contains: "CONSTRAINT `g_small` CHECK ((`g` < 10))"},
			{query: "INSERT INTO c2 (id, amt) VALUES (5, 1)", err: 3819, message: "Check constraint 'g_small' is violated."},
			{query: "UPDATE c2 SET id = 6 WHERE id = 1", err: 3819, message: "Check constraint 'g_small' is violated."},
			{query: "INSERT INTO c2 (id, amt) VALUES (3, 1)"},
			{query: "ALTER TABLE c2 DROP CHECK g_small"},
			{query: "INSERT INTO c2 (id, amt) VALUES (5, 1)"},
			{query: "ALTER TABLE c2 DROP CONSTRAINT c2_chk_1"},
			{query: "INSERT INTO c2 (id, amt) VALUES (7, -1)"},
			{query: "SELECT * FROM c2 ORDER BY id", rows: tsv("1\t2\t5", "2\t4\t7", "3\t6\t1", "5\t10\t1", "7\t14\t-1")},
		},
	},
}

// The CHECK constraints of a table with a VIRTUAL column, the one it was created with and one
// added by ALTER TABLE, hold after a restart: SHOW CREATE TABLE shows them and a violating
// INSERT or UPDATE fails with 3819.
func TestVirtualColumnChecksSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, serverOptions{dir: dir})
	mustExec(t, s.db(),
		"CREATE TABLE vc (id INT PRIMARY KEY, g INT AS (id*2) VIRTUAL, amt INT, CHECK (amt >= 0))",
		"ALTER TABLE vc ADD CONSTRAINT g_small CHECK (g < 10)",
		"INSERT INTO vc (id, amt) VALUES (1, 1)")
	s.stop()

	again := startWithConfig(t, serverOptions{dir: dir}, s.configPath, s.addr, s.adminAddr)
	db := again.db()
	create := strings.Join(queryStrings(t, db, "SHOW CREATE TABLE vc"), "\n")
	for _, want := range []string{"CONSTRAINT `vc_chk_1` CHECK ((`amt` >= 0))", "CONSTRAINT `g_small` CHECK ((`g` < 10))"} {
		if !strings.Contains(create, want) {
			t.Errorf("SHOW CREATE TABLE vc after the restart lacks %s:\n%s", want, create)
		}
	}
	for _, c := range []struct{ query, check string }{
		{"INSERT INTO vc (id, amt) VALUES (2, -5)", "vc_chk_1"},
		{"INSERT INTO vc (id, amt) VALUES (7, 5)", "g_small"},
		{"UPDATE vc SET amt = -1", "vc_chk_1"},
	} {
		_, err := db.Exec(c.query)
		if err == nil {
			t.Errorf("%s after the restart: accepted, want error 3819", c.query)
			continue
		}
		if me := mysqlError(t, err); me.Number != 3819 || !strings.Contains(me.Message, c.check) {
			t.Errorf("%s after the restart: %v, want error 3819 on %s", c.query, err, c.check)
		}
	}
	if got := strings.Join(queryStrings(t, db, "SELECT id, g, amt FROM vc"), ","); got != "1\t2\t1" {
		t.Errorf("rows after the refused statements: %q, want one row 1 2 1", got)
	}
}
