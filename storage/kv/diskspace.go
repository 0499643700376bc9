package kv

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"overloadsql/mysqlerr"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/vitess/go/mysql"
)

// A full disk. Pebble treats a failed write of its log (WAL) or of its MANIFEST as fatal: the
// commit whose log write failed is already in the memtable and visible, the log writer's error
// is sticky (the next commit that fills a log block panics), and a failed MANIFEST write calls
// Logger.Fatalf. A failed flush or compaction is only reported (EventListener.BackgroundError)
// and retried, a flush at once and without a pause. So the store keeps Pebble from meeting a
// full disk:
//
//   - The data directory holds a space reserve, reserveFile, of Options.DiskReserveBytes,
//     allocated (fallocate, or zeros where the filesystem cannot) and never written.
//   - Pebble's filesystem is wrapped with vfs.OnDiskFull: the first write that gets ENOSPC
//     frees the reserve and is retried once, into the freed space, so that the log write, the
//     flush or the compaction in flight completes; the store is then full.
//   - A full store refuses every write statement and every commit with error 1114 and rolls
//     the transaction back; reads go on. Each refused write first checks the free space: once
//     the filesystem has room for the reserve twice over, the reserve is allocated again and
//     the write goes ahead. No restart is needed.
//   - A commit larger than an eighth of the reserve first checks that the free space holds it
//     and the reserve, so that a large transaction, CREATE INDEX or ALTER is refused before it
//     writes the log rather than in the middle of it.
//
// When Pebble meets ENOSPC all the same (the reserve was not enough, or a sync failed), the
// commit that failed may be visible but is not durable, and the log cannot take another
// record: the store refuses every later write and reports the error through
// Options.OnSyncError, which stops the server. A restart recovers the acknowledged commits
// from the log.

// reserveFile is the space reserve's name in the data directory.
const reserveFile = "RESERVE"

// diskSpace keeps the reserve and the store's disk-full state.
type diskSpace struct {
	fs   vfs.FS // the filesystem under Pebble's wrapper
	dir  string
	path string
	size int64 // 0: no reserve
	// onChange reports entering (true) and leaving (false) the full state.
	onChange func(full bool)
	// pause slows Pebble's retries of a flush or compaction while the disk stays full.
	pause time.Duration

	full atomic.Bool
	// mu orders the reserve's creation and removal.
	mu      sync.Mutex
	reserve bool // the reserve file exists
}

// errDiskFull is MySQL's error for a write that gets no space (InnoDB's table full).
func errDiskFull(table string) error {
	return mysqlerr.New(mysql.ERRecordFileFull,
		"The table '%s' is full: the data directory's disk is out of space; the transaction was rolled back", table)
}

// isNoSpace says whether err is the filesystem's "no space left" (or a quota's).
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

func newDiskSpace(fs vfs.FS, dir string, size int64, onChange func(bool)) *diskSpace {
	g := &diskSpace{fs: fs, dir: dir, path: fs.PathJoin(dir, reserveFile), size: size,
		onChange: onChange, pause: 100 * time.Millisecond}
	// A reserve is whole once it has its name (allocate renames it last); a half-made one
	// from a crash is dropped, and so is a reserve this configuration does not keep.
	_ = fs.Remove(g.path + ".tmp")
	if _, err := fs.Stat(g.path); err == nil {
		if size > 0 {
			g.reserve = true
		} else {
			_ = fs.Remove(g.path)
		}
	}
	return g
}

// exhausted is vfs.OnDiskFull's callback: a write of Pebble's got ENOSPC. Pebble's writes wait
// while it runs, and the failed one is retried once after it.
func (g *diskSpace) exhausted() {
	g.mu.Lock()
	freed := false
	if g.reserve {
		_ = g.fs.Remove(g.path)
		g.reserve = false
		freed = true
	}
	g.mu.Unlock()
	if !g.full.Swap(true) && g.onChange != nil {
		g.onChange(true)
	}
	if !freed && g.pause > 0 {
		// the retry will fail too: pace Pebble's loop of flush retries
		time.Sleep(g.pause)
	}
}

// ensureReserve allocates the reserve when it is missing; at Open. A store whose reserve
// cannot be allocated starts full.
func (g *diskSpace) ensureReserve() {
	if g.size <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reserve {
		return
	}
	if err := g.allocate(); err != nil {
		if isNoSpace(err) && !g.full.Swap(true) && g.onChange != nil {
			g.onChange(true)
		}
		return
	}
	g.reserve = true
}

