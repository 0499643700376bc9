package storage

import (
	"strings"
	"testing"

	"overloadsql/storage/kv"
)

func TestCatalogCacheGenerations(t *testing.T) {
	var c catalogCache
	key := []byte{kv.SpaceCatalog, 'x'}

	before := c.gen.Load()
	gen, ok := c.generation(before)
	if !ok || gen != 0 {
		t.Fatalf("a quiet catalog: generation %d, %v; want 0, true", gen, ok)
	}
	c.put(gen, key, catalogEntry{val: []byte("v0"), found: true})
	if e, ok := c.get(0, key); !ok || string(e.val) != "v0" {
		t.Fatalf("get in generation 0: %q, %v", e.val, ok)
	}

	// a reader whose snapshot was taken while a change was applied may not use the cache
	before = c.gen.Load()
	c.beginChange()
	if _, ok := c.generation(before); ok {
		t.Fatal("a snapshot taken as a change began may use the cache")
	}
	before = c.gen.Load()
	if _, ok := c.generation(before); ok {
		t.Fatal("a snapshot taken during a change may use the cache")
	}
	c.endChange()
	if _, ok := c.generation(before); ok {
		t.Fatal("a snapshot taken as a change ended may use the cache")
	}

	gen, ok = c.generation(c.gen.Load())
	if !ok || gen != 2 {
		t.Fatalf("after one change: generation %d, %v; want 2, true", gen, ok)
	}
	if _, ok := c.get(gen, key); ok {
		t.Fatal("generation 2 sees an entry of generation 0")
	}
	c.put(gen, key, catalogEntry{})
	// an older reader neither reads nor replaces the newer generation's entries
	c.put(0, key, catalogEntry{val: []byte("old"), found: true})
	if _, ok := c.get(0, key); ok {
		t.Fatal("generation 0 reads generation 2's cache")
	}
	if e, ok := c.get(2, key); !ok || e.found {
		t.Fatalf("generation 2's absent key: %+v, %v", e, ok)
	}

	// the cache holds at most catalogCacheBytes
	big := make([]byte, catalogCacheBytes/2)
	c.put(2, []byte{kv.SpaceCatalog, 'a'}, catalogEntry{val: big, found: true})
	c.put(2, []byte{kv.SpaceCatalog, 'b'}, catalogEntry{val: big, found: true})
	if _, ok := c.get(2, []byte{kv.SpaceCatalog, 'b'}); ok {
		t.Fatal("the cache went over its bound")
	}
}

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
