package data

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/storage"
	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// memTableBytes is the size of one of the store's memtables.
const memTableBytes = 16 << 20

// StoreOpenError is the error of Open (and of the server's New) when the data directory cannot be opened; Code is the
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

// exitCode maps an error of storage.Open to its exit code.
func exitCode(err error) int {
	switch {
	case errors.Is(err, kv.ErrLocked):
		return ExitStoreLocked
	case errors.Is(err, kv.ErrNewerFormat):
		return ExitStoreNewerFormat
	case errors.Is(err, kv.ErrCorrupt):
		return ExitStoreCorrupt
	case errors.Is(err, kv.ErrUnwritable):
		return ExitStoreUnwritable
	case errors.Is(err, kv.ErrNotDataDir):
		return ExitStoreNotDataDir
	}
	return ExitStoreOther
}

// Open opens the data directory of cfg (on fs; nil is the operating system's), its writers
// ordered by lock. A new one's database main gets collation, collation_server. A failed log
// sync after a commit is logged on logger and stops the process.
func Open(cfg *config.Config, fs vfs.FS, collation sql.CollationID, lock storage.WriteLock, logger *slog.Logger) (*storage.Store, error) {
	dir := cfg.DataDirPath()
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if fs == nil {
		fs = vfs.Default
	}
	names, _ := fs.List(dir)
	fresh := len(names) == 0
	sync := kv.SyncCommit
	if cfg.StorageSync == config.SyncNone {
		sync = kv.SyncNone
	}
	st, err := storage.Open(dir, storage.Options{
		FS:            fs,
		CacheBytes:    int64(cfg.StorageCacheBytes),
		MemTableBytes: memTableBytes,
		Sync:          sync,
		WriteLock:     lock,
		// the server's analyzer runs package engine's comparison corrections
		PreciseLookups: true,
		OnDiskFull: func(full bool) {
			if full {
				logger.Error("storage: the disk of data_dir is full; writes are refused with error 1114 until space is back, reads go on", "data_dir", dir)
			} else {
				logger.Info("storage: space is back on the disk of data_dir; writes are taken again", "data_dir", dir)
			}
		},
		OnSyncError: func(err error) {
			// A commit is visible but may not be on disk: stopping is the only honest answer.
			logger.Error("storage: a log sync failed after its commit; stopping so that no acknowledged commit is lost unseen",
				"data_dir", dir, "err", err)
			panic(fmt.Sprintf("storage: log sync failed: %v", err))
		},
	})
	if err != nil {
		return nil, &StoreOpenError{Dir: dir, Code: exitCode(err), Err: err}
	}
	if fresh {
		if err := setMainCollation(st, collation); err != nil {
			_ = st.Close()
			return nil, &StoreOpenError{Dir: dir, Code: ExitStoreOther, Err: err}
		}
	}
	return st, nil
}

// setMainCollation gives the database main the collation.
func setMainCollation(store *storage.Store, collation sql.CollationID) error {
	sess := store.NewSession(sql.NewBaseSession())
	defer sess.Close()
	ctx := sql.NewContext(context.Background(), sql.WithSession(sess))
	db, err := store.Provider().Database(ctx, access.MainDatabase)
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

// OffHeap is the store's memory outside the Go heap as last measured, for the memory guard.
type OffHeap struct {
	bytes    atomic.Uint64
	measured time.Time // only the guard's goroutine touches it
}

// Bytes is the memory of store (nil: none) outside the Go heap, measured at most every
// offHeapEvery: in a cgo build Pebble allocates its block cache and memtables with C malloc, so
// what they hold now (the cache fills up to storage_cache_bytes; memtable arenas are allocated
// whole) is outside the heap. In a build without cgo they are ordinary Go memory, which the
// heap already counts.
func (o *OffHeap) Bytes(now time.Time, store *storage.Store) uint64 {
	if !cgoBuild || store == nil {
		return 0
	}
	if now.Sub(o.measured) >= offHeapEvery {
		o.measured = now
		m := store.Metrics()
		o.bytes.Store(uint64(max(m.BlockCache.Size, 0)) + m.MemTable.Size + m.MemTable.ZombieSize)
	}
	return o.bytes.Load()
}

// Provider is the engine's provider: the store's databases, and `system`, which is
// virtual and can be neither created nor dropped.
type Provider struct {
	*storage.Provider
	System sql.Database
}

var _ sql.MutableDatabaseProvider = Provider{}

func (p Provider) isSystem(name string) bool {
	return strings.EqualFold(name, p.System.Name())
}

func (p Provider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	if p.isSystem(name) {
		return p.System, nil
	}
	return p.Provider.Database(ctx, name)
}

func (p Provider) HasDatabase(ctx *sql.Context, name string) bool {
	return p.isSystem(name) || p.Provider.HasDatabase(ctx, name)
}

func (p Provider) AllDatabases(ctx *sql.Context) []sql.Database {
	all := p.Provider.AllDatabases(ctx)
	out := make([]sql.Database, 0, len(all)+1)
	added := false
	for _, db := range all {
		if !added && strings.ToLower(db.Name()) > p.System.Name() {
			out = append(out, p.System)
			added = true
		}
		out = append(out, db)
	}
	if !added {
		out = append(out, p.System)
	}
	return out
}

func (p Provider) CreateDatabase(ctx *sql.Context, name string) error {
	return p.CreateCollatedDatabase(ctx, name, sql.Collation_Default)
}

func (p Provider) CreateCollatedDatabase(ctx *sql.Context, name string, collation sql.CollationID) error {
	if p.isSystem(name) {
		return sql.ErrDatabaseExists.New(name)
	}
	return p.Provider.CreateCollatedDatabase(ctx, name, collation)
}

func (p Provider) DropDatabase(ctx *sql.Context, name string) error {
	if p.isSystem(name) {
		return access.ErrDatabaseDenied(ctx, name, ": it cannot be dropped")
	}
	return p.Provider.DropDatabase(ctx, name)
}
