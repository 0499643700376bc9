package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/server/config"
	"overloadsql/storage"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// The user databases live in one storage.Store on data_dir (storage/doc.go); `system` and
// information_schema stay virtual. The engine sees databasesProvider: the store's databases
// plus `system`. Each connection's session is a storage session; the server marks every
// statement's start and end on it (enterStorage, leaveStorage), and the store's writers are
// ordered by the server's own write lock (storeLock), so that lock waits show in the process
// list, obey innodb_lock_wait_timeout and KILL, and are counted.

// memTableBytes is the size of one of the store's memtables.
const memTableBytes = 16 << 20

// StoreOpenError is the error of New when the data directory cannot be opened; Code is the
// process's exit code for it (docs/storage.md).
type StoreOpenError struct {
	Dir  string
	Code int
	Err  error
}

func (e *StoreOpenError) Error() string {
	return fmt.Sprintf("data_dir %s: %v", e.Dir, e.Err)
}

func (e *StoreOpenError) Unwrap() error { return e.Err }

// Exit codes of a data directory that does not open, one per cause.
const (
	ExitStoreLocked      = 11 // another server has it open
	ExitStoreNewerFormat = 12 // written by a newer version
	ExitStoreCorrupt     = 13 // damaged files
	ExitStoreUnwritable  = 14 // cannot be created, locked or written
	ExitStoreNotDataDir  = 15 // holds files that are not a store
	ExitStoreOther       = 16 // any other failure to open
)

// storeExitCode maps an error of storage.Open to its exit code.
func storeExitCode(err error) int {
	switch {
	case errors.Is(err, storage.ErrLocked):
		return ExitStoreLocked
	case errors.Is(err, storage.ErrNewerFormat):
		return ExitStoreNewerFormat
	case errors.Is(err, storage.ErrCorrupt):
		return ExitStoreCorrupt
	case errors.Is(err, storage.ErrUnwritable):
		return ExitStoreUnwritable
	case errors.Is(err, storage.ErrNotDataDir):
		return ExitStoreNotDataDir
	}
	return ExitStoreOther
}

// openStore opens the data directory of cfg (on fs; nil is the operating system's). A new one's
// database main gets collation, collation_server.
func (s *Server) openStore(cfg *config.Config, fs vfs.FS, collation sql.CollationID) error {
	dir := cfg.DataDirPath()
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if fs == nil {
		fs = vfs.Default
	}
	names, _ := fs.List(dir)
	fresh := len(names) == 0
	sync := storage.SyncCommit
	if cfg.StorageSync == config.SyncNone {
		sync = storage.SyncNone
	}
	st, err := storage.Open(dir, storage.Options{
		FS:            fs,
		CacheBytes:    int64(cfg.StorageCacheBytes),
		MemTableBytes: memTableBytes,
		Sync:          sync,
		WriteLock:     storeLock{s},
		OnDiskFull: func(full bool) {
			if full {
				s.logger.Error("storage: the disk of data_dir is full; writes are refused with error 1114 until space is back, reads go on", "data_dir", dir)
			} else {
				s.logger.Info("storage: space is back on the disk of data_dir; writes are taken again", "data_dir", dir)
			}
		},
		OnSyncError: func(err error) {
			// A commit is visible but may not be on disk: stopping is the only honest answer.
			s.logger.Error("storage: a log sync failed after its commit; stopping so that no acknowledged commit is lost unseen",
				"data_dir", dir, "err", err)
			panic(fmt.Sprintf("storage: log sync failed: %v", err))
		},
	})
	if err != nil {
		return &StoreOpenError{Dir: dir, Code: storeExitCode(err), Err: err}
	}
	s.store = st
	if fresh {
		if err := s.setMainCollation(collation); err != nil {
			_ = st.Close()
			s.store = nil
			return &StoreOpenError{Dir: dir, Code: ExitStoreOther, Err: err}
		}
	}
	return nil
}

// setMainCollation gives the database main the collation.
func (s *Server) setMainCollation(collation sql.CollationID) error {
	sess := s.store.NewSession(sql.NewBaseSession())
	defer sess.Close()
	ctx := sql.NewContext(context.Background(), sql.WithSession(sess))
	db, err := s.store.Provider().Database(ctx, mainDatabase)
	if err != nil {
		return err
	}
	cdb, ok := db.(sql.CollatedDatabase)
	if !ok || cdb.GetCollation(ctx) == collation {
		return nil
	}
	if err := cdb.SetCollation(ctx, collation); err != nil {
		return fmt.Errorf("set the collation of main: %w", err)
	}
	if err := sess.CommitTransaction(ctx, nil); err != nil {
		return fmt.Errorf("set the collation of main: %w", err)
	}
	return nil
}

// offHeapEvery is how often the memory guard measures the store's memory outside the heap.
const offHeapEvery = time.Second

