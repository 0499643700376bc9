package catalog

import (
	"sync"
	"sync/atomic"
)

// readCacheBytes bounds what a ReadCache holds (keys and values); past it, reads go to Pebble.
const readCacheBytes = 8 << 20

// ReadCache keeps the committed catalog's point reads (names, descriptors, views, triggers,
// procedures: keys of kv.SpaceCatalog, found or not) for the readers of one catalog
// generation.
//
// The generation is a sequence count: a commit that changes the catalog makes it odd before
// its batch is applied and even again after (BeginChange, EndChange). A reader that reads the
// same even generation before and after it takes its snapshot knows that its snapshot holds
// exactly that generation's catalog, and may use and fill the entries of that generation. Any
// other reader, and every writer (it reads its batch), reads Pebble. The cache holds one
// generation at a time: a reader of a newer one empties it.
type ReadCache struct {
	gen atomic.Uint64

	mu   sync.RWMutex // a leaf lock
	of   uint64       // the generation m holds
	m    map[string]Entry
	size int
}

// Entry is a cached read: the value, or Found false for a key that is absent.
type Entry struct {
	Val   []byte
	Found bool
}

// BeginChange and EndChange bracket the apply of a batch that changes the catalog.
func (c *ReadCache) BeginChange() { c.gen.Add(1) }
func (c *ReadCache) EndChange()   { c.gen.Add(1) }

// Current is the generation count now; a reader reads it before it takes its snapshot and
// hands it to Generation after.
func (c *ReadCache) Current() uint64 { return c.gen.Load() }

// Generation is the catalog generation a reader may cache under, read before (before) and
// after its snapshot was taken; ok is false while a catalog change was in flight.
func (c *ReadCache) Generation(before uint64) (gen uint64, ok bool) {
	after := c.gen.Load()
	return after, before == after && after%2 == 0
}

// Get is key's cached read in generation gen. The value must not be modified.
func (c *ReadCache) Get(gen uint64, key []byte) (Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.of != gen {
		return Entry{}, false
	}
	e, ok := c.m[string(key)]
	return e, ok
}

// Put keeps key's read in generation gen, unless a newer generation is cached or the cache is
// full. The cache keeps e.Val: the caller must not modify it.
func (c *ReadCache) Put(gen uint64, key []byte, e Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.of > gen || (c.of == gen && c.m != nil && c.size+len(key)+len(e.Val) > readCacheBytes) {
		return
	}
	if c.of < gen || c.m == nil {
		c.of, c.m, c.size = gen, make(map[string]Entry), 0
	}
	c.m[string(key)] = e
	c.size += len(key) + len(e.Val)
}
