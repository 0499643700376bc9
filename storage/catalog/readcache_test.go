package catalog

import (
	"testing"

	"overloadsql/storage/kv"
)

func TestReadCacheGenerations(t *testing.T) {
	var c ReadCache
	key := []byte{kv.SpaceCatalog, 'x'}

	before := c.Current()
	gen, ok := c.Generation(before)
	if !ok || gen != 0 {
		t.Fatalf("a quiet catalog: generation %d, %v; want 0, true", gen, ok)
	}
	c.Put(gen, key, Entry{Val: []byte("v0"), Found: true})
	if e, ok := c.Get(0, key); !ok || string(e.Val) != "v0" {
		t.Fatalf("get in generation 0: %q, %v", e.Val, ok)
	}

	// a reader whose snapshot was taken while a change was applied may not use the cache
	before = c.Current()
	c.BeginChange()
	if _, ok := c.Generation(before); ok {
		t.Fatal("a snapshot taken as a change began may use the cache")
	}
	before = c.Current()
	if _, ok := c.Generation(before); ok {
		t.Fatal("a snapshot taken during a change may use the cache")
	}
	c.EndChange()
	if _, ok := c.Generation(before); ok {
		t.Fatal("a snapshot taken as a change ended may use the cache")
	}

	gen, ok = c.Generation(c.Current())
	if !ok || gen != 2 {
		t.Fatalf("after one change: generation %d, %v; want 2, true", gen, ok)
	}
	if _, ok := c.Get(gen, key); ok {
		t.Fatal("generation 2 sees an entry of generation 0")
	}
	c.Put(gen, key, Entry{})
	// an older reader neither reads nor replaces the newer generation's entries
	c.Put(0, key, Entry{Val: []byte("old"), Found: true})
	if _, ok := c.Get(0, key); ok {
		t.Fatal("generation 0 reads generation 2's cache")
	}
	if e, ok := c.Get(2, key); !ok || e.Found {
		t.Fatalf("generation 2's absent key: %+v, %v", e, ok)
	}

	// the cache holds at most readCacheBytes
	big := make([]byte, readCacheBytes/2)
	c.Put(2, []byte{kv.SpaceCatalog, 'a'}, Entry{Val: big, Found: true})
	c.Put(2, []byte{kv.SpaceCatalog, 'b'}, Entry{Val: big, Found: true})
	if _, ok := c.Get(2, []byte{kv.SpaceCatalog, 'b'}); ok {
		t.Fatal("the cache went over its bound")
	}
}
