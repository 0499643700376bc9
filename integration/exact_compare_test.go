package integration

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// TestNumericComparisonsAreExact: MySQL compares numbers by their exact values. The engine
// compared a DECIMAL with another number in the DECIMAL's type, rounding the other one first,
// and an index lookup converted its key to the column's type, clamping it: with d DECIMAL(8,2)
// holding 1.50, `d = 1.499` was true (so DELETE ... WHERE d = 1.499 deleted that row); with an
// index on t TINYINT, `t = 300` found the row holding 127; on u BIGINT UNSIGNED, `u > -1` found
// nothing. Each comparison runs on a table with indexes and on one without, as text, through a
// server-side prepared statement, in subqueries, a view and CHECK constraints (`CHECK (d >
// 1.499)` refused 1.50), and as the WHERE of a DELETE and an UPDATE.
func TestNumericComparisonsAreExact(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	indexedAndPlain(t, db, "xi", "xn", "id INT PRIMARY KEY, t TINYINT, u BIGINT UNSIGNED, d DECIMAL(8,2)", ", KEY (t), KEY (u), KEY (d)", "(1, 127, 5, 1.50), (2, -128, 0, 1.49), (3, 5, 18446744073709551615, 2.00)")
	mustExec(t, db, "CREATE TABLE xp (t TINYINT PRIMARY KEY)", "INSERT INTO xp VALUES (127), (5)")
	conn := session(t, db)
	wantIDs(t, db, []whereCase{
		{"t = 300", nil},
		{"300 = t", nil},
		{"t >= 300", nil},
		{"t < 300", []string{"1", "2", "3"}},
		{"t IN (300, 5)", []string{"3"}},
		{"t = 5.5", nil},
		{"t = 5.0", []string{"3"}},
		{"u > -1", []string{"1", "2", "3"}},
		{"u = -1", nil},
		{"u <> -1", []string{"1", "2", "3"}},
		{"u BETWEEN -5 AND 10", []string{"1", "2"}},
		{"d = 1.499", nil},
		{"d > 1.499", []string{"1", "3"}},
		{"1.499 < d", []string{"1", "3"}},
		{"d <= 1.499", []string{"2"}},
		{"d BETWEEN 1.495 AND 1.499", nil},
		{"d = 1.5", []string{"1"}},
		{"d >= 1.50", []string{"1", "3"}},
		{"d < 100.001", []string{"1", "2", "3"}},
		{"d = '1.499'", nil},
		{"d > 1.499e0", []string{"1", "3"}},
	}, "xi", "xn")
	// Inside subqueries, unions, derived tables and views too.
	mustExec(t, db, "CREATE VIEW xv AS SELECT id FROM xn WHERE d = 1.499")
	for _, q := range []string{
		"SELECT id FROM xn WHERE id IN (SELECT id FROM xi WHERE d = 1.499)",
		"SELECT id FROM xn WHERE EXISTS (SELECT 1 FROM xi WHERE xi.d = 1.499)",
		"SELECT id FROM (SELECT id FROM xn WHERE d = 1.499 UNION SELECT id FROM xi WHERE t = 300) x",
		"SELECT id FROM xv",
		"SELECT (SELECT id FROM xn WHERE d = 1.499)",
	} {
		if got := queryStrings(t, db, q); len(got) != 0 && !(len(got) == 1 && got[0] == "NULL") {
			t.Errorf("%s: %q, want nothing", q, got)
		}
	}
	for _, where := range []string{"t = 300", "t >= 300"} {
		if got := queryStrings(t, db, "SELECT t FROM xp WHERE "+where); len(got) != 0 {
			t.Errorf("primary key, %s: %q, want nothing", where, got)
		}
	}
	// Server-side prepared statements: go-sql-driver sends a float64 as a DOUBLE parameter, a
	// string as text.
	for _, arg := range []any{1.499, "1.499"} {
		var n int
		if err := conn.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM xi WHERE d = ?", arg).Scan(&n); err != nil || n != 0 {
			t.Errorf("d = ? with %T 1.499: %d rows (%v), want 0", arg, n, err)
		}
	}
	mustExec(t, db, "DELETE FROM xi WHERE d = 1.499", "UPDATE xi SET t = 0 WHERE t = 300", "UPDATE xi SET t = 1 WHERE u = -1")
	if got := queryStrings(t, db, "SELECT id, t FROM xi ORDER BY id"); !slices.Equal(got, []string{"1\t127", "2\t-128", "3\t5"}) {
		t.Errorf("after DELETE and UPDATEs whose WHERE matches nothing: %q", got)
	}
	// CHECK constraints, made with the table or added later.
	mustExec(t, db, "CREATE TABLE xc (id INT PRIMARY KEY, d DECIMAL(8,2), CHECK (d > 1.499))",
		"ALTER TABLE xc ADD CONSTRAINT below CHECK (d < 2.001)", "INSERT INTO xc VALUES (1, 1.50), (2, 2.00)")
	for _, bad := range []string{"INSERT INTO xc VALUES (3, 1.49)", "INSERT INTO xc VALUES (4, 2.01)"} {
		wantError(t, db, bad, 3819, "HY000") // the CHECK refuses it
	}
	// A comparison the engine gets right keeps its index lookup.
	if plan := queryStrings(t, db, "EXPLAIN PLAN SELECT id FROM xi WHERE d > 1.49"); !slices.ContainsFunc(plan, func(line string) bool { return strings.Contains(line, "IndexedTableAccess") }) {
		t.Errorf("EXPLAIN PLAN of d > 1.49 uses no index: %q", plan)
	}
}

