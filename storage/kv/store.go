package kv

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// FormatVersion is the version of the key layout, the row codec and the catalog. A data
// directory written with a newer version is refused (ErrNewerFormat); an older one is upgraded
// when a newer version exists.
const FormatVersion = 1

// pebbleFormat is the Pebble on-disk format the store writes. It is pinned so that a Pebble
// upgrade does not change the files without a deliberate step.
const pebbleFormat = pebble.FormatTableFormatV6

// SyncMode says when a commit reaches the disk.
type SyncMode int

const (
	// SyncCommit syncs the write-ahead log at every commit before it is acknowledged: an
	// acknowledged commit survives a crash or a power loss.
	SyncCommit SyncMode = iota
	// SyncNone acknowledges a commit once it is in the log's memory and syncs the log every
	// SyncInterval: a crash may lose the commits of the last interval, never part of one.
	// A commit that changed the catalog (DDL) is synced all the same.
	SyncNone
)

// Options configure a Store. The zero value is usable.
type Options struct {
	// FS is the filesystem; nil is the operating system's. Tests use vfs.NewMem or
	// vfs.NewCrashableMem.
	FS vfs.FS
	// CacheBytes is the size of the block cache (default 64 MiB). In a cgo build it is C
	// memory, outside the Go heap.
	CacheBytes int64
	// MemTableBytes is the size of one memtable (default 16 MiB; two may be queued).
	MemTableBytes int64
	// Sync is the durability of commits.
	Sync SyncMode
	// SyncInterval is the log sync period under SyncNone (default 1 s).
	SyncInterval time.Duration
	// OnSyncError is called when a log sync fails after its commit became visible: the data
	// may not be durable and the process should stop. nil panics.
	OnSyncError func(error)
	// DiskReserveBytes is the size of the space reserve kept in the data directory (default
	// 64 MiB; negative: none). A write that finds the disk full frees it and the store refuses
	// writes until the filesystem has room for the reserve twice over (diskspace.go).
	DiskReserveBytes int64
	// OnDiskFull is called when the store begins refusing writes for a full disk (true) and
	// when it takes writes again (false).
	OnDiskFull func(full bool)
	// Bootstrap adds a new store's first records to the batch that writes its format record,
	// so that a store exists whole or not at all. nil adds none.
	Bootstrap func(b *pebble.Batch) error
}

func (o *Options) defaults() {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = 64 << 20
	}
	if o.MemTableBytes <= 0 {
		o.MemTableBytes = 16 << 20
	}
	if o.SyncInterval <= 0 {
		o.SyncInterval = time.Second
	}
	if o.DiskReserveBytes == 0 {
		o.DiskReserveBytes = 64 << 20
	}
}

// Errors of Open.
var (
	// ErrLocked: another process (or Store) has the data directory open.
	ErrLocked = errors.New("storage: the data directory is in use by another server")
	// ErrNewerFormat: the data directory was written by a newer version of the server.
	ErrNewerFormat = errors.New("storage: the data directory has a newer format than this server reads")
	// ErrNotDataDir: the directory holds files that are not a store.
	ErrNotDataDir = errors.New("storage: the directory is not a data directory")
	// ErrCorrupt: the store's files are damaged.
	ErrCorrupt = errors.New("storage: the data directory is corrupt")
	// ErrUnwritable: the directory cannot be created, locked or written.
	ErrUnwritable = errors.New("storage: the data directory is not writable")
)

// Store is one open data directory: the Pebble database, its lock, its space reserve and its
// durability.
type Store struct {
	db    *pebble.DB
	lock  *pebble.Lock
	cache interface{ Unref() }
	opts  Options
	dir   string

	stop chan struct{}
	wg   sync.WaitGroup

	// space keeps the space reserve and the disk-full state; broken is set when Pebble's log
	// failed a commit (diskspace.go).
	space  *diskSpace
	broken atomic.Pointer[error]
	// wedged: a panic of Pebble's commit path left its commit pipeline locked, so Close must
	// not wait for it.
	wedged atomic.Bool

	stats Stats
}

// Stats are counters of the store's activity. The store counts the write stalls; the
// transactions above it count the rest.
type Stats struct {
	Commits, Rollbacks, StatementRollbacks, SavepointRollbacks atomic.Int64
	// LockWaitNanos and LockHoldNanos sum the write lock's waits and holds.
	LockWaitNanos, LockHoldNanos atomic.Int64
	// WriteStalls counts Pebble's write stalls; WriteStallNanos sums their lengths.
	WriteStalls, WriteStallNanos atomic.Int64
}

type formatRecord struct {
	Version      int               `json:"version"`
	PebbleFormat uint64            `json:"pebbleFormat"`
	Collations   map[string]uint64 `json:"collations,omitempty"`
}

