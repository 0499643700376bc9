package storage

import (
	"testing"

	"overloadsql/storage/kv"
)

// TestPointReadMatchesScan: a lookup that names every primary-key column is a point read;
// its rows are those of the same filter over a full scan.
func TestPointReadMatchesScan(t *testing.T) {
	_, r := memStore(t, Options{Sync: kv.SyncNone})
	r.must("CREATE TABLE p (a INT, b VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, v INT, PRIMARY KEY (a, b))")
	r.must("INSERT INTO p VALUES (1, 'x', 1), (1, 'xy', 2), (2, 'X', 3), (2, 'y', 4), (3, '', 5)")
	r.must("CREATE TABLE q (id BIGINT PRIMARY KEY, v INT)")
	r.must("INSERT INTO q VALUES (1, 10), (2, 20), (-3, 30)")
	for _, c := range []struct{ indexed, scan string }{
		{"SELECT v FROM p WHERE a = 1 AND b = 'x' ORDER BY v", "SELECT v FROM p WHERE a+0 = 1 AND concat(b) = 'x' ORDER BY v"},
		{"SELECT v FROM p WHERE a = 2 AND b = 'x' ORDER BY v", "SELECT v FROM p WHERE a+0 = 2 AND lower(b) = 'x' ORDER BY v"},
		{"SELECT v FROM p WHERE (a, b) IN ((1, 'xy'), (1, 'xy'), (3, '')) ORDER BY v", "SELECT v FROM p WHERE v IN (2, 5) ORDER BY v"},
		{"SELECT v FROM p WHERE a = 1 ORDER BY v", "SELECT v FROM p WHERE a+0 = 1 ORDER BY v"},
		{"SELECT v FROM q WHERE id = 2", "SELECT v FROM q WHERE id+0 = 2"},
		{"SELECT v FROM q WHERE id = -3", "SELECT v FROM q WHERE id+0 = -3"},
		{"SELECT v FROM q WHERE id = 1.5", "SELECT v FROM q WHERE id+0 = 1.5"},
		{"SELECT v FROM q WHERE id IN (1, 2, 1, 7) ORDER BY v", "SELECT v FROM q WHERE id+0 IN (1, 2) ORDER BY v"},
		{"SELECT v FROM q WHERE id = 9", "SELECT v FROM q WHERE id+0 = 9"},
	} {
		if got, want := rowsString(r.must(c.indexed)), rowsString(r.must(c.scan)); got != want {
			t.Errorf("%s = %s, want %s", c.indexed, got, want)
		}
	}
	// inside a transaction the point read sees the transaction's own writes
	r.must("BEGIN")
	r.must("UPDATE q SET v = 21 WHERE id = 2")
	if got := rowsString(r.must("SELECT v FROM q WHERE id = 2")); got != "[[21]]" {
		t.Errorf("own write: %s", got)
	}
	r.must("ROLLBACK")
	if got := rowsString(r.must("SELECT v FROM q WHERE id = 2")); got != "[[20]]" {
		t.Errorf("after rollback: %s", got)
	}
}
