package integration

import "testing"

// TestNotEqual holds the scripts of `<>` on indexed fractional columns.
func TestNotEqual(t *testing.T) { runScripts(t, notEqualScripts) }

var notEqualScripts = []scriptTest{
	// DecimalNotEqual: with an index on d DECIMAL, `d <> 0.25` returned the rows holding 0.25:
	// the engine's range builder took 0.25 for a value no row holds, as for an integer column,
	// read every row but the NULLs and dropped the condition. Each condition runs on a table with
	// an index and on one without.
	{
		name:  "DecimalNotEqual",
		setup: indexedAndPlain("ni", "nn", "id INT PRIMARY KEY, d DECIMAL(12,3)", ", KEY (d)", "(1, 0.010), (2, 0.25), (3, 1.5), (4, NULL), (5, -1), (6, 2.25)"),
		assertions: whereIDs([]whereCase{
			{"d <> 0.25", []string{"1", "3", "5", "6"}},
			{"d != 0.01", []string{"2", "3", "5", "6"}},
			{"NOT (d = 0.01)", []string{"2", "3", "5", "6"}},
			{"0.25 <> d", []string{"1", "3", "5", "6"}},
			{"d <> 2.25", []string{"1", "2", "3", "5"}},
			{"d <> 0.01 AND d >= 0", []string{"2", "3", "6"}},
			{"d <> 7", []string{"1", "2", "3", "5", "6"}},
		}, "ni", "nn"),
	},

	// DoubleNotEqual: `x <> v` and `x NOT IN (...)` on an indexed FLOAT or DOUBLE column, with
	// or without an index, in a SELECT and a DELETE. Through the index the engine read every row
	// but the NULLs and dropped the condition, as it did for DECIMAL: `x <> 0.25e0` returned the
	// row holding 0.25, and `DELETE ... WHERE x <> 1.5` deleted every row that was not NULL.
	{
		name:  "DoubleNotEqual",
		setup: indexedAndPlain("xi", "xn", "id INT PRIMARY KEY, x DOUBLE, f FLOAT, y INT", ", KEY (x, y), KEY (f)", "(1, 0.25, 0.25, 1), (2, 0.5, 0.5, 2), (3, 1.5, 1.5, 3), (4, NULL, NULL, 4)"),
		assertions: concat(whereIDs([]whereCase{
			{"x <> 0.25e0", []string{"2", "3"}},
			{"x <> 0.25", []string{"2", "3"}},
			{"NOT (x = 0.5)", []string{"1", "3"}},
			{"x NOT IN (0.25e0, 0.75e0)", []string{"2", "3"}},
			{"x NOT IN (0.25, 1.5)", []string{"2"}},
			{"f <> 0.5", []string{"1", "3"}},
			{"f NOT IN (0.25, 0.5)", []string{"3"}},
		}, "xi", "xn"), notEqualDeletes("xi"), notEqualDeletes("xn")),
	},
}

// notEqualDeletes deletes with x <> 1.5 and x NOT IN (1.5e0, 2.5e0) from table, which keeps
// the rows 3 (1.5) and 4 (NULL).
func notEqualDeletes(table string) []assertion {
	return []assertion{
		{query: "DELETE FROM " + table + " WHERE x <> 1.5"},
		{query: "DELETE FROM " + table + " WHERE x NOT IN (1.5e0, 2.5e0)"},
		{query: "SELECT id FROM " + table + " ORDER BY id", rows: column("3", "4")},
	}
}