// offHeap is the store's memory outside the Go heap as last measured, for the memory guard.
type offHeap struct {
	bytes    atomic.Uint64
	measured time.Time // only the guard's goroutine touches it
}

// storageOffHeapBytes is the memory of the store outside the Go heap, measured at most every
// offHeapEvery: in a cgo build Pebble allocates its block cache and memtables with C malloc, so
// what they hold now (the cache fills up to storage_cache_bytes; memtable arenas are allocated
// whole) is outside the heap. In a build without cgo they are ordinary Go memory, which the
// heap already counts.
func (s *Server) storageOffHeapBytes(now time.Time) uint64 {
	if !cgoBuild || s.store == nil {
		return 0
	}
	if now.Sub(s.offHeap.measured) >= offHeapEvery {
		s.offHeap.measured = now
		m := s.store.Metrics()
		s.offHeap.bytes.Store(uint64(max(m.BlockCache.Size, 0)) + m.MemTable.Size + m.MemTable.ZombieSize)
	}
	return s.offHeap.bytes.Load()
}

// heapLimit is the part of the memory limit the Go heap may use: the rest holds the store's
// memory outside the heap.
func heapLimit(limit, offHeap uint64) uint64 {
	if limit == 0 {
		return 0
	}
	if offHeap >= limit/2 {
		// Never less than half the limit for the heap: a cache configured larger than the
		// limit allows must not make every statement fail.
		return limit - limit/2
	}
	return limit - offHeap
}

// closeStore closes the store, once the statements have ended.
func (s *Server) closeStore() {
	if s.store == nil {
		return
	}
	if err := s.store.Close(); err != nil {
		s.logger.Error("storage: close", "err", err)
	}
}

// storeLock is the store's WriteLock: the server's write lock, keyed by connection. A statement
// that may write takes it before it runs (enterStorage), so Acquire normally finds it held; a
// write the statement's classification did not foresee (a procedure's write after its COMMIT)
// waits here, bounded by the session's innodb_lock_wait_timeout.
type storeLock struct{ s *Server }

func (l storeLock) Acquire(ctx *sql.Context, sess sql.Session) error {
	conn := sess.ID()
	if l.s.writes.holds(conn) {
		return nil
	}
	timeout := time.Duration(defaultLockWaitTimeout) * time.Second
	if v, err := sess.GetSessionVariable(ctx, lockWaitTimeoutVariable); err == nil {
		if n, ok := v.(int64); ok && n >= 1 {
			timeout = time.Duration(n) * time.Second
		}
	}
	wait, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l.s.lockWaits.start(conn, ctx.Query())
	defer l.s.lockWaits.end(conn)
	err := l.s.writes.acquire(wait, conn)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		l.s.counters.lockWaitTimeouts.Add(1)
		return mysqlerr.New(mysql.ERLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	default:
		return mysqlerr.New(mysql.ERQueryInterrupted, "Query execution was interrupted")
	}
}

func (l storeLock) Release(sess sql.Session) { l.s.writes.release(sess.ID()) }

// databasesProvider is the engine's provider: the store's databases, and `system`, which is
// virtual and can be neither created nor dropped.
type databasesProvider struct {
	*storage.Provider
	system sql.Database
}

var _ sql.MutableDatabaseProvider = databasesProvider{}

func (p databasesProvider) isSystem(name string) bool {
	return strings.EqualFold(name, p.system.Name())
}

func (p databasesProvider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	if p.isSystem(name) {
		return p.system, nil
	}
	return p.Provider.Database(ctx, name)
}

func (p databasesProvider) HasDatabase(ctx *sql.Context, name string) bool {
	return p.isSystem(name) || p.Provider.HasDatabase(ctx, name)
}

func (p databasesProvider) AllDatabases(ctx *sql.Context) []sql.Database {
	all := p.Provider.AllDatabases(ctx)
	out := make([]sql.Database, 0, len(all)+1)
	added := false
	for _, db := range all {
		if !added && strings.ToLower(db.Name()) > p.system.Name() {
			out = append(out, p.system)
			added = true
		}
		out = append(out, db)
	}
	if !added {
		out = append(out, p.system)
	}
	return out
}

func (p databasesProvider) CreateDatabase(ctx *sql.Context, name string) error {
	return p.CreateCollatedDatabase(ctx, name, sql.Collation_Default)
}

func (p databasesProvider) CreateCollatedDatabase(ctx *sql.Context, name string, collation sql.CollationID) error {
	if p.isSystem(name) {
		return sql.ErrDatabaseExists.New(name)
	}
	return p.Provider.CreateCollatedDatabase(ctx, name, collation)
}

func (p databasesProvider) DropDatabase(ctx *sql.Context, name string) error {
	if p.isSystem(name) {
		return errDatabaseDenied(ctx, name, ": it cannot be dropped")
	}
	return p.Provider.DropDatabase(ctx, name)
}
