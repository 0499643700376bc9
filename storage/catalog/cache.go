package catalog

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Cache keeps decoded descriptors, so that a statement reads a table's catalog with point
// reads and no decoding. Whoever calls it has read the stored bytes from its own transaction;
// the cache only saves their decoding, so it is right for any transaction's view.
//
// Tables are cached by database, id, version and content: a rolled-back DDL leaves its
// descriptor in the cache under the version (and, for CREATE TABLE, the id) that the next DDL
// writes again with other content, so the version alone does not name one descriptor. The
// cache is bounded by the number of live tables. Databases are cached by id, one decoding
// each, reused only while the stored bytes are the same.
type Cache struct {
	mu sync.Mutex // a leaf lock
	m  map[cacheKey]*Decoded
	// dbs: database id → the last decoded database descriptor with its stored bytes
	// (*dbEntry).
	dbs sync.Map
}

type cacheKey struct {
	db, id  uint32
	version uint64
	sum     uint64 // xxh64 of the stored descriptor
}

// dbEntry is a decoded database descriptor and the bytes it was decoded from.
type dbEntry struct {
	raw  string
	desc Database
}

// Table returns the decoded descriptor stored as raw under (db, id) in database dbName.
func (c *Cache) Table(ctx context.Context, dbName string, db, id uint32, raw []byte) (*Decoded, error) {
	if len(raw) < 8 {
		return nil, ErrCorrupt("short table descriptor")
	}
	key := cacheKey{db: db, id: id, version: binary.BigEndian.Uint64(raw), sum: xxhash.Sum64(raw)}
	c.mu.Lock()
	t, ok := c.m[key]
	c.mu.Unlock()
	if ok && t.Schema.Schema != nil && (len(t.Schema.Schema) == 0 || t.Schema.Schema[0].DatabaseSource == dbName) {
		return t, nil
	}
	var d Table
	if err := json.Unmarshal(raw[8:], &d); err != nil {
		return nil, ErrCorrupt(err.Error())
	}
	t, err := Decode(ctx, dbName, &d)
	if err != nil {
		return nil, err
	}
	t.Digest = key.sum
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[cacheKey]*Decoded)
	}
	if len(c.m) > 4096 {
		clear(c.m)
	}
	c.m[key] = t
	c.mu.Unlock()
	return t, nil
}

// Database decodes database id's stored descriptor raw, reusing the last decoding of the same
// bytes.
func (c *Cache) Database(id uint32, raw []byte) (Database, error) {
	if e, ok := c.dbs.Load(id); ok && e.(*dbEntry).raw == string(raw) {
		return e.(*dbEntry).desc, nil
	}
	var d Database
	if err := json.Unmarshal(raw, &d); err != nil {
		return Database{}, ErrCorrupt(err.Error())
	}
	c.dbs.Store(id, &dbEntry{raw: string(raw), desc: d})
	return d, nil
}
