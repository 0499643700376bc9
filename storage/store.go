package storage

import (
	"encoding/binary"
	"encoding/json"
	"sync"
	"time"

	"overloadsql/storage/catalog"
	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// Options configure a Store. The zero value is usable.
type Options struct {
	// FS, CacheBytes, MemTableBytes, Sync, SyncInterval, OnSyncError, DiskReserveBytes and
	// OnDiskFull configure the Pebble store: kv.Options has their meaning and defaults.
	FS               vfs.FS
	CacheBytes       int64
	MemTableBytes    int64
	Sync             kv.SyncMode
	SyncInterval     time.Duration
	OnSyncError      func(error)
	DiskReserveBytes int64
	OnDiskFull       func(full bool)

	// MaxTransactionBytes bounds what one transaction may write, its undo log included
	// (default 256 MiB). A transaction that goes beyond fails with error 1197 and is rolled back.
	MaxTransactionBytes int64
	// WriteLock orders the writers; nil gives the store's own (NewWriteLock).
	WriteLock WriteLock
	// LockWaitTimeout bounds the wait of the store's own lock when the session has no
	// innodb_lock_wait_timeout (default 50 s).
	LockWaitTimeout time.Duration
	// NoMainDatabase leaves out the database main that a new store is created with.
	NoMainDatabase bool
	// PreciseLookups tells the engine that an index lookup returns exactly the rows of its
	// ranges, so that it drops the filters the ranges cover. Set it only under an analyzer
	// that corrects the engine's comparisons (package engine): without them the engine's
	// ranges are not its filters' (`h IN (1, -1e-300)` on a TINYINT, `b <=> 'A'` on a
	// case-insensitive column), and the filter it keeps is what makes a lookup right.
	PreciseLookups bool
}

func (o *Options) defaults() {
	if o.MaxTransactionBytes <= 0 {
		o.MaxTransactionBytes = 256 << 20
	}
	if o.LockWaitTimeout <= 0 {
		o.LockWaitTimeout = 50 * time.Second
	}
}

// Store is one open data directory: the Pebble store (package kv) plus what every session
// shares.
type Store struct {
	kv   *kv.Store
	opts Options

	writeLock WriteLock
	// descs: decoded table and database descriptors.
	descs catalog.Cache
	// catalogReads: the committed catalog's point reads, for snapshot readers.
	catalogReads catalog.ReadCache

	// mu guards the counters below; it is a leaf lock.
	mu      sync.Mutex
	autoInc map[uint32]uint64 // table id → next AUTO_INCREMENT value (never rolled back)
	rowIDs  map[uint32]uint64 // keyless table id → next hidden row id
	// rowSizes: table id → the average size of a row, sampled once (DataLength).
	rowSizes sync.Map
}

// Open opens (or creates) the store in dir. Its errors are kv's (kv.ErrLocked and the others).
func Open(dir string, opts Options) (*Store, error) {
	opts.defaults()
	s := &Store{opts: opts, autoInc: map[uint32]uint64{}, rowIDs: map[uint32]uint64{}}
	s.writeLock = opts.WriteLock
	if s.writeLock == nil {
		s.writeLock = NewWriteLock(opts.LockWaitTimeout)
	}
	store, err := kv.Open(dir, kv.Options{
		FS:               opts.FS,
		CacheBytes:       opts.CacheBytes,
		MemTableBytes:    opts.MemTableBytes,
		Sync:             opts.Sync,
		SyncInterval:     opts.SyncInterval,
		OnSyncError:      opts.OnSyncError,
		DiskReserveBytes: opts.DiskReserveBytes,
		OnDiskFull:       opts.OnDiskFull,
		Bootstrap:        s.bootstrap,
	})
	if err != nil {
		return nil, err
	}
	s.kv = store
	return s, nil
}

// bootstrap adds a new store's catalog to the batch of its format record: the id counters and
// the database main.
func (s *Store) bootstrap(b *pebble.Batch) error {
	if !s.opts.NoMainDatabase {
		d := catalog.Database{ID: 1, Name: "main", Collation: sql.Collation_Default}
		raw, _ := json.Marshal(d)
		_ = b.Set(kv.DBDescKey(1), raw, nil)
		_ = b.Set(kv.DBNameKey("main"), binary.BigEndian.AppendUint32(nil, 1), nil)
	}
	_ = b.Set(kv.KeyNextDB, binary.BigEndian.AppendUint64(nil, 2), nil)
	_ = b.Set(kv.KeyNextTable, binary.BigEndian.AppendUint64(nil, 1), nil)
	return nil
}

// deleteTableData removes a table id's rows, index entries and counters, and forgets its
// counters in memory. The id is no longer named by any committed descriptor.
func (s *Store) deleteTableData(tid uint32) error {
	if err := s.kv.Broken(); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.autoInc, tid)
	delete(s.rowIDs, tid)
	s.mu.Unlock()
	return s.kv.DeleteTableData(tid)
}

// Close syncs and closes the store. Open transactions must have ended.
func (s *Store) Close() error { return s.kv.Close() }

// Observe reads the store's monitoring values (kv.Store.Observe).
func (s *Store) Observe() kv.Observation { return s.kv.Observe() }

// Metrics returns Pebble's metrics (block cache, memtables, compactions, levels, WAL).
func (s *Store) Metrics() *pebble.Metrics { return s.kv.Metrics() }

// Flush writes the memtables out; tests use it to exercise the on-disk paths.
func (s *Store) Flush() error { return s.kv.Flush() }

// Checkpoint writes a consistent copy of the store into dir (which must not exist), for an
// online backup: a store opened on dir has the data of the last commit before the call.
func (s *Store) Checkpoint(dir string) error { return s.kv.Checkpoint(dir) }

// DiskFull reports whether the store refuses writes because its disk is full.
func (s *Store) DiskFull() bool { return s.kv.DiskFull() }
