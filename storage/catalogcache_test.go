package storage

import (
	"strings"
	"testing"
)

// TestCatalogCacheFollowsSnapshots: a transaction's snapshot sees its own catalog, whatever
// newer readers have cached, and a reader after a DDL commit never sees the catalog before it.
func TestCatalogCacheFollowsSnapshots(t *testing.T) {
	s, a := memStore(t, Options{})
	b := newRunner(t, s, "main")
	t.Cleanup(b.close)
	b.must("CREATE TABLE t (id INT PRIMARY KEY)")
	b.must("INSERT INTO t VALUES (1)")

	a.must("START TRANSACTION")
	if got := rowsString(a.must("SELECT id FROM t")); got != "[[1]]" {
		t.Fatalf("a's first read: %s", got)
	}

	b.must("CREATE TABLE t2 (id INT PRIMARY KEY)")
	b.must("SELECT id FROM t2") // fills the cache for the generation after the CREATE
	if _, err := a.exec("SELECT id FROM t2"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("a's snapshot, from before CREATE TABLE t2, reads t2: %v", err)
	}
	b.must("CREATE VIEW v AS SELECT id FROM t")
	b.must("SELECT id FROM v")
	if _, err := a.exec("SELECT id FROM v"); err == nil {
		t.Fatal("a's snapshot reads a view created after it")
	}
	a.must("COMMIT")

	b.must("DROP TABLE t2")
	for _, r := range []*runner{a, b} {
		if _, err := r.exec("SELECT id FROM t2"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("a read after DROP TABLE t2 reads t2: %v", err)
		}
	}
	b.must("ALTER TABLE t ADD COLUMN c INT")
	if got := rowsString(a.must("SELECT id, c FROM t")); got != "[[1 <nil>]]" {
		t.Fatalf("a read after ALTER TABLE: %s", got)
	}
}
