package integration

import "testing"

// TestColumnNames holds the scripts of set operations and derived tables whose columns repeat
// a name.
func TestColumnNames(t *testing.T) { runScripts(t, columnNameScripts) }

// threeUnions is a union of three SELECTs that each name a twice.
const threeUnions = "SELECT a, a FROM t UNION SELECT a, a FROM t UNION SELECT a, a FROM t"

var columnNameScripts = []scriptTest{
	// UnionRepeatingAColumn: a set operation of three SELECTs or more whose first SELECT (or the
	// first SELECT of any nested part, such as the second half of a chain the server balances)
	// names one column twice without alias failed with 1105 "internal error: runtime error: index
	// out of range [1] with length 1" in the engine's planner; MySQL returns the rows, the
	// columns named as written.
	{
		name: "UnionRepeatingAColumn",
		setup: []string{
			"CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (1, 2), (3, 4)",
			"CREATE TABLE u (a INT, c INT)", "INSERT INTO u VALUES (5, 6)",
		},
		assertions: []assertion{
			{query: "SELECT a, a FROM t UNION SELECT a, a FROM t", rows: tsv("1\t1", "3\t3")},
			{query: "SELECT 1, 1 UNION SELECT 2, 2 UNION SELECT 3, 3", rows: tsv("1\t1", "2\t2", "3\t3")},
			{query: threeUnions, rows: tsv("1\t1", "3\t3"), columns: []string{"a", "a"}},
			{query: threeUnions + " ORDER BY 1 DESC", rows: tsv("3\t3", "1\t1")},
			{query: threeUnions + " ORDER BY a DESC LIMIT 1", rows: tsv("3\t3")},
			{query: "SELECT a, a FROM t UNION ALL SELECT a, a FROM t UNION ALL SELECT a, a FROM u ORDER BY 1",
				rows: tsv("1\t1", "1\t1", "3\t3", "3\t3", "5\t5")},
			{query: "SELECT DISTINCT a, a FROM t UNION ALL SELECT DISTINCT a, a FROM u UNION ALL SELECT a, a FROM u ORDER BY 1",
				rows: tsv("1\t1", "3\t3", "5\t5", "5\t5")},
			{query: "(SELECT a, a FROM t UNION SELECT a, a FROM t) UNION SELECT a, a FROM u ORDER BY 1", rows: tsv("1\t1", "3\t3", "5\t5")},
			{query: "SELECT a, a FROM u UNION (SELECT a, a FROM t UNION SELECT a, a FROM t) ORDER BY 1", rows: tsv("1\t1", "3\t3", "5\t5")},
			{query: "SELECT a, a + 0 FROM t UNION SELECT a, a FROM t UNION SELECT a, c FROM u ORDER BY 1", rows: tsv("1\t1", "3\t3", "5\t6")},
			{query: "SELECT t.a, a FROM t UNION ALL SELECT a, A FROM u UNION ALL SELECT a, t.a FROM t ORDER BY 1",
				rows: tsv("1\t1", "1\t1", "3\t3", "3\t3", "5\t5")},
			{query: "SELECT *, a FROM t UNION SELECT *, a FROM t UNION SELECT a, c, a FROM u ORDER BY 1",
				rows: tsv("1\t2\t1", "3\t4\t3", "5\t6\t5")},
			{query: "SELECT a, a FROM t INTERSECT SELECT a, a FROM t INTERSECT SELECT a, a FROM t ORDER BY 1", rows: tsv("1\t1", "3\t3")},
			{query: "SELECT a, a FROM t EXCEPT SELECT a, a FROM u EXCEPT SELECT a, a FROM u ORDER BY 1", rows: tsv("1\t1", "3\t3")},
			{query: "SELECT a, a FROM t UNION SELECT a, a FROM u EXCEPT SELECT a, a FROM u ORDER BY 1", rows: tsv("1\t1", "3\t3")},
			{query: "SELECT COUNT(*) FROM (SELECT a, a AS x FROM t UNION ALL SELECT a, a FROM t UNION ALL SELECT a, a FROM t) d", rows: column("6")},
			{query: "SELECT a FROM t WHERE (a, a) IN (" + threeUnions + ") ORDER BY a", rows: column("1", "3")},
			{query: "WITH c AS (SELECT a, a AS x FROM t UNION SELECT a, a FROM t UNION SELECT a, a FROM t) SELECT * FROM c ORDER BY a", rows: tsv("1\t1", "3\t3")},
			// A view keeps the statement's text: it is read again with each use.
			{query: "CREATE VIEW vu AS SELECT a, a AS x FROM t UNION ALL SELECT a, a FROM t UNION ALL SELECT a, a FROM u"},
			{query: "SELECT x FROM vu ORDER BY x", rows: column("1", "1", "3", "3", "5")},
		},
	},

	// DerivedTablesNameTheirColumnsOnce: MySQL refuses a derived table, a common table
	// expression or a view whose columns do not have distinct names with 1060 (42S21) "Duplicate
	// column name 'a'". The engine took them: SELECT * FROM (SELECT a, a FROM t UNION ...) d
	// returned two columns a, a view made so was created and reading its column failed with 1105
	// (ambiguous column name).
	{
		name:  "DerivedTablesNameTheirColumnsOnce",
		setup: []string{"CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (1, 2), (3, 4)"},
		assertions: append(duplicateColumns(
			[2]string{"SELECT * FROM (SELECT a, a FROM t) d", "a"},
			[2]string{"SELECT * FROM (SELECT a, a FROM t UNION SELECT a, a FROM t) d", "a"},
			[2]string{"SELECT COUNT(*) FROM (SELECT a, A FROM t) d", "A"},
			[2]string{"SELECT * FROM (SELECT 1, 1) d", "1"},
			[2]string{"SELECT * FROM (SELECT * FROM t x JOIN t y ON x.a = y.a) d", "a"},
			[2]string{"WITH c AS (SELECT a, a FROM t) SELECT * FROM c", "a"},
			[2]string{"WITH RECURSIVE r AS (SELECT 1, 1 UNION ALL SELECT 2, 2) SELECT * FROM r", "1"},
			[2]string{"SELECT (SELECT COUNT(*) FROM (SELECT a, a FROM t) d)", "a"},
			[2]string{"CREATE VIEW v AS SELECT a, a FROM t UNION SELECT a, a FROM t", "a"},
			[2]string{"CREATE VIEW v (x, x) AS SELECT 1, 2", "x"},
			[2]string{"INSERT INTO t SELECT * FROM (SELECT 5, 5) d", "5"},
		),
			assertion{query: "CREATE VIEW w (x, y) AS SELECT a, a FROM t UNION SELECT a, a FROM t"},
			assertion{query: "SELECT * FROM (SELECT a, a AS x FROM t) d ORDER BY a", rows: tsv("1\t1", "3\t3")},
			assertion{query: "SELECT y FROM (SELECT a, a FROM t) d (x, y) ORDER BY y", rows: column("1", "3")},
			assertion{query: "WITH c (x, y) AS (SELECT a, a FROM t) SELECT y FROM c ORDER BY y", rows: column("1", "3")},
			assertion{query: "SELECT y FROM w ORDER BY y", rows: column("1", "3")},
			assertion{query: "SELECT a, a FROM t ORDER BY a", rows: tsv("1\t1", "3\t3")},
		),
	},
}

// duplicateColumns asserts that each statement fails with 1060 (42S21) "Duplicate column name"
// quoting the name that follows it.
func duplicateColumns(cases ...[2]string) []assertion {
	out := make([]assertion, len(cases))
	for i, c := range cases {
		out[i] = assertion{query: c[0], err: 1060, state: "42S21", message: "Duplicate column name '" + c[1] + "'"}
	}
	return out
}
