package integration

import "testing"

// TestCollatedIn holds the scripts of IN lists on text columns with a case- or
// accent-insensitive collation.
func TestCollatedIn(t *testing.T) { runScripts(t, collatedInScripts) }

var collatedInScripts = []scriptTest{
	// TextInListUsesTheColumnsCollation: `b IN (...)` compares in the column's collation, as
	// `b = ...` does and as MySQL does, with an index on b and without; NULL in the list makes
	// a miss NULL. A _bin column compares bytes.
	{
		name: "TextInListUsesTheColumnsCollation",
		setup: indexedAndPlain("cii", "cip",
			"id INT PRIMARY KEY, b VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, c VARCHAR(10) COLLATE utf8mb4_0900_bin",
			", KEY (b), KEY (c)",
			"(1, 'é', 'é'), (2, 'E', 'E'), (3, 'e', 'e'), (4, 'x', 'x'), (5, NULL, NULL), (6, 'f', 'f')"),
		assertions: whereIDs([]whereCase{
			{"b = 'E'", []string{"1", "2", "3"}},
			{"b IN ('E', 'zz')", []string{"1", "2", "3"}},
			{"b IN ('e')", []string{"1", "2", "3"}},
			{"b IN ('X', 'F', 'zz')", []string{"4", "6"}},
			{"b NOT IN ('E', 'zz')", []string{"4", "6"}},
			{"b IN ('X', NULL)", []string{"4"}},
			{"b NOT IN ('x', NULL)", nil},
			{"c IN ('E', 'zz')", []string{"2"}},
			{"c NOT IN ('E', 'zz')", []string{"1", "3", "4", "6"}},
		}, "cii", "cip"),
	},
	// NullSafeEqualsUsesTheColumnsCollation: `b <=> 'E'` compares in the column's collation
	// as `b = 'E'` does, either way round, and is false (never NULL) for a NULL b.
	{
		name: "NullSafeEqualsUsesTheColumnsCollation",
		setup: indexedAndPlain("nsi", "nsp",
			"id INT PRIMARY KEY, b VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, c VARCHAR(10) COLLATE utf8mb4_0900_bin",
			", KEY (b), KEY (c)",
			"(1, 'é', 'é'), (2, 'E', 'E'), (3, 'e', 'e'), (4, 'x', 'x'), (5, NULL, NULL)"),
		assertions: concat(whereIDs([]whereCase{
			{"b <=> 'E'", []string{"1", "2", "3"}},
			{"'e' <=> b", []string{"1", "2", "3"}},
			{"NOT (b <=> 'E')", []string{"4", "5"}},
			{"b <=> NULL", []string{"5"}},
			{"c <=> 'E'", []string{"2"}},
		}, "nsi", "nsp"), []assertion{
			{query: "SELECT b <=> 'X' FROM nsp ORDER BY id", rows: column("0", "0", "0", "1", "0")},
		}),
	},
	// OtherCollationsAreNotLookedUp: a text column compared with constants in another
	// collation (an explicit COLLATE, a binary string) compares in that collation, through an
	// index on the column (primary key, secondary, a second column) as without one; a prepared
	// statement's parameter alike.
	{
		name: "OtherCollationsAreNotLookedUp",
		setup: indexedAndPlain("oci", "ocp",
			"id INT, a INT, b VARCHAR(10) COLLATE utf8mb4_general_ci, c VARCHAR(10) COLLATE utf8mb4_0900_ai_ci",
			", PRIMARY KEY (id), KEY (b), KEY (a, b), KEY (c)",
			"(1, 1, 'A', 'é'), (2, 1, 'a', 'E'), (3, 2, 'a', 'e'), (4, 2, 'B', 'x'), (5, 1, NULL, NULL)"),
		assertions: concat(whereIDs([]whereCase{
			{"b = 'A'", []string{"1", "2", "3"}},
			{"b = 'A' COLLATE utf8mb4_bin", []string{"1"}},
			{"'A' COLLATE utf8mb4_bin = b", []string{"1"}},
			{"b <=> 'A' COLLATE utf8mb4_bin", []string{"1"}},
			{"b IN ('A' COLLATE utf8mb4_bin, 'x')", []string{"1"}},
			{"b >= 'A' COLLATE utf8mb4_bin AND b <= 'A' COLLATE utf8mb4_bin", []string{"1"}},
			{"b = BINARY 'a'", []string{"2", "3"}},
			{"b = _binary'A'", []string{"1"}},
			{"b = x'41'", []string{"1"}},
			{"b = CAST('A' AS BINARY)", []string{"1"}},
			{"a = 1 AND b = 'a' COLLATE utf8mb4_bin", []string{"2"}},
			{"(a, b) = (1, 'a' COLLATE utf8mb4_bin)", []string{"2"}},
			{"c = 'E' COLLATE utf8mb4_0900_as_cs", []string{"2"}},
			{"c = 'e' COLLATE utf8mb4_0900_as_ci", []string{"2", "3"}},
		}, "oci", "ocp"), []assertion{
			{query: "SELECT id FROM oci WHERE b = ? COLLATE utf8mb4_bin ORDER BY id", args: []any{"A"}, rows: column("1")},
			{query: "SELECT id FROM oci WHERE b = BINARY ? ORDER BY id", args: []any{"a"}, rows: column("2", "3")},
			// the column's own collation, or a weaker one, still reads the index
			{query: "EXPLAIN PLAN SELECT id FROM oci WHERE b = 'A'", contains: "index: [oci.b]"},
			{query: "EXPLAIN PLAN SELECT id FROM oci WHERE b = 'A' COLLATE utf8mb4_general_ci", contains: "index: [oci.b]"},
		}),
	},
}
