package integration

import (
	"strings"
	"testing"
)

// TestJoins holds the scripts of joins: the keys they match and the tables a join may hold.
func TestJoins(t *testing.T) { runScripts(t, joinScripts()) }

func joinScripts() []scriptTest {
	return []scriptTest{
		// JoinsMatchEqualValues: a join on an equality without an index is a hash join, and the
		// engine filed the inner table's rows by their Go values, so values equal in SQL but not
		// in Go missed each other: a self join on a DECIMAL column found the pairs of the first
		// row only (a DECIMAL is a pointer to its digits), a DECIMAL joined with an INT found
		// nothing, strings equal in their collation ('a', 'A') did not meet, and a join on JSON
		// failed with a panic. A join on two columns with an index on both is a merge join, which
		// compared the rows as tuples, where (NULL, NULL) equals (NULL, NULL): the row whose d and
		// i are NULL joined itself. Each join runs on a table with indexes and on one without.
		{
			name: "JoinsMatchEqualValues",
			setup: concat(
				indexedAndPlain("hi", "hn", "id INT PRIMARY KEY, d DECIMAL(8,2), e DECIMAL(12,3), i INT, s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, j JSON",
					", KEY (d), KEY (e), KEY (i), KEY (s), KEY (d, i)",
					`(1, 1.50, 1.5, 1, 'a', '{"a": 1}'), (2, 1.50, 1.5, 1, 'A', '{"a": 1}'), (3, 2.00, 2, 2, 'b', '[1]'), (4, 2.00, 2, 2, 'b ', '[1]'), (5, NULL, NULL, NULL, NULL, NULL)`),
				// A merge join on (c2, c1) compared a row whose c2 is NULL as greater than every
				// other, where the index reads it first, and lost its way: the first query of
				// these tables found nothing.
				indexedAndPlain("mi", "mn", "id INT PRIMARY KEY, c1 INT, c2 VARCHAR(10)", ", KEY (c2, c1)",
					"(1, 1, '10'), (2, 2, '10'), (3, 1, 'a'), (4, NULL, '10'), (5, 1, NULL), (6, NULL, NULL)")),
			assertions: concat(
				onTables([]string{"hi", "hn"}, []assertion{
					{query: "SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.d", rows: column("8")},
					{query: "SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.e", rows: column("8")},
					{query: "SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.i", rows: column("4")},
					{query: "SELECT COUNT(*) FROM x a JOIN x b ON a.i = b.d", rows: column("4")},
					{query: "SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.d AND a.i = b.i", rows: column("8")},
					{query: "SELECT COUNT(*), COUNT(b.id) FROM x a LEFT JOIN x b ON a.d = b.d AND a.i = b.i", rows: tsv("9\t8")},
					{query: "SELECT COUNT(*) FROM x a WHERE EXISTS (SELECT 1 FROM x b WHERE b.d = a.d AND b.id <> a.id)", rows: column("4")},
					{query: "SELECT COUNT(*) FROM x a WHERE a.d IN (SELECT b.e FROM x b WHERE b.id <> a.id)", rows: column("4")},
					{query: "SELECT (SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.d)", rows: column("8")},
					{query: "SELECT COUNT(*) FROM x a JOIN x b ON a.s = b.s", rows: column("6")}, // 'a' = 'A'; NO PAD: 'b' <> 'b '
					{query: "SELECT COUNT(*) FROM x a JOIN x b ON a.j = b.j", rows: column("8")},
				}),
				onTables([]string{"mi", "mn"}, []assertion{
					{query: "SELECT a.id, b.id FROM x a JOIN x b ON a.c2 = b.c2 AND a.c1 = b.c1 WHERE a.c2 = '10' ORDER BY a.id", rows: tsv("1\t1", "2\t2")},
					{query: "SELECT a.id, b.id FROM x a JOIN x b ON a.c2 = b.c2 AND a.c1 = b.c1 ORDER BY a.id", rows: tsv("1\t1", "2\t2", "3\t3")},
					{query: "SELECT COUNT(*), COUNT(b.id) FROM x a LEFT JOIN x b ON a.c2 = b.c2 AND a.c1 = b.c1", rows: tsv("6\t3")},
				})),
		},
		tooManyTablesScript(),
	}
}

// onTables returns each assertion, whose query names its table x, once for each table.
func onTables(tables []string, assertions []assertion) []assertion {
	var out []assertion
	for _, a := range assertions {
		for _, table := range tables {
			on := a
			on.query = strings.NewReplacer(" x ", " "+table+" ").Replace(a.query)
			out = append(out, on)
		}
	}
	return out
}