// Open opens (or creates) the store in dir. It deletes what a crash left of dropped tables'
// data (RemoveOrphans) before it returns.
func Open(dir string, opts Options) (*Store, error) {
	opts.defaults()
	fs := opts.FS
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnwritable, dir, err)
	}
	exists, err := isStore(fs, dir)
	if err != nil {
		return nil, err
	}
	lock, err := pebble.LockDirectory(dir, fs)
	if err != nil {
		if os.IsPermission(errors.Unwrap(err)) || os.IsPermission(err) || strings.Contains(err.Error(), "permission denied") || strings.Contains(err.Error(), "read-only") {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnwritable, dir, err)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrLocked, dir, err)
	}
	cache := pebble.NewCache(opts.CacheBytes)
	s := &Store{lock: lock, cache: cache, opts: opts, dir: dir, stop: make(chan struct{})}
	s.space = newDiskSpace(fs, dir, max(opts.DiskReserveBytes, 0), opts.OnDiskFull)
	po := &pebble.Options{
		EventListener:               stallListener(&s.stats),
		FS:                          vfs.OnDiskFull(fs, s.space.exhausted),
		Cache:                       cache,
		Lock:                        lock,
		FormatMajorVersion:          pebbleFormat,
		ErrorIfNotExists:            exists,
		MemTableSize:                uint64(opts.MemTableBytes),
		MemTableStopWritesThreshold: 4,
		Logger:                      quietLogger{s},
	}
	po.CompactionConcurrencyRange = func() (int, int) { return 1, 1 }
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	po.EnsureDefaults()
	db, err := pebble.Open(dir, po)
	if err != nil {
		cache.Unref()
		_ = lock.Close()
		if strings.Contains(err.Error(), "permission denied") || strings.Contains(err.Error(), "read-only file system") || isNoSpace(err) {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnwritable, dir, err)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, dir, err)
	}
	s.db = db
	if err := s.checkFormat(exists); err != nil {
		_ = s.Close()
		return nil, err
	}
	if err := s.removeOrphans(); err != nil {
		_ = s.Close()
		return nil, err
	}
	s.space.ensureReserve()
	if opts.Sync == SyncNone {
		s.wg.Add(1)
		go s.syncLoop()
	}
	return s, nil
}

// isStore says whether dir holds a store; it refuses a directory with other files, so that a
// damaged store is never silently re-initialised.
func isStore(fs vfs.FS, dir string) (bool, error) {
	names, err := fs.List(dir)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %v", ErrUnwritable, dir, err)
	}
	pebbleFiles, other := 0, ""
	for _, n := range names {
		switch {
		case n == "LOCK" || n == reserveFile:
		case n == "CURRENT" || strings.HasPrefix(n, "MANIFEST-") || strings.HasPrefix(n, "OPTIONS-") ||
			strings.HasSuffix(n, ".sst") || strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".blob") ||
			strings.HasPrefix(n, "marker."):
			pebbleFiles++
		default:
			other = n
		}
	}
	if pebbleFiles == 0 && other != "" {
		return false, fmt.Errorf("%w: %s holds %q and no store", ErrNotDataDir, dir, other)
	}
	return pebbleFiles > 0, nil
}

func (s *Store) checkFormat(existed bool) error {
	v, closer, err := s.db.Get(KeyFormat)
	if errors.Is(err, pebble.ErrNotFound) {
		if existed {
			// a store that has keys but no format record is not ours
			it, ierr := s.db.NewIter(nil)
			if ierr != nil {
				return ierr
			}
			has := it.First()
			_ = it.Close()
			if has {
				return fmt.Errorf("%w: %s has no format record", ErrNotDataDir, s.dir)
			}
		}
		return s.initialise()
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, s.dir, err)
	}
	var f formatRecord
	err = json.Unmarshal(v, &f)
	_ = closer.Close()
	if err != nil {
		return fmt.Errorf("%w: %s: bad format record: %v", ErrCorrupt, s.dir, err)
	}
	if f.Version > FormatVersion {
		return fmt.Errorf("%w: %s has format %d, this server reads up to %d", ErrNewerFormat, s.dir, f.Version, FormatVersion)
	}
	return nil
}

// initialise writes the format record and Options.Bootstrap's records.
func (s *Store) initialise() error {
	b := s.db.NewBatch()
	defer b.Close()
	f, _ := json.Marshal(formatRecord{Version: FormatVersion, PebbleFormat: uint64(pebbleFormat)})
	if err := b.Set(KeyFormat, f, nil); err != nil {
		return err
	}
	if s.opts.Bootstrap != nil {
		if err := s.opts.Bootstrap(b); err != nil {
			return err
		}
	}
	return s.db.Apply(b, pebble.Sync)
}