// TestExactComparisonsInRoutines: the statements of stored procedures and triggers compare
// numbers exactly too. The engine parses a routine's body again with its process-wide parser,
// not the server's, so in a procedure `d = 1.499` was true for a DECIMAL(8,2) holding 1.50 (its
// DELETE deleted the row) and a trigger's IF took the wrong branch; a procedure's `PREPARE S ...;
// EXECUTE s` failed with 1243, though prepared names are case-insensitive.
func TestExactComparisonsInRoutines(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE rd (id INT PRIMARY KEY, d DECIMAL(8,2))", "INSERT INTO rd VALUES (1, 1.50)",
		"CREATE TABLE rlog (what VARCHAR(20), n INT)",
		`CREATE PROCEDURE rcheck() BEGIN
			DECLARE loops INT DEFAULT 0;
			INSERT INTO rlog SELECT 'select', COUNT(*) FROM rd WHERE d = 1.499;
			IF (SELECT d FROM rd WHERE id = 1) = 1.499 THEN INSERT INTO rlog VALUES ('if', 1);
			ELSE INSERT INTO rlog VALUES ('if', 0); END IF;
			WHILE loops < 3 AND (SELECT d FROM rd WHERE id = 1) > 1.499 DO SET loops = loops + 1; END WHILE;
			INSERT INTO rlog VALUES ('while', loops);
			DELETE FROM rd WHERE d = 1.499;
			PREPARE Counted FROM 'SELECT COUNT(*) FROM rd';
			EXECUTE counted;
			DEALLOCATE PREPARE COUNTED;
		END`,
		"CREATE TABLE rt (d DECIMAL(8,2), n INT)",
		"CREATE TRIGGER rtr BEFORE INSERT ON rt FOR EACH ROW BEGIN IF NEW.d = 1.499 THEN SET NEW.n = 1; ELSE SET NEW.n = 0; END IF; END",
		"CALL rcheck()", "INSERT INTO rt (d) VALUES (1.50)")
	if got := queryStrings(t, db, "SELECT what, n FROM rlog ORDER BY what"); !slices.Equal(got, []string{"if\t0", "select\t0", "while\t3"}) {
		t.Errorf("procedure's comparisons: %q, want if 0, select 0, while 3", got)
	}
	if got := queryStrings(t, db, "SELECT id FROM rd"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("after the procedure's DELETE ... WHERE d = 1.499: %q, want the row holding 1.50", got)
	}
	if got := queryStrings(t, db, "SELECT n FROM rt"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("trigger's IF NEW.d = 1.499 on 1.50: n = %q, want 0", got)
	}
}

