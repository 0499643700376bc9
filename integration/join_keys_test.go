package integration

import (
	"slices"
	"strings"
	"testing"
)

// TestJoinsMatchEqualValues: a join on an equality without an index is a hash join, and the
// engine filed the inner table's rows by their Go values, so values equal in SQL but not in Go
// missed each other: a self join on a DECIMAL column found the pairs of the first row only (a
// DECIMAL is a pointer to its digits), a DECIMAL joined with an INT found nothing, strings equal
// in their collation ('a', 'A') did not meet, and a join on JSON failed with a panic. A join on
// two columns with an index on both is a merge join, which compared the rows as tuples, where
// (NULL, NULL) equals (NULL, NULL): the row whose d and i are NULL joined itself. Each join runs
// on a table with indexes and on one without.
func TestJoinsMatchEqualValues(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	for _, table := range []string{"hi", "hn"} {
		keys := ", KEY (d), KEY (e), KEY (i), KEY (s), KEY (d, i)"
		if table == "hn" {
			keys = ""
		}
		mustExec(t, db, "CREATE TABLE "+table+" (id INT PRIMARY KEY, d DECIMAL(8,2), e DECIMAL(12,3), i INT, "+
			"s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, j JSON"+keys+")",
			"INSERT INTO "+table+` VALUES (1, 1.50, 1.5, 1, 'a', '{"a": 1}'), (2, 1.50, 1.5, 1, 'A', '{"a": 1}'),`+
				` (3, 2.00, 2, 2, 'b', '[1]'), (4, 2.00, 2, 2, 'b ', '[1]'), (5, NULL, NULL, NULL, NULL, NULL)`)
	}
	for _, c := range []struct {
		query string // on table x
		want  string // COUNT(*)
	}{
		{"SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.d", "8"},
		{"SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.e", "8"},
		{"SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.i", "4"},
		{"SELECT COUNT(*) FROM x a JOIN x b ON a.i = b.d", "4"},
		{"SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.d AND a.i = b.i", "8"},
		{"SELECT COUNT(*), COUNT(b.id) FROM x a LEFT JOIN x b ON a.d = b.d AND a.i = b.i", "9\t8"},
		{"SELECT COUNT(*) FROM x a WHERE EXISTS (SELECT 1 FROM x b WHERE b.d = a.d AND b.id <> a.id)", "4"},
		{"SELECT COUNT(*) FROM x a WHERE a.d IN (SELECT b.e FROM x b WHERE b.id <> a.id)", "4"},
		{"SELECT (SELECT COUNT(*) FROM x a JOIN x b ON a.d = b.d)", "8"},
		{"SELECT COUNT(*) FROM x a JOIN x b ON a.s = b.s", "6"}, // 'a' = 'A'; NO PAD: 'b' <> 'b '
		{"SELECT COUNT(*) FROM x a JOIN x b ON a.j = b.j", "8"},
	} {
		for _, table := range []string{"hi", "hn"} {
			q := replaceTable(c.query, table)
			if got := queryStrings(t, db, q); len(got) != 1 || got[0] != c.want {
				t.Errorf("%s: %q, want %s", q, got, c.want)
			}
		}
	}

	// A merge join on (c2, c1) compared a row whose c2 is NULL as greater than every other, where
	// the index reads it first, and lost its way: the first query found nothing.
	for _, table := range []string{"mi", "mn"} {
		keys := ", KEY (c2, c1)"
		if table == "mn" {
			keys = ""
		}
		mustExec(t, db, "CREATE TABLE "+table+" (id INT PRIMARY KEY, c1 INT, c2 VARCHAR(10)"+keys+")",
			"INSERT INTO "+table+" VALUES (1, 1, '10'), (2, 2, '10'), (3, 1, 'a'), (4, NULL, '10'), (5, 1, NULL), (6, NULL, NULL)")
	}
	for _, c := range []struct {
		query string // on table x
		want  []string
	}{
		{"SELECT a.id, b.id FROM x a JOIN x b ON a.c2 = b.c2 AND a.c1 = b.c1 WHERE a.c2 = '10' ORDER BY a.id", []string{"1\t1", "2\t2"}},
		{"SELECT a.id, b.id FROM x a JOIN x b ON a.c2 = b.c2 AND a.c1 = b.c1 ORDER BY a.id", []string{"1\t1", "2\t2", "3\t3"}},
		{"SELECT COUNT(*), COUNT(b.id) FROM x a LEFT JOIN x b ON a.c2 = b.c2 AND a.c1 = b.c1", []string{"6\t3"}},
	} {
		for _, table := range []string{"mi", "mn"} {
			q := replaceTable(c.query, table)
			if got := queryStrings(t, db, q); !slices.Equal(got, c.want) {
				t.Errorf("%s: %q, want %q", q, got, c.want)
			}
		}
	}
}

// replaceTable is query with its table x named table.
func replaceTable(query, table string) string {
	return strings.NewReplacer(" x ", " "+table+" ").Replace(query)
}