// allocate creates the reserve file: under a temporary name, renamed once its space is
// allocated and synced, so that a crash never leaves a reserve that reserves nothing. g.mu is
// held.
func (g *diskSpace) allocate() error {
	tmp := g.path + ".tmp"
	f, err := g.fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	err = f.Preallocate(0, g.size)
	if err != nil && !isNoSpace(err) {
		// the filesystem cannot preallocate: write the space
		err = nil
		zeros := make([]byte, 1<<20)
		for off := int64(0); off < g.size && err == nil; off += int64(len(zeros)) {
			n := min(int64(len(zeros)), g.size-off)
			_, err = f.Write(zeros[:n])
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = g.fs.Rename(tmp, g.path)
	}
	if err != nil {
		_ = g.fs.Remove(tmp)
	}
	return err
}

// admit says whether a commit of n bytes may go ahead; table names the table in the error.
func (g *diskSpace) admit(n int64, table string) error {
	if g.full.Load() && !g.tryResume() {
		return errDiskFull(table)
	}
	if g.size > 0 && n >= g.size/8 {
		if du, err := g.fs.GetDiskUsage(g.dir); err == nil && du.AvailBytes < uint64(n+g.size) {
			return errDiskFull(table)
		}
	}
	return nil
}

// tryResume leaves the full state when the filesystem has room for the reserve twice over (or,
// when it does not report its free space, the reserve can be allocated), with the reserve
// allocated again.
func (g *diskSpace) tryResume() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.full.Load() {
		return true
	}
	if g.size > 0 {
		if du, err := g.fs.GetDiskUsage(g.dir); err == nil && du.AvailBytes < uint64(2*g.size) {
			return false
		}
		if !g.reserve {
			if err := g.allocate(); err != nil {
				return false
			}
			g.reserve = true
		}
	} else if du, err := g.fs.GetDiskUsage(g.dir); err == nil && du.AvailBytes == 0 {
		return false
	}
	g.full.Store(false)
	if g.onChange != nil {
		g.onChange(false)
	}
	return true
}

// brokenError is the error of every write after Pebble's log failed.
func brokenError(dir string, err error) error {
	return mysqlerr.New(mysqlerr.ERErrorOnWrite,
		"Error writing file '%s' (%v): the write-ahead log failed; writes are refused until the server restarts", dir, err)
}

// pebbleFatal is the panic of quietLogger.Fatalf.
type pebbleFatal struct{ err error }

// fatal breaks the store: Pebble's log or MANIFEST failed. Every later write is refused, and
// Options.OnSyncError is called (once, on a goroutine of its own, so that a server's stop is
// not recovered by the statement that met the failure).
func (s *Store) fatal(err error) {
	berr := brokenError(s.dir, err)
	if s.broken.CompareAndSwap(nil, &berr) {
		go s.syncFailed(fmt.Errorf("storage: the write-ahead log or MANIFEST could not be written: %w", err))
	}
}

// Apply commits b. When Pebble's log fails the commit (Pebble calls Logger.Fatalf, and panics
// in a few places), the batch may be visible but is not durable and the log takes no further
// record: the store breaks and the commit's error is returned.
func (s *Store) Apply(b *pebble.Batch, opts *pebble.WriteOptions) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if f, ok := p.(pebbleFatal); ok {
			err = f.err
		} else if e, ok := p.(error); ok {
			// a raw panic of Pebble's commit path leaves its commit pipeline locked
			s.wedged.Store(true)
			err = e
		} else {
			s.wedged.Store(true)
			err = fmt.Errorf("%v", p)
		}
		s.fatal(err)
	}()
	if err := s.db.Apply(b, opts); err != nil {
		s.fatal(err)
		return err
	}
	return nil
}

// CommitFailed is the client's error for a commit that Apply failed; table names the table in
// the error.
func (s *Store) CommitFailed(table string, err error) error {
	if isNoSpace(err) {
		return mysqlerr.New(mysql.ERRecordFileFull,
			"The table '%s' is full: the disk filled while the commit was written; the commit is not durable and the server stops", table)
	}
	return brokenError(s.dir, err)
}

// DiskFull reports whether the store refuses writes because its disk is full.
func (s *Store) DiskFull() bool { return s.space.full.Load() }

// Admit says whether a commit of n bytes may go ahead on the disk (0: whether writes are taken
// at all); table names the table in the error (1114).
func (s *Store) Admit(n int64, table string) error { return s.space.admit(n, table) }

// Broken is the error of every write after Pebble's log failed, or nil.
func (s *Store) Broken() error {
	if b := s.broken.Load(); b != nil {
		return *b
	}
	return nil
}