// TestExactComparisonsInGeneratedColumns: a generated column or a DEFAULT (...) expression that
// compares with a decimal literal compares exactly, as queries do: the engine rounded the literal
// to the column's type, so with d DECIMAL(8,2) holding 1.50, v INT AS (d = 1.499) was 1, and
// AS (d > 1.499) was 0, made with the table or added by ALTER TABLE.
func TestExactComparisonsInGeneratedColumns(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE gx (d DECIMAL(8,2), eq INT AS (d = 1.499), gt INT AS (d > 1.499) STORED, df INT DEFAULT (1.499 = 1.50))",
		"ALTER TABLE gx ADD COLUMN lt INT AS (d < 1.499)", "INSERT INTO gx (d) VALUES (1.50), (1.49)")
	if got := queryStrings(t, db, "SELECT d, eq, gt, df, lt FROM gx ORDER BY d"); !slices.Equal(got, []string{"1.49\t0\t0\t0\t1", "1.50\t0\t1\t0\t0"}) {
		t.Errorf("generated columns: %q, want 1.49: 0 0 0 1, 1.50: 0 1 0 0", got)
	}
}

// TestNotInWithNulls: `x NOT IN (SELECT y ...)` is NULL, so a WHERE drops the row, when x is
// NULL or when no y equals x but some y is NULL. The engine's planner turned it into an anti
// join that kept every row without an equal y: with a NULL among the y it returned rows where
// MySQL returns none, and it kept the rows whose x is NULL. Where neither side can be NULL, the
// anti join stays (its plan is checked).
func TestNotInWithNulls(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE na (id INT PRIMARY KEY, x INT, KEY (x))", "INSERT INTO na VALUES (1, 1), (2, 2), (3, NULL)",
		"CREATE TABLE nb (id INT PRIMARY KEY, y INT, KEY (y))", "INSERT INTO nb VALUES (1, 1), (2, 1), (3, NULL)",
		"CREATE TABLE nc (id INT PRIMARY KEY, y INT NOT NULL)", "INSERT INTO nc VALUES (1, 1)")
	wantIDs(t, db, []whereCase{
		{"x NOT IN (SELECT y FROM nb)", nil},
		{"x NOT IN (SELECT y FROM nb WHERE y IS NOT NULL)", []string{"2"}},
		{"x NOT IN (SELECT y FROM nc)", []string{"2"}},
		{"id NOT IN (SELECT y FROM nc)", []string{"2", "3"}},
		{"NOT (x = (SELECT y FROM nc))", []string{"2"}},
		{"id > 0 AND x NOT IN (SELECT y FROM nb)", nil},
		{"id IN (SELECT id FROM na WHERE x NOT IN (SELECT y FROM nb))", nil},
		{"NOT EXISTS (SELECT 1 FROM nb WHERE nb.y = na.x)", []string{"2", "3"}},
	}, "na")
	plan := strings.Join(queryStrings(t, db, "EXPLAIN PLAN SELECT id FROM na WHERE id NOT IN (SELECT y FROM nc)"), "\n")
	if !strings.Contains(plan, "Join") {
		t.Errorf("NOT IN over columns that cannot be NULL lost its anti join:\n%s", plan)
	}
}

