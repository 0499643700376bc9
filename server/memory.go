package server

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/overload"
	"overloadsql/server/statement"

	"github.com/dolthub/vitess/go/mysql"
)

// memoryCheckEvery is how often the memory guard reads the heap: a statement that builds big
// values allocates only what it can in this time before it is cancelled.
const memoryCheckEvery = 10 * time.Millisecond

// writeStopGrace is how long a writing statement asked to stop may finish the row it builds
// before it is cancelled (see runningStatement.write): a row of tens of megabytes is built,
// converted and stored in that time.
const writeStopGrace = 250 * time.Millisecond

// statements are the ordinary statements running now (not the admin listener's), so that the
// memory guard can stop them, and the guard's state for those about to start: while the heap is
// over the memory limit, a statement that is not exempt is refused. The registry classifies a
// statement (exempt or not) under mu only, and a statement's connection reads its summary again
// only after it left the registry. mu is a leaf: nothing else is locked under it.
type statements struct {
	mu       sync.Mutex
	running  map[*runningStatement]struct{}
	refusing error     // the error of statements refused now; nil when the heap is under its limit
	stopping int       // running statements asked to stop and not yet cancelled
	stopped  time.Time // when they were asked
}

// runningStatement is one entry of the registry: how to stop the statement and what decides
// whether it is exempt.
type runningStatement struct {
	cancel context.CancelCauseFunc
	stmt   *statement.Summary
	db     string // the session's database when the statement started
	// write: the statement may write. The engine applies the rows an INSERT accumulated when
	// it finds its context cancelled between two rows, and discards them only when a row fails;
	// so a writing statement is first asked to stop (stop, read by the functions that build
	// big values, which then fail their row) and cancelled writeStopGrace later if it still runs.
	write bool
	stop  atomic.Pointer[mysql.SQLError]
}

// runningKey is the context key under which a registered statement finds its entry.
type runningKey struct{}

func newStatements() *statements {
	return &statements{running: map[*runningStatement]struct{}{}}
}

// start registers a statement before it runs: the returned context is cancelled, with the
// memory error as its cause, when the memory guard fires. finish must be called when the
// statement ends. While the heap is over the limit, a statement that is not exempt is refused
// with the error instead.
func (r *statements) start(ctx context.Context, stmt *statement.Summary, db string) (context.Context, *runningStatement, error) {
	e := &runningStatement{stmt: stmt, db: db, write: stmt.Storage() != statement.ReadsStorage}
	ctx, e.cancel = context.WithCancelCause(context.WithValue(ctx, runningKey{}, e))
	r.mu.Lock()
	if r.refusing != nil && !stmt.Exempt(db).Exempt {
		err := r.refusing
		r.mu.Unlock()
		e.cancel(nil)
		return ctx, nil, err
	}
	r.running[e] = struct{}{}
	r.mu.Unlock()
	return ctx, e, nil
}

// finish takes a statement out of the registry.
func (r *statements) finish(e *runningStatement) {
	r.mu.Lock()
	delete(r.running, e)
	if e.stop.Load() != nil && r.stopping > 0 {
		r.stopping--
	}
	r.mu.Unlock()
	e.cancel(nil)
}

// memoryError is the error a statement stopped by the memory guard ends with, nil when it was
// not stopped for memory.
func (e *runningStatement) memoryError(ctx context.Context) *mysql.SQLError {
	if se := e.stop.Load(); se != nil {
		return se
	}
	if se, ok := context.Cause(ctx).(*mysql.SQLError); ok && se.Num == mysql.EROutOfResources {
		return se
	}
	return nil
}

// memoryStop is the error of the statement running on ctx when the memory guard asked it to
// stop, nil otherwise.
func memoryStop(ctx context.Context) error {
	if e, ok := ctx.Value(runningKey{}).(*runningStatement); ok {
		if se := e.stop.Load(); se != nil {
			return se
		}
	}
	return nil
}

// exceeded stops every running statement that is not exempt with stopped as its error (see
// runningStatement.write), and refuses new ones with refused until resume. It returns how many
// it stopped.
func (r *statements) exceeded(now time.Time, stopped *mysql.SQLError, refused error) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusing = refused
	r.stopped = now
	n := 0
	for e := range r.running {
		if e.stop.Load() != nil || e.stmt.Exempt(e.db).Exempt {
			continue
		}
		n++
		e.stop.Store(stopped)
		if e.write {
			r.stopping++
			continue
		}
		e.cancel(stopped)
	}
	return n
}

// cancelStopping cancels the writing statements asked to stop that still run writeStopGrace
// after they were asked.
func (r *statements) cancelStopping(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopping == 0 || now.Sub(r.stopped) < writeStopGrace {
		return
	}
	for e := range r.running {
		if se := e.stop.Load(); se != nil {
			e.cancel(se)
		}
	}
	r.stopping = 0
}

// refuse updates the error of refused statements (the heap and limit it names) while refusing.
func (r *statements) refuse(refused error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refusing != nil {
		r.refusing = refused
	}
}

