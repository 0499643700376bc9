package server

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"overloadsql/admission"

	"github.com/dolthub/go-mysql-server/sql"
)

// yieldEvery is how often, at most, a running statement looks whether it should give its
// processor up (see yielder).
const yieldEvery = time.Millisecond

// yielder lets goroutines that are not statements (an operator's SELECT 1 and the goroutines the
// engine starts to answer it, the overload sampler, a client's next packet) have a processor
// within about yieldEvery while CPU-heavy statements hold every processor, instead of the Go
// runtime's 10 ms time slice.
//
// The Go runtime preempts a goroutine only after it ran 10 ms. Admission control keeps
// ordinary statements from crowding the run queue, but the ones it lets run hold their
// processors for whole slices, and the engine answers even SELECT 1 with four goroutines of its
// own, each of which can wait a slice behind a heavy statement, so an operator's SELECT 1 could
// take several slices. The engine's executor asks its override
// builder first whenever it builds a node's iterator, which joins and correlated subqueries do
// for every outer row. There, once per yieldEvery across all statements, the yielder reads how
// many goroutines wait for a processor (runtime/metrics). When more wait than statements could
// (those running beyond GOMAXPROCS, all taken for CPU-bound), someone else waits, and the
// statement gives its processor up (runtime.Gosched): it goes to the back of the run queue,
// behind the waiting goroutines, and goes on after them. Otherwise it goes on at once.
//
// Between statements the admission queue's order holds too (package admission, "Workloads"):
// a statement whose workload another running statement's workload outranks (a better
// priority, or the same priority and under its weighted fair share where this one is over) also
// gives its processor up whenever any goroutine waits for one. The Go scheduler would share the
// processor between the two in 10 ms turns, so a short statement of a better workload, given
// a slot beside a long one, would take up to a turn longer than alone; after the yield it takes
// at most about yieldEvery longer. The standing is an atomic load on the statement's admission
// ticket, read only at a look; when it is not outranked, or took no ticket, only the rule above
// holds. When a statement that nothing outranks steps back itself (for goroutines that are not
// statements, or after letting the runtime poll), the outranked statements that run while it
// waits step back at their next build, not at the next look a yieldEvery later: otherwise each
// of its steps back would hand the processor to an outranked statement for up to a yieldEvery.
//
// At a look that finds every processor running and nobody waiting, the statement lets the
// runtime poll the network (netpollNudge): a client's next packet is otherwise noticed only by
// the runtime's monitor thread, up to 10 ms later. With goroutines waiting the runtime does not
// poll before it runs them, so then a packet still waits for the monitor thread: that, and a
// heavy statement that builds nothing while it runs (one table read to its end, which keeps the
// runtime's slice), are what the yielder cannot shorten.
type yielder struct {
	statements func() int // statements running now
	// load reads the Go scheduler: runnable and running goroutines and GOMAXPROCS.
	load func() (admission.Load, error)
	// outranked says whether the statement of ctx (nil in tests) runs in a workload that
	// another running statement's workload outranks.
	outranked func(ctx *sql.Context) bool
	now       func() int64 // monotonic time, ns
	yield     func()
	// poll lets the runtime poll the network (netpollNudge) when every processor runs and
	// nobody waits for one.
	poll func()
	last *atomic.Int64 // when a statement last looked, by now
	// steppedBack counts statements that no running statement outranks and that stepped back
	// and have not run again yet: while there are any, an outranked statement steps back at
	// its next build, without waiting for a look.
	steppedBack *atomic.Int32
}

// newYielder returns the yielder; if the network poll nudge cannot be made, it returns one that
// does not nudge, and the error.
func newYielder(statements func() int) (yielder, error) {
	epoch := time.Now()
	poll := func() {}
	nudge, err := processNudge()
	if err == nil {
		poll = func() { nudge.nudge() }
	}
	// A GoScheduler per look in progress (looks are once per yieldEvery, and two may
	// overlap), kept for the next: a look reads runtime/metrics only, no system call and no
	// allocation.
	schedulers := sync.Pool{New: func() any { return admission.NewGoScheduler() }}
	return yielder{
		statements: statements,
		load: func() (admission.Load, error) {
			g := schedulers.Get().(*admission.GoScheduler)
			defer schedulers.Put(g)
			return g.RunQueue()
		},
		outranked: func(ctx *sql.Context) bool {
			if ctx == nil {
				return false
			}
			t := ticketOf(ctx)
			return t != nil && t.Outranked()
		},
		now:   func() int64 { return int64(time.Since(epoch)) },
		yield: runtime.Gosched,
		poll:  poll,
		last:  new(atomic.Int64),

		steppedBack: new(atomic.Int32),
	}, err
}

var _ sql.NodeExecBuilder = yielder{}

// Build implements sql.NodeExecBuilder: it builds nothing (the engine's builder does); it only
// yields when others should run first. Between looks it costs a clock read and two atomic loads.
func (y yielder) Build(ctx *sql.Context, _ sql.Node, _ sql.Row) (sql.RowIter, error) {
	if y.steppedBack.Load() > 0 && y.outranked(ctx) {
		y.yield() // a better statement waits behind this one
		return nil, nil
	}
	now, last := y.now(), y.last.Load()
	if now-last >= int64(yieldEvery) && y.last.CompareAndSwap(last, now) {
		switch y.look(ctx) {
		case stepBack:
			y.stepBack(ctx, false)
		case letPoll:
			y.stepBack(ctx, true)
		}
	}
	return nil, nil
}

// stepBack gives the statement's processor up, after it let the runtime poll the network if
// poll (then it goes on behind the goroutines the poll found). While a statement that nothing
// outranks (a statement without a ticket included) is away, the outranked statements that get
// the processor step back at their next build.
func (y yielder) stepBack(ctx *sql.Context, poll bool) {
	if !y.outranked(ctx) {
		y.steppedBack.Add(1)
		defer y.steppedBack.Add(-1)
	}
	if poll {
		y.poll()
	}
	y.yield()
}

// A look's outcome.
const (
	goOn     = iota
	stepBack // give the processor up (runtime.Gosched)
	letPoll  // let the runtime poll the network first (netpollNudge)
)

// look says what the statement of ctx does: it steps back when more goroutines wait for a
// processor than statements could, or when any goroutine waits and the statement's workload is
// outranked; it lets the runtime poll the network when every processor runs and nobody waits.
func (y yielder) look(ctx *sql.Context) int {
	l, err := y.load()
	switch {
	case err != nil:
		return stepBack // unknown: yield, as the runtime would at the end of the slice
	case l.Runnable > max(0, y.statements()-l.Procs):
		return stepBack
	case l.Runnable > 0 && y.outranked(ctx):
		return stepBack
	case l.Runnable == 0 && l.Running >= l.Procs:
		return letPoll
	}
	return goOn
}
