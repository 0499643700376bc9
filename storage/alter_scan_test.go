package storage

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// A failed ALTER TABLE leaves no iterator open: the engine does not close its scan of the table
// when the index build or the rewrite fails, and the transaction's end closes it (Pebble's
// Close reports leaked iterators).
func TestFailedAlterLeavesNoOpenIterator(t *testing.T) {
	s, err := Open("d", Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, s, "main")
	for _, q := range []string{
		"CREATE TABLE sf (id INT PRIMARY KEY, k INT, c INT, x INT, s VARCHAR(5), KEY kk (k), KEY kcx (c, x))",
		"INSERT INTO sf VALUES (1, 1, 1, 5, 'a'), (2, 2, 2, 5, 'b')",
		"ALTER TABLE sf RENAME COLUMN k TO k2, ADD UNIQUE KEY ux (x)",
		"ALTER TABLE sf DROP COLUMN c, ADD UNIQUE KEY ux (x)",
		"ALTER TABLE sf DROP INDEX kk, ADD UNIQUE KEY ux (x)",
		"ALTER TABLE sf ADD INDEX kn (s), MODIFY s INT",
		"ALTER TABLE sf CHANGE c c3 BIGINT, MODIFY s INT",
	} {
		_, err := r.exec(q)
		if (err != nil) != strings.HasPrefix(q, "ALTER") {
			t.Errorf("%s: %v", q, err)
		}
		r.sess.EndStatement(r.ctx, err != nil, false)
	}
	r.close()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}
