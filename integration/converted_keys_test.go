package integration

import (
	"fmt"
	"strings"
	"testing"
)

// TestConvertedKeys holds the scripts of index lookups by a constant the column's type does not
// hold exactly, or compared in another collation than the column's: each condition runs on a
// table with indexes and on one without, and gives MySQL's rows on both.
func TestConvertedKeys(t *testing.T) { runScripts(t, convertedKeyScripts) }

var convertedKeyScripts = []scriptTest{
	// RoundedConstants: the engine's range builder converted the constant to the column's type
	// (FLOAT rounds 0.1 to the FLOAT nearest it, DATE drops the time of day, YEAR and BIT round
	// 1999.5 and 4.5, BINARY(3) pads 'a' with zero bytes) and, the lookup being precise, dropped
	// the condition, which MySQL evaluates on the exact constant: the FLOAT 0.1 is a little more
	// than 0.1, the DATE 2026-01-01 is before 2026-01-01 10:00:00, the BINARY(3) 'a\0\0' is after
	// 'a'. A constant the type refuses (16 in a BIT(4), a date before TIMESTAMP's first) failed
	// the lookup with 1105.
	{
		name: "RoundedConstants",
		setup: indexedAndPlain("ri", "rn",
			"id INT PRIMARY KEY, f FLOAT, d DATE, y YEAR, bt BIT(4), bn BINARY(3), ts TIMESTAMP NULL",
			", KEY (f), KEY (d), KEY (y), KEY (bt), KEY (bn), KEY (ts), KEY (d, f)",
			"(1, 0.1, '2026-01-01', 2026, 5, 'a', '1970-01-02 00:00:00'), (2, 1.5, '2026-01-02', 1999, 8, 'ab', '2026-01-01 10:00:00'), "+
				"(3, NULL, '2025-12-31', 2000, 0, 'abc', NULL), (4, -0.0, NULL, NULL, NULL, NULL, '2026-01-02 00:00:00')"),
		assertions: concat(whereIDs([]whereCase{
			{"f > 0.1", []string{"1", "2"}},
			{"f <= 0.1", []string{"4"}},
			{"f = 0.1", nil},
			{"f IN (0.1, 1.5)", []string{"2"}},
			{"f BETWEEN 0.1 AND 2", []string{"1", "2"}},
			{"d < '2026-01-01 10:00:00'", []string{"1", "3"}},
			{"d > '2026-01-01 00:00:01'", []string{"2"}},
			{"d IN ('2026-01-01 00:00:01', '2026-01-02')", []string{"2"}},
			{"d = '2026-01-01' AND f > 0.1", []string{"1"}},
			{"y > 1999.5", []string{"1", "3"}},
			{"y = 1999.5", nil},
			{"bt > 4.5", []string{"1", "2"}},
			{"bt < 16", []string{"1", "2", "3"}},
			{"bt > -1", []string{"1", "2", "3"}},
			{"bn > 'a'", []string{"1", "2", "3"}},
			{"bn < 'ab'", []string{"1"}},
			{"ts BETWEEN '1970-01-01' AND '1970-01-03'", []string{"1"}},
		}, "ri", "rn"),
			[]assertion{
				{query: "DELETE FROM ri WHERE f > 0.1"},
				{query: "UPDATE ri SET y = 1901 WHERE d < '2026-01-01 10:00:00'"},
				// -1e-300 is a negation of a literal here, which FLOAT rounds to -0
				{query: "UPDATE ri SET y = 1902 WHERE f IN (-1e-300, 7)"},
				{query: "SELECT id, y FROM ri ORDER BY id", rows: [][]string{{"3", "1901"}, {"4", sqlNull}}},
			}),
	},

	// CollatedConstants: a text column compared with a constant whose collation wins over the
	// column's (an explicit COLLATE, a binary string) compares in that collation; the lookup
	// read the column's index, ordered by the column's collation, and dropped the condition.
	{
		name: "CollatedConstants",
		setup: indexedAndPlain("ci", "cn",
			"id INT PRIMARY KEY, c VARCHAR(4) COLLATE utf8mb4_0900_bin, l VARCHAR(4) CHARACTER SET latin1",
			", KEY (c), KEY (l)",
			"(1, 'a', 'a'), (2, 'A', 'A'), (3, 'b', 'b'), (4, NULL, NULL)"),
		assertions: whereIDs([]whereCase{
			{"c = 'A' COLLATE utf8mb4_0900_ai_ci", []string{"1", "2"}},
			{"c > 'A' COLLATE utf8mb4_0900_ai_ci", []string{"3"}},
			{"c IN ('A' COLLATE utf8mb4_0900_ai_ci, 'x')", []string{"1", "2"}},
			{"c = 'A'", []string{"2"}},
			{"l = _binary'a'", []string{"1"}},
			{"l < _binary'b'", []string{"1", "2"}},
			{"l = 'a'", []string{"1", "2"}},
		}, "ci", "cn"),
	},

	// TimeInList: a TIME column in an IN list of constants, with an index and without: the
	// engine's hashed list never held for a TIME, so IN found no row and NOT IN kept every row
	// (through the index, NOT IN read ranges around the constants and was right).
	{
		name:  "TimeInList",
		setup: indexedAndPlain("ti", "tn", "id INT PRIMARY KEY, t TIME", ", KEY (t)", "(1, '00:00:01'), (2, '10:00:00'), (3, '-01:00:00'), (4, NULL)"),
		assertions: whereIDs([]whereCase{
			{"t IN ('00:00:01', '10:00:00')", []string{"1", "2"}},
			{"t IN ('00:00:01')", []string{"1"}},
			{"t IN (TIME'10:00:00', TIME'-01:00:00')", []string{"2", "3"}},
			{"t NOT IN ('00:00:01', '-00:00:01')", []string{"2", "3"}},
			{"t NOT IN ('10:00:00')", []string{"1", "3"}},
		}, "ti", "tn"),
	},

	// NullSafeLookupJoin: a join on `t.v <=> jo.v` looking t up by its index on v, for a jo.v that
	// is NULL: the engine's lookup builder marked the lookup of the NULL key empty, though its
	// range is IS NULL, and the NULLs of t did not join (the storage now reads that range). And
	// an IN subquery whose table is looked up by `v <=> NULL` found nothing.
	{
		name: "NullSafeLookupJoin",
		setup: concat(
			indexedAndPlain("ji", "jn", "id INT PRIMARY KEY, v INT, w INT", ", KEY (v)", nullSafeJoinRows()),
			[]string{"CREATE TABLE jo (id INT PRIMARY KEY, v INT)", "INSERT INTO jo VALUES (1, 3), (2, NULL), (3, 5)"}),
		assertions: concat(
			onTables([]string{"ji", "jn"}, []assertion{
				{query: "SELECT jo.id, COUNT(*) FROM jo JOIN x t ON t.v <=> jo.v GROUP BY jo.id ORDER BY jo.id", rows: tsv("1\t11", "2\t25", "3\t10")},
				{query: "SELECT jo.id, COUNT(*) FROM jo JOIN x t ON t.v = jo.v GROUP BY jo.id ORDER BY jo.id", rows: tsv("1\t11", "3\t10")},
				{query: "SELECT COUNT(*) FROM jn o WHERE o.w IN (SELECT w FROM x WHERE v <=> NULL)", rows: column("100")},
			}),
			[]assertion{{query: "EXPLAIN PLAN SELECT jo.id FROM jo JOIN ji t ON t.v <=> jo.v", contains: "LookupJoin"}}),
	},
	// JoinsOfMixedTypes: a lookup join converted the other table's value to the indexed
	// column's type: with n INT indexed, `n = x` for a DOUBLE x of 1.5 joined the rows whose n is
	// 2; a DECIMAL(6,2) 2.45 joined a DECIMAL(4,1) 2.5; an INT 5 looked up in a BIT(2) failed
	// with 1105. Each join runs on a table with indexes and on one without.
	{
		name: "JoinsOfMixedTypes",
		setup: concat(
			indexedAndPlain("mi", "mn", "id INT PRIMARY KEY, n INT, d DECIMAL(4,1), k BIT(2)", ", KEY (n), KEY (d), KEY (k)", mixedJoinRows()),
			[]string{"CREATE TABLE mo (id INT PRIMARY KEY, x DOUBLE, dd DECIMAL(6,2), kk INT)", "INSERT INTO mo VALUES (1, 1.5, 2.45, 5), (2, 2, 2.5, 3)"}),
		assertions: onTables([]string{"mi", "mn"}, []assertion{
			{query: "SELECT mo.id, COUNT(*) FROM mo JOIN x t ON t.n = mo.x GROUP BY mo.id ORDER BY mo.id", rows: tsv("2\t15")},
			{query: "SELECT mo.id, COUNT(*) FROM mo JOIN x t ON t.d = mo.dd GROUP BY mo.id ORDER BY mo.id", rows: tsv("2\t15")},
			{query: "SELECT mo.id, COUNT(*) FROM mo JOIN x t ON t.k = mo.kk GROUP BY mo.id ORDER BY mo.id", rows: tsv("2\t25")},
			{query: "SELECT mo.id, COUNT(*) FROM mo JOIN x t ON t.n = mo.kk GROUP BY mo.id ORDER BY mo.id", rows: tsv("1\t14", "2\t14")},
		}),
	},
}

// mixedJoinRows are 100 rows (id, n, d, k): n is id mod 7, d is n + 0.5, k is id mod 4.
func mixedJoinRows() string {
	rows := make([]string, 0, 100)
	for id := 1; id <= 100; id++ {
		rows = append(rows, fmt.Sprintf("(%d, %d, %d.5, %d)", id, id%7, id%7, id%4))
	}
	return strings.Join(rows, ", ")
}

// nullSafeJoinRows are 100 rows (id, v, w): v is NULL in every fourth, else id mod 7; w is id
// mod 5.
func nullSafeJoinRows() string {
	rows := make([]string, 0, 100)
	for id := 1; id <= 100; id++ {
		v := fmt.Sprint(id % 7)
		if id%4 == 0 {
			v = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%d, %s, %d)", id, v, id%5))
	}
	return strings.Join(rows, ", ")
}