// resume accepts statements again.
func (r *statements) resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusing = nil
}

// guardMemory checks the heap against the memory limit every memoryCheckEvery until ctx is done,
// and keeps the Go runtime's soft memory limit (debug.SetMemoryLimit) at the same value, so the
// collector works harder as the heap nears it. The runtime's limit is put back when it returns.
func (s *Server) guardMemory(ctx context.Context) {
	tick := time.NewTicker(memoryCheckEvery)
	defer tick.Stop()
	var applied uint64
	previous := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(previous)
	live := overload.HeapLive()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			cfg := s.cfg.Load()
			limit := guardLimit(s.sampler.Snapshot().MemoryLimit, cfg.MaxServerMemoryUsage)
			// The Go heap's part of it: the store's memory outside the heap is the rest.
			heap := heapLimit(limit, s.storageOffHeapBytes(now))
			if heap != applied {
				applied = heap
				debug.SetMemoryLimit(runtimeMemoryLimit(heap, previous))
			}
			s.checkMemory(now, heap)
			s.sessionAccounts.adjust(limit, live(), cfg.MaxMemoryUsageForSession)
		}
	}
}

// defaultMemoryRatio is the share of the cgroup memory limit, or of the host's memory, the guard
// enforces when max_server_memory_usage is 0, as ClickHouse's max_server_memory_usage_to_ram_ratio:
// the heap can never reach the whole of a cgroup limit (the kernel kills the process first, and
// the heap is only part of what the cgroup counts).
const defaultMemoryRatio = 0.9

// guardLimit is the limit the guard enforces: max_server_memory_usage when set, else
// defaultMemoryRatio of measured (the memory warning's limit: the cgroup limit or host memory).
func guardLimit(measured, setting uint64) uint64 {
	if setting > 0 {
		return setting
	}
	return uint64(defaultMemoryRatio * float64(measured))
}

// runtimeMemoryLimit is the runtime's soft limit for the server's memory limit: previous (the
// runtime's own, math.MaxInt64 unless GOMEMLIMIT is set) when there is none.
func runtimeMemoryLimit(limit uint64, previous int64) int64 {
	if limit == 0 || limit > math.MaxInt64 {
		return previous
	}
	return int64(limit)
}

// checkMemory is one check of the memory guard: when the heap crosses the limit, the ordinary
// running statements are cancelled and new ones refused, until the heap is back under
// overload.MemoryResumeRatio of the limit.
func (s *Server) checkMemory(now time.Time, limit uint64) {
	s.statements.cancelStopping(now)
	c := s.memory.Check(now, limit)
	switch {
	case c.Exceeded:
		n := s.statements.exceeded(now,
			mysqlerr.New(mysql.EROutOfResources, "%s", s.memoryMessage(c.Heap, c.Limit, "the statement was cancelled")),
			s.refusedError(c.Heap, c.Limit))
		s.counters.memoryLimitExceeded.Add(uint64(n))
		s.memoryLog.note(fmt.Sprintf("server heap %s over the memory limit %s (max_server_memory_usage); %d ordinary statement(s) stopped, new ones refused until the heap is under %s",
			sizeText(c.Heap), sizeText(c.Limit), n, sizeText(resumeMark(c.Limit))))
	case c.Resumed:
		s.statements.resume()
		s.memoryLog.note(fmt.Sprintf("server heap %s back under %s: ordinary statements are accepted again", sizeText(c.Heap), sizeText(resumeMark(c.Limit))))
	default:
		if over, _, _ := s.memory.Over(); over {
			s.statements.refuse(s.refusedError(c.Heap, c.Limit))
		}
	}
	if c.Collect {
		debug.FreeOSMemory()
	}
}

// refusedError is the error of an ordinary statement that arrives while the heap is over the limit.
func (s *Server) refusedError(heap, limit uint64) error {
	return mysqlerr.New(mysql.EROutOfResources, "%s", s.memoryMessage(heap, limit,
		"the statement was not started; ordinary statements are refused until the heap is under "+sizeText(resumeMark(limit))))
}

// memoryMessage is the text of error 1041 with the figures and the setting that decides them.
func (s *Server) memoryMessage(heap, limit uint64, what string) string {
	setting := "max_server_memory_usage " + sizeText(limit)
	if s.cfg.Load().MaxServerMemoryUsage == 0 {
		setting = "the memory limit " + sizeText(limit) + " (max_server_memory_usage = 0: 90% of the cgroup memory limit, else of the host's memory)"
	}
	return "Out of memory: server heap " + sizeText(heap) + " over " + setting + "; " + what +
		". Retry later; if the heap stays over the limit, an admin (admin_listen) can find the sessions that hold memory, or raise max_server_memory_usage. (MEMORY_LIMIT_EXCEEDED)"
}

func resumeMark(limit uint64) uint64 { return uint64(overload.MemoryResumeRatio * float64(limit)) }

// sizeText prints bytes in GiB or MiB with one decimal.
func sizeText(b uint64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
