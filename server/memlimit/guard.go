package memlimit

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
	"overloadsql/server/config"
	"overloadsql/server/statement"

	"github.com/dolthub/vitess/go/mysql"
)

// memoryCheckEvery is how often the memory guard reads the heap: a statement that builds big
// values allocates only what it can in this time before it is cancelled.
const memoryCheckEvery = 10 * time.Millisecond

// writeStopGrace is how long a writing statement asked to stop may finish the row it builds
// before it is cancelled (see Running.write): a row of tens of megabytes is built,
// converted and stored in that time.
const writeStopGrace = 250 * time.Millisecond

// Statements are the ordinary statements running now (not the admin listener's), so that the
// memory guard can stop them, and the guard's state for those about to start: while the heap is
// over the memory limit, a statement that is not exempt is refused. The registry classifies a
// statement (exempt or not) under mu only, and a statement's connection reads its summary again
// only after it left the registry. mu is a leaf: nothing else is locked under it.
type Statements struct {
	mu       sync.Mutex
	running  map[*Running]struct{}
	refusing error     // the error of statements refused now; nil when the heap is under its limit
	stopping int       // running statements asked to stop and not yet cancelled
	stopped  time.Time // when they were asked
}

// Running is one entry of the registry: how to stop the statement and what decides
// whether it is exempt.
type Running struct {
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

// NewStatements is an empty registry.
func NewStatements() *Statements {
	return &Statements{running: map[*Running]struct{}{}}
}

// Start registers a statement before it runs: the returned context is cancelled, with the
// memory error as its cause, when the memory guard fires. Finish must be called when the
// statement ends. While the heap is over the limit, a statement that is not exempt is refused
// with the error instead.
func (r *Statements) Start(ctx context.Context, stmt *statement.Summary, db string) (context.Context, *Running, error) {
	e := &Running{stmt: stmt, db: db, write: stmt.Storage() != statement.ReadsStorage}
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

// Finish takes a statement out of the registry.
func (r *Statements) Finish(e *Running) {
	r.mu.Lock()
	delete(r.running, e)
	if e.stop.Load() != nil && r.stopping > 0 {
		r.stopping--
	}
	r.mu.Unlock()
	e.cancel(nil)
}

// MemoryError is the error a statement stopped by the memory guard ends with, nil when it was
// not stopped for memory.
func (e *Running) MemoryError(ctx context.Context) *mysql.SQLError {
	if se := e.stop.Load(); se != nil {
		return se
	}
	if se, ok := context.Cause(ctx).(*mysql.SQLError); ok && se.Num == mysql.EROutOfResources {
		return se
	}
	return nil
}

// Stop is the error of the statement running on ctx when the memory guard asked it to
// stop, nil otherwise.
func Stop(ctx context.Context) error {
	if e, ok := ctx.Value(runningKey{}).(*Running); ok {
		if se := e.stop.Load(); se != nil {
			return se
		}
	}
	return nil
}

// exceeded stops every running statement that is not exempt with stopped as its error (see
// Running.write), and refuses new ones with refused until resume. It returns how many
// it stopped.
func (r *Statements) exceeded(now time.Time, stopped *mysql.SQLError, refused error) int {
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
func (r *Statements) cancelStopping(now time.Time) {
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
func (r *Statements) refuse(refused error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refusing != nil {
		r.refusing = refused
	}
}

// resume accepts statements again.
func (r *Statements) resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusing = nil
}

// Guard checks the heap against the memory limit: over it, the ordinary running statements are
// stopped and new ones refused until the heap is under overload.MemoryResumeRatio of the limit;
// at each check it sets the session accounts' limits from the same figures.
type Guard struct {
	Statements *Statements
	Accounts   *Accounts
	// Heap decides when the heap is over the limit and back under it.
	Heap *overload.MemoryGuard
	// Config is the running configuration: max_server_memory_usage and
	// max_memory_usage_for_session.
	Config func() *config.Config
	// Measured is the memory limit the sampler measured: the cgroup's, else the host's memory.
	Measured func() uint64
	// OffHeap is the store's memory outside the Go heap now, which the heap's limit leaves to it.
	OffHeap func(now time.Time) uint64
	// Note writes a line of the memory log (rate-limited by the caller).
	Note func(string)
	// Stopped counts statements stopped (MemoryLimitExceededQueries).
	Stopped func(n int)
}

// Run checks the heap against the memory limit every memoryCheckEvery until ctx is done, and
// keeps the Go runtime's soft memory limit (debug.SetMemoryLimit) at the same value, so the
// collector works harder as the heap nears it. The runtime's limit is put back when it returns.
func (g *Guard) Run(ctx context.Context) {
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
			cfg := g.Config()
			limit := Limit(g.Measured(), cfg.MaxServerMemoryUsage)
			// The Go heap's part of it: the store's memory outside the heap is the rest.
			heap := heapLimit(limit, g.OffHeap(now))
			if heap != applied {
				applied = heap
				debug.SetMemoryLimit(runtimeMemoryLimit(heap, previous))
			}
			g.check(now, heap)
			g.Accounts.Adjust(limit, live(), cfg.MaxMemoryUsageForSession)
		}
	}
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

// defaultMemoryRatio is the share of the cgroup memory limit, or of the host's memory, the guard
// enforces when max_server_memory_usage is 0, as ClickHouse's max_server_memory_usage_to_ram_ratio:
// the heap can never reach the whole of a cgroup limit (the kernel kills the process first, and
// the heap is only part of what the cgroup counts).
const defaultMemoryRatio = 0.9

// Limit is the limit the guard enforces: max_server_memory_usage when set, else
// defaultMemoryRatio of measured (the memory warning's limit: the cgroup limit or host memory).
func Limit(measured, setting uint64) uint64 {
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

// check is one check of the memory guard: when the heap crosses the limit, the ordinary
// running statements are cancelled and new ones refused, until the heap is back under
// overload.MemoryResumeRatio of the limit.
func (g *Guard) check(now time.Time, limit uint64) {
	g.Statements.cancelStopping(now)
	c := g.Heap.Check(now, limit)
	switch {
	case c.Exceeded:
		n := g.Statements.exceeded(now,
			mysqlerr.New(mysql.EROutOfResources, "%s", g.message(c.Heap, c.Limit, "the statement was cancelled")),
			g.refusedError(c.Heap, c.Limit))
		g.Stopped(n)
		g.Note(fmt.Sprintf("server heap %s over the memory limit %s (max_server_memory_usage); %d ordinary statement(s) stopped, new ones refused until the heap is under %s",
			sizeText(c.Heap), sizeText(c.Limit), n, sizeText(resumeMark(c.Limit))))
	case c.Resumed:
		g.Statements.resume()
		g.Note(fmt.Sprintf("server heap %s back under %s: ordinary statements are accepted again", sizeText(c.Heap), sizeText(resumeMark(c.Limit))))
	default:
		if over, _, _ := g.Heap.Over(); over {
			g.Statements.refuse(g.refusedError(c.Heap, c.Limit))
		}
	}
	if c.Collect {
		debug.FreeOSMemory()
	}
}

// refusedError is the error of an ordinary statement that arrives while the heap is over the limit.
func (g *Guard) refusedError(heap, limit uint64) error {
	return mysqlerr.New(mysql.EROutOfResources, "%s", g.message(heap, limit,
		"the statement was not started; ordinary statements are refused until the heap is under "+sizeText(resumeMark(limit))))
}

// message is the text of error 1041 with the figures and the setting that decides them.
func (g *Guard) message(heap, limit uint64, what string) string {
	setting := "max_server_memory_usage " + sizeText(limit)
	if g.Config().MaxServerMemoryUsage == 0 {
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