// TestTextComparedWithNumbers: MySQL compares text with a number as floating-point numbers,
// reading the text's numeric prefix: `s = 0` holds for 'aa' and '0', `s = 1` for '1', '1.0' and
// ' 1', `s = 2` for '2x'. The engine read '2x' as 0; an index lookup on s converted the number to
// text and found only '0' or '1', so the answer depended on the index; `s IN (1, 0)` compared as
// text even without one; and a join of s with an INT column found different rows through an
// index on s, one on the INT, and none (5:1 only; 1:0, 2:0, 4:1).
func TestTextComparedWithNumbers(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	indexedAndPlain(t, db, "ti", "tn", "id INT PRIMARY KEY, s VARCHAR(10)", ", KEY (s)", "(1, 'aa'), (2, '0'), (3, '1.0'), (4, '1'), (5, ' 1'), (6, NULL), (7, '2x')")
	wantIDs(t, db, []whereCase{
		{"s = 0", []string{"1", "2"}},
		{"0 = s", []string{"1", "2"}},
		{"s = 1", []string{"3", "4", "5"}},
		{"s = 2", []string{"7"}},
		{"s > 0", []string{"3", "4", "5", "7"}},
		{"s BETWEEN 1 AND 2", []string{"3", "4", "5", "7"}},
		{"s IN (1, 0)", []string{"1", "2", "3", "4", "5"}},
		{"s NOT IN (1, 0)", []string{"7"}},
		{"s = 'aa'", []string{"1"}},
		{"s = '1'", []string{"4"}},
	}, "ti", "tn")
	indexedAndPlain(t, db, "ki", "kn", "n INT", ", KEY (n)", "(0), (1), (2)")
	want := []string{"1\t0", "2\t0", "3\t1", "4\t1", "5\t1", "7\t2"}
	for _, text := range []string{"ti", "tn"} {
		for _, number := range []string{"ki", "kn"} {
			for _, q := range []string{
				"SELECT id, n FROM " + text + ", " + number + " WHERE s = n ORDER BY id, n",
				"SELECT id, n FROM " + text + " JOIN " + number + " ON " + number + ".n = " + text + ".s ORDER BY id, n",
			} {
				if got := queryStrings(t, db, q); !slices.Equal(got, want) {
					t.Errorf("%s: %q, want %q", q, got, want)
				}
			}
		}
	}
	if plan := strings.Join(queryStrings(t, db, "EXPLAIN PLAN SELECT id FROM ti WHERE s = 'aa'"), "\n"); !strings.Contains(plan, "IndexedTableAccess") {
		t.Errorf("a text comparison lost its index lookup:\n%s", plan)
	}
	// CAST(text AS DOUBLE) reads the same prefix; a CHECK constraint holding such a comparison
	// keeps it through SHOW CREATE TABLE, which writes it as that CAST.
	if got := queryStrings(t, db, "SELECT CAST('2x' AS DOUBLE), CAST(' -3e-1x' AS DOUBLE)"); !slices.Equal(got, []string{"2\t-0.3"}) {
		t.Errorf("CAST of '2x' and ' -3e-1x' AS DOUBLE: %q, want 2 and -0.3", got)
	}
	mustExec(t, db, "CREATE TABLE tc (s VARCHAR(10), CHECK (s > 0))", "INSERT INTO tc VALUES ('2x')")
	wantError(t, db, "INSERT INTO tc VALUES ('aa')", 3819, "HY000") // CHECK (s > 0)
	create := queryStrings(t, db, "SHOW CREATE TABLE tc")[0]
	create = strings.Replace(strings.SplitN(create, "\t", 2)[1], "`tc`", "`tc2`", 1)
	mustExec(t, db, create, "INSERT INTO tc2 VALUES ('2x')")
}

// TestNumbersComparedWithText: a number compared with text that is not a number as a whole
// compares with the text's numeric prefix, as a DOUBLE, with warning 1292, as in MySQL ('1x' is
// 1, '2.5e1zz' 25, 'abc' 0). Through an index on the number the engine failed with 1366 ("'1x' is
// not a valid value for 'int'"); without one it read '1x' as 0.
func TestNumbersComparedWithText(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	indexedAndPlain(t, db, "ni", "nn", "id INT PRIMARY KEY, n INT, d DECIMAL(8,2), f DOUBLE", ", KEY (n), KEY (d)", "(1, 0, 0, 0), (2, 1, 1, 1), (3, 2, 2, 2), (4, 25, 25, 25)")
	wantIDs(t, db, []whereCase{
		{"n = '1x'", []string{"2"}},
		{"'1x' = n", []string{"2"}},
		{"n = 'abc'", []string{"1"}},
		{"n = '2.5e1zz'", []string{"4"}},
		{"n > '1.5 apples'", []string{"3", "4"}},
		{"n IN ('1x', 2)", []string{"2", "3"}},
		{"n BETWEEN '0.5x' AND '1.5'", []string{"2"}},
		{"d = '1x'", []string{"2"}},
		{"f = '1x'", []string{"2"}},
		{"n = ' 1'", []string{"2"}},
		{"n = '1.5'", nil},
	}, "ni", "nn")
	conn := session(t, db)
	mustExec(t, conn, "DELETE FROM ni WHERE n = '1x'")
	if got := queryStrings(t, conn, "SHOW WARNINGS"); !slices.Equal(got, []string{"Warning\t1292\tTruncated incorrect DOUBLE value: '1x'"}) {
		t.Errorf("warnings of DELETE ... WHERE n = '1x': %q, want one 1292", got)
	}
	if got := queryStrings(t, db, "SELECT id FROM ni ORDER BY id"); !slices.Equal(got, []string{"1", "3", "4"}) {
		t.Errorf("after DELETE ... WHERE n = '1x': %q, want the row holding 1 gone", got)
	}
}

