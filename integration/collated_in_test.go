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
}