// removeOrphans deletes the data of table ids that no descriptor names: what a crash left of a
// DROP, TRUNCATE or rewrite between its commit and the deletion of the old data.
func (s *Store) removeOrphans() error {
	live := map[uint32]bool{}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{SpaceCatalog}, UpperBound: []byte{SpaceCatalog + 1}})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) == 10 && k[5] == CatTable {
			live[binary.BigEndian.Uint32(k[6:])] = true
		}
	}
	if err := it.Close(); err != nil {
		return err
	}
	it, err = s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{SpaceData}, UpperBound: []byte{SpaceData + 1}})
	if err != nil {
		return err
	}
	var orphans []uint32
	for ok := it.First(); ok; {
		k := it.Key()
		if len(k) < 5 {
			ok = it.Next()
			continue
		}
		tid := binary.BigEndian.Uint32(k[1:5])
		if !live[tid] {
			orphans = append(orphans, tid)
		}
		ok = it.SeekGE(TableEnd(tid))
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, tid := range orphans {
		if err := s.DeleteTableData(tid); err != nil {
			return err
		}
	}
	return nil
}

// DeleteTableData removes a table id's rows, index entries and counters. The id must no longer
// be named by any committed descriptor.
func (s *Store) DeleteTableData(tid uint32) error {
	if err := s.Broken(); err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	_ = b.DeleteRange(TablePrefix(tid), TableEnd(tid), nil)
	_ = b.Delete(CounterKey(tid, CtrAutoInc), nil)
	_ = b.Delete(CounterKey(tid, CtrRowCount), nil)
	return s.Apply(b, pebble.NoSync)
}

func (s *Store) syncLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.SyncInterval)
	defer t.Stop()
	synced := s.stats.Commits.Load()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			// a sync writes a log record: none while nothing committed, so that an idle store
			// on a full disk writes nothing
			n := s.stats.Commits.Load()
			if n == synced || s.broken.Load() != nil {
				continue
			}
			synced = n
			if err := s.db.LogData(nil, pebble.Sync); err != nil {
				s.syncFailed(err)
				return
			}
		}
	}
}

func (s *Store) syncFailed(err error) {
	err = fmt.Errorf("storage: syncing the log failed, committed data may not be durable: %w", err)
	if s.opts.OnSyncError != nil {
		s.opts.OnSyncError(err)
		return
	}
	panic(err)
}

// Close syncs and closes the store. Open transactions must have ended.
func (s *Store) Close() error {
	close(s.stop)
	s.wg.Wait()
	var err error
	if s.db != nil && s.wedged.Load() {
		err = *s.broken.Load()
		s.db = nil
	}
	if s.db != nil {
		if s.broken.Load() == nil {
			_ = s.db.LogData(nil, pebble.Sync)
		}
		err = s.db.Close()
		s.db = nil
	}
	s.cache.Unref()
	if s.lock != nil {
		if lerr := s.lock.Close(); err == nil {
			err = lerr
		}
	}
	return err
}

// DB is the Pebble database, for reads, snapshots and batches; a batch is committed with Apply.
func (s *Store) DB() *pebble.DB { return s.db }

// Dir is the data directory.
func (s *Store) Dir() string { return s.dir }

// Stats returns the store's counters.
func (s *Store) Stats() *Stats { return &s.stats }

// Metrics returns Pebble's metrics (block cache, memtables, compactions, levels, WAL).
func (s *Store) Metrics() *pebble.Metrics { return s.db.Metrics() }

// Flush writes the memtables out; tests use it to exercise the on-disk paths.
func (s *Store) Flush() error { return s.db.Flush() }

// Checkpoint writes a consistent copy of the store into dir (which must not exist), for an
// online backup: a store opened on dir has the data of the last commit before the call.
func (s *Store) Checkpoint(dir string) error {
	return s.db.Checkpoint(dir, pebble.WithFlushedWAL())
}

// fatalError is the message of Pebble's Fatalf, which wraps the error among its arguments.
type fatalError struct {
	msg   string
	cause error
}

func (e fatalError) Error() string { return e.msg }
func (e fatalError) Unwrap() error { return e.cause }

// quietLogger drops Pebble's messages; its Fatalf, which Pebble calls when its log or
// MANIFEST cannot be written, breaks the store (diskspace.go) and panics, as Fatalf must not
// return.
type quietLogger struct{ s *Store }

func (quietLogger) Infof(string, ...interface{})  {}
func (quietLogger) Errorf(string, ...interface{}) {}
func (l quietLogger) Fatalf(format string, args ...interface{}) {
	err := error(fatalError{msg: fmt.Sprintf(format, args...)})
	for _, a := range args {
		if cause, ok := a.(error); ok {
			err = fatalError{msg: err.Error(), cause: cause}
			break
		}
	}
	l.s.fatal(err)
	panic(pebbleFatal{err})
}