// TestDecimalsComparedWithDoubles: MySQL compares a DECIMAL with a FLOAT or DOUBLE as
// floating-point numbers. The engine rounded the DOUBLE to the DECIMAL's type: with d
// DECIMAL(8,2) holding 1.50 and f DOUBLE holding 1.499, d = f was true and d > f false.
func TestDecimalsComparedWithDoubles(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	indexedAndPlain(t, db, "dxi", "dxn", "id INT PRIMARY KEY, d DECIMAL(8,2)", ", KEY (d)", "(1, 1.50), (2, 1.49)")
	mustExec(t, db, "CREATE TABLE fx (f DOUBLE, g FLOAT)", "INSERT INTO fx VALUES (1.499, 1.5)")
	for _, c := range []struct {
		where string
		want  []string
	}{
		{"d = f", nil},
		{"d > f", []string{"1"}},
		{"f < d", []string{"1"}},
		{"d = g", []string{"1"}},
		{"f BETWEEN d AND 2", []string{"2"}},
	} {
		for _, table := range []string{"dxi", "dxn"} {
			q := "SELECT id FROM " + table + ", fx WHERE " + c.where + " ORDER BY id"
			if got := queryStrings(t, db, q); !slices.Equal(got, c.want) {
				t.Errorf("%s: %q, want %q", q, got, c.want)
			}
		}
	}
}

// TestDecimalLiteralsBelowOne: a decimal literal below 1 compares by its exact value too. The
// exact type the server gives 0.001, DECIMAL(4,3), was the literal's own, which the engine's
// planner drops, rounding it to the column's type: with d DECIMAL(8,2) holding 0, `d = 0.001`
// was true and `d < 0.001` false.
func TestDecimalLiteralsBelowOne(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	indexedAndPlain(t, db, "bi", "bn", "id INT PRIMARY KEY, d DECIMAL(8,2), z DECIMAL(30,0)", ", KEY (d), KEY (z)", "(1, 0, 0), (2, 1, 1)")
	wantIDs(t, db, []whereCase{
		{"d = 0.001", nil},
		{"d < 0.001", []string{"1"}},
		{"d = 0.0001", nil},
		{"d BETWEEN -0.001 AND 0.001", []string{"1"}},
		{"z = 0.01", nil},
		{"z > -1.00 AND z < 0.01", []string{"1"}},
	}, "bi", "bn")
}

