package storage

import (
	"sync"
	"sync/atomic"
)

// catalogCacheBytes bounds what catalogCache holds (keys and values); past it, reads go to
// Pebble.
const catalogCacheBytes = 8 << 20

// catalogCache keeps the committed catalog's point reads (names, descriptors, views, triggers,
// procedures: keys of spaceCatalog, found or not) for the readers of one catalog generation.
//
// The generation is a sequence count: a commit that changes the catalog makes it odd before
// its batch is applied and even again after. A reader that reads the same even generation
// before and after it takes its snapshot knows that its snapshot holds exactly that
// generation's catalog, and may use and fill the entries of that generation. Any other
// reader, and every writer (it reads its batch), reads Pebble. The cache holds one
// generation at a time: a reader of a newer one empties it.
type catalogCache struct {
	gen atomic.Uint64

	mu   sync.RWMutex // a leaf lock
	of   uint64       // the generation m holds
	m    map[string]catalogEntry
	size int
}

// catalogEntry is a cached read: the value, or found false for a key that is absent.
type catalogEntry struct {
	val   []byte
	found bool
}

// beginChange and endChange bracket the apply of a batch that changes the catalog.
func (c *catalogCache) beginChange() { c.gen.Add(1) }
func (c *catalogCache) endChange()   { c.gen.Add(1) }

// generation is the catalog generation a reader may cache under, read before (before) and
// after its snapshot was taken; ok is false while a catalog change was in flight.
func (c *catalogCache) generation(before uint64) (gen uint64, ok bool) {
	after := c.gen.Load()
	return after, before == after && after%2 == 0
}

// get is key's cached read in generation gen. The value must not be modified.
func (c *catalogCache) get(gen uint64, key []byte) (catalogEntry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.of != gen {
		return catalogEntry{}, false
	}
	e, ok := c.m[string(key)]
	return e, ok
}

// put keeps key's read in generation gen, unless a newer generation is cached or the cache
// is full.
func (c *catalogCache) put(gen uint64, key []byte, e catalogEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.of > gen || (c.of == gen && c.m != nil && c.size+len(key)+len(e.val) > catalogCacheBytes) {
		return
	}
	if c.of < gen || c.m == nil {
		c.of, c.m, c.size = gen, make(map[string]catalogEntry), 0
	}
	c.m[string(key)] = e
	c.size += len(key) + len(e.val)
}
