package integration

import (
	"database/sql"
	"strings"
	"testing"
)

// TestComparisons holds the scripts of the comparison corrections (docs/engine-corrections.md,
// "Comparisons and joins").
func TestComparisons(t *testing.T) { runScripts(t, comparisonScripts) }

var comparisonScripts = []scriptTest{
	// MixedInLists: an IN list of text and numbers compares its left side with each item in
	// the type of that pair, as MySQL does: with c VARCHAR, `c IN ('x', 1)` holds for 'x' and '1',
	// not for 'y' (the list was compared as numbers, where 'x' and 'y' are both 0); with t TIME,
	// `t IN ('00:00:01', 5)` holds for 00:00:01 only; a DATE in such a list failed with 1105.
	{
		name: "MixedInLists",
		setup: indexedAndPlain("mi", "mn", "id INT PRIMARY KEY, c VARCHAR(5), t TIME, d DATE", ", KEY (c), KEY (t), KEY (d)",
			"(1, 'x', '00:00:01', '2026-01-01'), (2, 'y', '00:00:02', '2026-01-02'), (3, '1', NULL, NULL)"),
		assertions: whereIDs([]whereCase{
			{"c IN ('x', 1)", []string{"1", "3"}},
			{"c NOT IN ('x', 1)", []string{"2"}},
			{"c IN ('x', 0)", []string{"1", "2"}},
			{"c IN ('z', NULL, 1)", []string{"3"}},
			{"c NOT IN ('z', NULL, 1)", nil},
			{"t IN ('00:00:01', 5)", []string{"1"}},
			{"d IN ('2026-01-01', 5)", []string{"1"}},
		}, "mi", "mn"),
	},
	// NumericComparisonsAreExact: MySQL compares numbers by their exact values. The engine
	// compared a DECIMAL with another number in the DECIMAL's type, rounding the other one first,
	// and an index lookup converted its key to the column's type, clamping it: with d
	// DECIMAL(8,2) holding 1.50, `d = 1.499` was true (so DELETE ... WHERE d = 1.499 deleted that
	// row); with an index on t TINYINT, `t = 300` found the row holding 127; on u BIGINT UNSIGNED,
	// `u > -1` found nothing; a list with a NULL kept the engine's comparison, and its index
	// lookup failed on a key out of the column's range (1105). Each comparison runs on a table with indexes and on one without, as
	// text, through a server-side prepared statement, in subqueries, a view and CHECK constraints
	// (`CHECK (d > 1.499)` refused 1.50), and as the WHERE of a DELETE and an UPDATE.
	{
		name: "NumericComparisonsAreExact",
		setup: concat(
			indexedAndPlain("xi", "xn", "id INT PRIMARY KEY, t TINYINT, u BIGINT UNSIGNED, d DECIMAL(8,2)", ", KEY (t), KEY (u), KEY (d)", "(1, 127, 5, 1.50), (2, -128, 0, 1.49), (3, 5, 18446744073709551615, 2.00)"),
			[]string{"CREATE TABLE xp (t TINYINT PRIMARY KEY)", "INSERT INTO xp VALUES (127), (5)",
				"CREATE VIEW xv AS SELECT id FROM xn WHERE d = 1.499"}),
		assertions: concat(
			whereIDs([]whereCase{
				{"t = 300", nil},
				{"300 = t", nil},
				{"t >= 300", nil},
				{"t < 300", []string{"1", "2", "3"}},
				{"t IN (300, 5)", []string{"3"}},
				{"t IN (300, NULL, 5)", []string{"3"}},

				{"d IN ('z', NULL, -9223372036854775808)", nil},
				{"d IN (NULL, 1.499, 2)", []string{"3"}},
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
			}, "xi", "xn"),
			[]assertion{
				// Inside subqueries, unions, derived tables and views too.
				{query: "SELECT id FROM xn WHERE id IN (SELECT id FROM xi WHERE d = 1.499)"},
				{query: "SELECT id FROM xn WHERE EXISTS (SELECT 1 FROM xi WHERE xi.d = 1.499)"},
				{query: "SELECT id FROM (SELECT id FROM xn WHERE d = 1.499 UNION SELECT id FROM xi WHERE t = 300) x"},
				{query: "SELECT id FROM xv"},
				{query: "SELECT (SELECT id FROM xn WHERE d = 1.499)", rows: column("NULL")},
				// The primary key.
				{query: "SELECT t FROM xp WHERE t = 300"},
				{query: "SELECT t FROM xp WHERE t >= 300"},
				// Server-side prepared statements: go-sql-driver sends a float64 as a DOUBLE
				// parameter, a string as text.
				{query: "SELECT COUNT(*) FROM xi WHERE d = ?", args: []any{1.499}, rows: column("0")},
				{query: "SELECT COUNT(*) FROM xi WHERE d = ?", args: []any{"1.499"}, rows: column("0")},
				// DELETE and UPDATEs whose WHERE matches nothing.
				{query: "DELETE FROM xi WHERE d = 1.499"},
				{query: "UPDATE xi SET t = 0 WHERE t = 300"},
				{query: "UPDATE xi SET t = 1 WHERE u = -1"},
				{query: "SELECT id, t FROM xi ORDER BY id", rows: tsv("1\t127", "2\t-128", "3\t5")},
				// CHECK constraints, made with the table or added later.
				{query: "CREATE TABLE xc (id INT PRIMARY KEY, d DECIMAL(8,2), CHECK (d > 1.499))"},
				{query: "ALTER TABLE xc ADD CONSTRAINT below CHECK (d < 2.001)"},
				{query: "INSERT INTO xc VALUES (1, 1.50), (2, 2.00)"},
				{query: "INSERT INTO xc VALUES (3, 1.49)", err: 3819, state: "HY000"},
				{query: "INSERT INTO xc VALUES (4, 2.01)", err: 3819, state: "HY000"},
				// A comparison the engine gets right keeps its index lookup.
				{query: "EXPLAIN PLAN SELECT id FROM xi WHERE d > 1.49", contains: "IndexedTableAccess"},
			}),
	},

	// ExactComparisonsInRoutines: the statements of stored procedures and triggers compare
	// numbers exactly too. The engine parses a routine's body again with its process-wide parser,
	// not the server's, so in a procedure `d = 1.499` was true for a DECIMAL(8,2) holding 1.50
	// (its DELETE deleted the row) and a trigger's IF took the wrong branch; a procedure's
	// `PREPARE S ...; EXECUTE s` failed with 1243, though prepared names are case-insensitive.
	{
		name: "ExactComparisonsInRoutines",
		setup: []string{
			"CREATE TABLE rd (id INT PRIMARY KEY, d DECIMAL(8,2))", "INSERT INTO rd VALUES (1, 1.50)",
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
			"CALL rcheck()", "INSERT INTO rt (d) VALUES (1.50)",
		},
		assertions: []assertion{
			{query: "SELECT what, n FROM rlog ORDER BY what", rows: tsv("if\t0", "select\t0", "while\t3")},
			// The procedure's DELETE ... WHERE d = 1.499 left the row holding 1.50.
			{query: "SELECT id FROM rd", rows: column("1")},
			// The trigger's IF NEW.d = 1.499 on 1.50.
			{query: "SELECT n FROM rt", rows: column("0")},
		},
	},

	// ExactComparisonsInGeneratedColumns: a generated column or a DEFAULT (...) expression that
	// compares with a decimal literal compares exactly, as queries do: the engine rounded the
	// literal to the column's type, so with d DECIMAL(8,2) holding 1.50, v INT AS (d = 1.499) was
	// 1, and AS (d > 1.499) was 0, made with the table or added by ALTER TABLE.
	{
		name: "ExactComparisonsInGeneratedColumns",
		setup: []string{
			"CREATE TABLE gx (d DECIMAL(8,2), eq INT AS (d = 1.499), gt INT AS (d > 1.499) STORED, df INT DEFAULT (1.499 = 1.50))",
			"ALTER TABLE gx ADD COLUMN lt INT AS (d < 1.499)", "INSERT INTO gx (d) VALUES (1.50), (1.49)",
		},
		assertions: []assertion{
			{query: "SELECT d, eq, gt, df, lt FROM gx ORDER BY d", rows: tsv("1.49\t0\t0\t0\t1", "1.50\t0\t1\t0\t0")},
		},
	},

	// NotInWithNulls: `x NOT IN (SELECT y ...)` is NULL, so a WHERE drops the row, when x is NULL
	// or when no y equals x but some y is NULL. The engine's planner turned it into an anti join
	// that kept every row without an equal y: with a NULL among the y it returned rows where
	// MySQL returns none, and it kept the rows whose x is NULL. Where neither side can be NULL,
	// the anti join stays (its plan is checked).
	{
		name: "NotInWithNulls",
		setup: []string{
			"CREATE TABLE na (id INT PRIMARY KEY, x INT, KEY (x))", "INSERT INTO na VALUES (1, 1), (2, 2), (3, NULL)",
			"CREATE TABLE nb (id INT PRIMARY KEY, y INT, KEY (y))", "INSERT INTO nb VALUES (1, 1), (2, 1), (3, NULL)",
			"CREATE TABLE nc (id INT PRIMARY KEY, y INT NOT NULL)", "INSERT INTO nc VALUES (1, 1)",
		},
		assertions: append(whereIDs([]whereCase{
			{"x NOT IN (SELECT y FROM nb)", nil},
			{"x NOT IN (SELECT y FROM nb WHERE y IS NOT NULL)", []string{"2"}},
			{"x NOT IN (SELECT y FROM nc)", []string{"2"}},
			{"id NOT IN (SELECT y FROM nc)", []string{"2", "3"}},
			{"NOT (x = (SELECT y FROM nc))", []string{"2"}},
			{"id > 0 AND x NOT IN (SELECT y FROM nb)", nil},
			{"id IN (SELECT id FROM na WHERE x NOT IN (SELECT y FROM nb))", nil},
			{"NOT EXISTS (SELECT 1 FROM nb WHERE nb.y = na.x)", []string{"2", "3"}},
		}, "na"),
			// NOT IN over columns that cannot be NULL keeps its anti join.
			assertion{query: "EXPLAIN PLAN SELECT id FROM na WHERE id NOT IN (SELECT y FROM nc)", contains: "Join"}),
	},

	// TextComparedWithNumbers: MySQL compares text with a number as floating-point numbers,
	// reading the text's numeric prefix: `s = 0` holds for 'aa' and '0', `s = 1` for '1', '1.0'
	// and ' 1', `s = 2` for '2x'. The engine read '2x' as 0; an index lookup on s converted the
	// number to text and found only '0' or '1', so the answer depended on the index; `s IN (1,
	// 0)` compared as text even without one; and a join of s with an INT column found different
	// rows through an index on s, one on the INT, and none (5:1 only; 1:0, 2:0, 4:1).
	{
		name: "TextComparedWithNumbers",
		setup: concat(
			indexedAndPlain("ti", "tn", "id INT PRIMARY KEY, s VARCHAR(10)", ", KEY (s)", "(1, 'aa'), (2, '0'), (3, '1.0'), (4, '1'), (5, ' 1'), (6, NULL), (7, '2x')"),
			indexedAndPlain("ki", "kn", "n INT", ", KEY (n)", "(0), (1), (2)"),
			[]string{"CREATE TABLE tc (s VARCHAR(10), CHECK (s > 0))", "INSERT INTO tc VALUES ('2x')"}),
		assertions: concat(
			whereIDs([]whereCase{
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
			}, "ti", "tn"),
			textNumberJoins(),
			[]assertion{
				// A text comparison keeps its index lookup.
				{query: "EXPLAIN PLAN SELECT id FROM ti WHERE s = 'aa'", contains: "IndexedTableAccess"},
				// CAST(text AS DOUBLE) reads the same prefix.
				{query: "SELECT CAST('2x' AS DOUBLE), CAST(' -3e-1x' AS DOUBLE)", rows: tsv("2\t-0.3")},
				{query: "INSERT INTO tc VALUES ('aa')", err: 3819, state: "HY000"}, // CHECK (s > 0)
			}),
		// A CHECK constraint holding such a comparison keeps it through SHOW CREATE TABLE, which
		// writes it as that CAST: what it shows creates a table that takes '2x'.
		then: func(t *testing.T, c *sql.Conn) {
			create := queryStrings(t, c, "SHOW CREATE TABLE tc")[0]
			create = strings.Replace(strings.SplitN(create, "\t", 2)[1], "`tc`", "`tc2`", 1)
			mustExec(t, c, create, "INSERT INTO tc2 VALUES ('2x')")
		},
	},

	// NumbersComparedWithText: a number compared with text that is not a number as a whole
	// compares with the text's numeric prefix, as a DOUBLE, with warning 1292, as in MySQL ('1x'
	// is 1, '2.5e1zz' 25, 'abc' 0). Through an index on the number the engine failed with 1366
	// ("'1x' is not a valid value for 'int'"); without one it read '1x' as 0.
	{
		name:  "NumbersComparedWithText",
		setup: indexedAndPlain("ni", "nn", "id INT PRIMARY KEY, n INT, d DECIMAL(8,2), f DOUBLE", ", KEY (n), KEY (d)", "(1, 0, 0, 0), (2, 1, 1, 1), (3, 2, 2, 2), (4, 25, 25, 25)"),
		assertions: append(whereIDs([]whereCase{
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
		}, "ni", "nn"),
			assertion{query: "DELETE FROM ni WHERE n = '1x'"},
			assertion{query: "SHOW WARNINGS", rows: tsv("Warning\t1292\tTruncated incorrect DOUBLE value: '1x'")},
			// The row holding 1 is gone.
			assertion{query: "SELECT id FROM ni ORDER BY id", rows: column("1", "3", "4")}),
	},

	// DecimalsComparedWithDoubles: MySQL compares a DECIMAL with a FLOAT or DOUBLE as
	// floating-point numbers. The engine rounded the DOUBLE to the DECIMAL's type: with d
	// DECIMAL(8,2) holding 1.50 and f DOUBLE holding 1.499, d = f was true and d > f false.
	{
		name: "DecimalsComparedWithDoubles",
		setup: append(indexedAndPlain("dxi", "dxn", "id INT PRIMARY KEY, d DECIMAL(8,2)", ", KEY (d)", "(1, 1.50), (2, 1.49)"),
			"CREATE TABLE fx (f DOUBLE, g FLOAT)", "INSERT INTO fx VALUES (1.499, 1.5)"),
		assertions: whereIDs([]whereCase{
			{"d = f", nil},
			{"d > f", []string{"1"}},
			{"f < d", []string{"1"}},
			{"d = g", []string{"1"}},
			{"f BETWEEN d AND 2", []string{"2"}},
		}, "dxi, fx", "dxn, fx"),
	},

	// DoublesComparedWithDecimalLiterals: a DOUBLE column compared with a decimal literal
	// compares as floating-point numbers, and a DECIMAL column with a floating-point literal no
	// DECIMAL(65) holds (1e300, 1e-300) too, as in MySQL. The engine compared the DOUBLE in the
	// literal's type, so `c = 0.0` held for 1e300 and -1e-300, and its index lookup on the DECIMAL
	// failed with 1105 (out of range); an integer compared with such a literal in the integer's
	// type, so `n IN (1, -1e-300)` held for 0.
	{
		name: "DoublesComparedWithDecimalLiterals",
		setup: indexedAndPlain("wi", "wn", "id INT PRIMARY KEY, c DOUBLE, d DECIMAL(6,2), n TINYINT", ", KEY (c), KEY (d), KEY (n)",
			"(1, 1e300, 1.50, 0), (2, -1e-300, -2.00, 1), (3, 0.0e0, 0, 2), (4, -0.0e0, NULL, 0), (5, 2.5e0, 2.50, NULL)"),
		assertions: whereIDs([]whereCase{
			{"c = 0.0", []string{"3", "4"}},
			{"c <=> 0.0", []string{"3", "4"}},
			{"c < 0.0", []string{"2"}},
			{"c BETWEEN -1.5 AND 0.0", []string{"2", "3", "4"}},
			{"c IN (0.0, 2.50)", []string{"3", "4", "5"}},
			{"c > 2.49", []string{"1", "5"}},
			{"d = 1e300", nil},
			{"d < 1e300", []string{"1", "2", "3", "5"}},
			{"d > -1e300", []string{"1", "2", "3", "5"}},
			{"d > 1e-300", []string{"1", "5"}},
			{"d IN (1e300, 2.5e0)", []string{"5"}},
			{"n IN (1, -1e-300)", []string{"2"}},
			{"n = 1e-300", nil},
			{"n < 1e300", []string{"1", "2", "3", "4"}},
			{"n BETWEEN -1e-300 AND 1e-300", []string{"1", "4"}},
		}, "wi", "wn"),
	},

	// DecimalLiteralsBelowOne: a decimal literal below 1 compares by its exact value too. The
	// exact type the server gives 0.001, DECIMAL(4,3), was the literal's own, which the engine's
	// planner drops, rounding it to the column's type: with d DECIMAL(8,2) holding 0, `d =
	// 0.001` was true and `d < 0.001` false.
	{
		name:  "DecimalLiteralsBelowOne",
		setup: indexedAndPlain("bi", "bn", "id INT PRIMARY KEY, d DECIMAL(8,2), z DECIMAL(30,0)", ", KEY (d), KEY (z)", "(1, 0, 0), (2, 1, 1)"),
		assertions: whereIDs([]whereCase{
			{"d = 0.001", nil},
			{"d < 0.001", []string{"1"}},
			{"d = 0.0001", nil},
			{"d BETWEEN -0.001 AND 0.001", []string{"1"}},
			{"z = 0.01", nil},
			{"z > -1.00 AND z < 0.01", []string{"1"}},
		}, "bi", "bn"),
	},

	// UpdateOutOfRangeFails: in strict mode (the default) MySQL fails an UPDATE that would store
	// a value its integer column cannot hold, with 1264, and changes no row. The engine stored
	// the nearest value and went on: UPDATE ... SET c = c + 1 kept 2147483647 in an INT and
	// updated the other rows, SET t = 128 stored 127 in a TINYINT. INSERT ... ON DUPLICATE KEY
	// UPDATE alike; UPDATE IGNORE and a non-strict sql_mode store the nearest value, as in MySQL.
	{
		name: "UpdateOutOfRangeFails",
		setup: []string{
			"CREATE TABLE ov (id INT PRIMARY KEY, c INT, t TINYINT, u INT UNSIGNED)",
			"INSERT INTO ov VALUES (1, 2147483647, 127, 0), (2, 5, 1, 1)",
		},
		assertions: concat(
			outOfRange(
				"UPDATE ov SET c = c + 1",
				"UPDATE ov SET t = 128 WHERE id = 2",
				"UPDATE ov SET t = t + 1",
				"UPDATE ov SET u = u - 1",
				"INSERT INTO ov VALUES (1, 0, 0, 0) ON DUPLICATE KEY UPDATE c = c + 1",
			),
			[]assertion{
				{query: "UPDATE IGNORE ov SET t = t + 1"},
				{query: "SET SESSION sql_mode = ''"},
				{query: "UPDATE ov SET c = c + 1 WHERE id = 1"},
				{query: "SELECT id, c, t, u FROM ov ORDER BY id", rows: tsv("1\t2147483647\t127\t0", "2\t5\t2\t1")},
			}),
	},

	// RowComparisonsWithNulls: `(a, b) = (c, d)` is `a = c AND b = d` in SQL, so NULL when no
	// pair differs and a pair holds a NULL. The engine compared the rows as whole values:
	// `(NULL, 1) = (NULL, 1)` was true, `(1, 2) <> (1, NULL)` true, and `(1, NULL) = (1, 2)`
	// failed with 1105.
	{
		name:  "RowComparisonsWithNulls",
		setup: []string{"CREATE TABLE rc (id INT PRIMARY KEY, a INT, b INT, KEY (a, b))", "INSERT INTO rc VALUES (1, 1, NULL), (2, 1, 2), (3, NULL, NULL)"},
		assertions: append([]assertion{
			{query: "SELECT (NULL, 1) = (NULL, 1), (1, NULL) = (1, 2), (1, 2) <> (1, NULL), (1, NULL) = (2, NULL), " +
				"(1, 2) = (1, 2), ((1, 2), 3) = ((1, NULL), 3), (NULL, 1) <=> (NULL, 1), (1, NULL) < (2, NULL)",
				rows: tsv("NULL\tNULL\tNULL\t0\t1\tNULL\t1\t1")},
		}, whereIDs([]whereCase{
			{"(a, b) = (1, 2)", []string{"2"}},
			{"(a, b) = (1, NULL)", nil},
			{"(a, b) <> (1, 2)", nil},
			{"NOT ((a, b) = (1, 3))", []string{"2"}},
			{"(a, b) <=> (NULL, NULL)", []string{"3"}},
		}, "rc")...),
	},
}

// textNumberJoins are the joins of text with numbers of TextComparedWithNumbers, through each
// pair of the indexed and plain tables.
func textNumberJoins() []assertion {
	want := tsv("1\t0", "2\t0", "3\t1", "4\t1", "5\t1", "7\t2")
	var out []assertion
	for _, text := range []string{"ti", "tn"} {
		for _, number := range []string{"ki", "kn"} {
			out = append(out,
				assertion{query: "SELECT id, n FROM " + text + ", " + number + " WHERE s = n ORDER BY id, n", rows: want},
				assertion{query: "SELECT id, n FROM " + text + " JOIN " + number + " ON " + number + ".n = " + text + ".s ORDER BY id, n", rows: want})
		}
	}
	return out
}

// outOfRange asserts that each statement fails with 1264 (22003) and leaves ov as it was.
func outOfRange(statements ...string) []assertion {
	var out []assertion
	for _, q := range statements {
		out = append(out,
			assertion{query: q, err: 1264, state: "22003"},
			assertion{query: "SELECT id, c, t, u FROM ov ORDER BY id", rows: tsv("1\t2147483647\t127\t0", "2\t5\t1\t1")})
	}
	return out
}
