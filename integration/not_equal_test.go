package integration

import (
	"slices"
	"testing"
)

// TestDecimalNotEqual: with an index on d DECIMAL, `d <> 0.25` returned the rows holding 0.25:
// the engine's range builder took 0.25 for a value no row holds, as for an integer column, read
// every row but the NULLs and dropped the condition. Each condition runs on a table with an
// index and on one without.
func TestDecimalNotEqual(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	for _, table := range []string{"ni", "nn"} {
		keys := ", KEY (d)"
		if table == "nn" {
			keys = ""
		}
		execAll(t, db, "CREATE TABLE "+table+" (id INT PRIMARY KEY, d DECIMAL(12,3)"+keys+")",
			"INSERT INTO "+table+" VALUES (1, 0.010), (2, 0.25), (3, 1.5), (4, NULL), (5, -1), (6, 2.25)")
	}
	for _, c := range []struct {
		where string
		want  []string // ids
	}{
		{"d <> 0.25", []string{"1", "3", "5", "6"}},
		{"d != 0.01", []string{"2", "3", "5", "6"}},
		{"NOT (d = 0.01)", []string{"2", "3", "5", "6"}},
		{"0.25 <> d", []string{"1", "3", "5", "6"}},
		{"d <> 2.25", []string{"1", "2", "3", "5"}},
		{"d <> 0.01 AND d >= 0", []string{"2", "3", "6"}},
		{"d <> 7", []string{"1", "2", "3", "5", "6"}},
	} {
		for _, table := range []string{"ni", "nn"} {
			q := "SELECT id FROM " + table + " WHERE " + c.where + " ORDER BY id"
			if got := queryStrings(t, db, q); !slices.Equal(got, c.want) {
				t.Errorf("%s: %q, want %q", q, got, c.want)
			}
		}
	}
}