// TestUpdateOutOfRangeFails: in strict mode (the default) MySQL fails an UPDATE that would store
// a value its integer column cannot hold, with 1264, and changes no row. The engine stored the
// nearest value and went on: UPDATE ... SET c = c + 1 kept 2147483647 in an INT and updated the
// other rows, SET t = 128 stored 127 in a TINYINT. INSERT ... ON DUPLICATE KEY UPDATE alike;
// UPDATE IGNORE and a non-strict sql_mode store the nearest value, as in MySQL.
func TestUpdateOutOfRangeFails(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE ov (id INT PRIMARY KEY, c INT, t TINYINT, u INT UNSIGNED)",
		"INSERT INTO ov VALUES (1, 2147483647, 127, 0), (2, 5, 1, 1)")
	rows := func() []string { return queryStrings(t, db, "SELECT id, c, t, u FROM ov ORDER BY id") }
	before := rows()
	for _, q := range []string{
		"UPDATE ov SET c = c + 1",
		"UPDATE ov SET t = 128 WHERE id = 2",
		"UPDATE ov SET t = t + 1",
		"UPDATE ov SET u = u - 1",
		"INSERT INTO ov VALUES (1, 0, 0, 0) ON DUPLICATE KEY UPDATE c = c + 1",
	} {
		wantError(t, db, q, 1264, "22003")
		if got := rows(); !slices.Equal(got, before) {
			t.Errorf("after the failed %s: %q, want %q", q, got, before)
		}
	}
	conn := session(t, db)
	mustExec(t, conn, "UPDATE IGNORE ov SET t = t + 1", "SET SESSION sql_mode = ''", "UPDATE ov SET c = c + 1 WHERE id = 1")
	if got := rows(); !slices.Equal(got, []string{"1\t2147483647\t127\t0", "2\t5\t2\t1"}) {
		t.Errorf("after UPDATE IGNORE and a non-strict UPDATE: %q", got)
	}
}

// TestRowComparisonsWithNulls: `(a, b) = (c, d)` is `a = c AND b = d` in SQL, so NULL when no
// pair differs and a pair holds a NULL. The engine compared the rows as whole values: `(NULL, 1)
// = (NULL, 1)` was true, `(1, 2) <> (1, NULL)` true, and `(1, NULL) = (1, 2)` failed with 1105.
func TestRowComparisonsWithNulls(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	if got := queryStrings(t, db, "SELECT (NULL, 1) = (NULL, 1), (1, NULL) = (1, 2), (1, 2) <> (1, NULL), (1, NULL) = (2, NULL), "+
		"(1, 2) = (1, 2), ((1, 2), 3) = ((1, NULL), 3), (NULL, 1) <=> (NULL, 1), (1, NULL) < (2, NULL)"); !slices.Equal(got, []string{"NULL\tNULL\tNULL\t0\t1\tNULL\t1\t1"}) {
		t.Errorf("row comparisons: %q", got)
	}
	mustExec(t, db, "CREATE TABLE rc (id INT PRIMARY KEY, a INT, b INT, KEY (a, b))", "INSERT INTO rc VALUES (1, 1, NULL), (2, 1, 2), (3, NULL, NULL)")
	for _, c := range []struct {
		where string
		want  []string
	}{
		{"(a, b) = (1, 2)", []string{"2"}},
		{"(a, b) = (1, NULL)", nil},
		{"(a, b) <> (1, 2)", nil},
		{"NOT ((a, b) = (1, 3))", []string{"2"}},
		{"(a, b) <=> (NULL, NULL)", []string{"3"}},
	} {
		q := "SELECT id FROM rc WHERE " + c.where + " ORDER BY id"
		if got := queryStrings(t, db, q); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", q, got, c.want)
		}
	}
}

// indexedAndPlain creates two tables of the same columns and rows, indexed with keys (", KEY
// (a), ...") and without them, so that a query gives its answer by both paths.
// whereCase is a WHERE condition and the ids of the rows it selects, in order.
type whereCase struct {
	where string
	want  []string
}

// wantIDs checks each case on each table: SELECT id FROM table WHERE where ORDER BY id.
func wantIDs(t *testing.T, db *sql.DB, cases []whereCase, tables ...string) {
	t.Helper()
	for _, c := range cases {
		for _, table := range tables {
			q := "SELECT id FROM " + table + " WHERE " + c.where + " ORDER BY id"
			if got := queryStrings(t, db, q); !slices.Equal(got, c.want) {
				t.Errorf("%s: %q, want %q", q, got, c.want)
			}
		}
	}
}

func indexedAndPlain(t *testing.T, db *sql.DB, indexed, plain, columns, keys, rows string) {
	t.Helper()
	for table, k := range map[string]string{indexed: keys, plain: ""} {
		mustExec(t, db, "CREATE TABLE "+table+" ("+columns+k+")", "INSERT INTO "+table+" VALUES "+rows)
	}
}
