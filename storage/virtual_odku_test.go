package storage

import (
	"testing"
)

// INSERT ... ON DUPLICATE KEY UPDATE of a row keeps the index over its virtual column right: the
// engine hands over the updated row with the old virtual value, which the editor recomputes.
func TestUpsertKeepsVirtualColumnIndex(t *testing.T) {
	_, r := memStore(t, Options{})
	for _, q := range []string{
		"CREATE TABLE v (id INT PRIMARY KEY, a INT, g INT AS (a * 2) VIRTUAL, KEY gk (g))",
		"INSERT INTO v (id, a) VALUES (1, 1)",
		"INSERT INTO v (id, a) VALUES (1, 5) ON DUPLICATE KEY UPDATE a = 7",
	} {
		r.must(q)
		r.sess.EndStatement(r.ctx, false, false)
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT id, a, g FROM v", "[[1 7 14]]"},
		{"SELECT id FROM v WHERE g = 14", "[[1]]"},
		{"SELECT id FROM v WHERE g = 2", "[]"},
		{"SELECT id FROM v IGNORE INDEX (gk) WHERE g = 14", "[[1]]"},
	} {
		got := rowsString(r.must(c.q))
		r.sess.EndStatement(r.ctx, false, false)
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.q, got, c.want)
		}
	}
}
