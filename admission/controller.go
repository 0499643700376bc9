package admission

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// AdaptiveCeiling bounds the slot count when no maximum is configured: more statements than
// this never hold a slot at once, however much they block.
const AdaptiveCeiling = 10000

// Limits are the reloadable bounds of a Controller.
type Limits struct {
	MaxSlots  int // max_concurrent_statements: the slot count's ceiling; 0 = AdaptiveCeiling
	MaxQueued int // max_queued_statements: statements that may wait at once; 0 = none may wait
	// StandingInterval and StandingTarget detect a standing queue (CoDel; see the package
	// comment): a queue whose shortest wait over a whole interval exceeded the target keeps
	// one waiter per slot and refuses the others at once. StandingInterval 0 = off.
	StandingInterval time.Duration // queue_codel_interval_ms
	StandingTarget   time.Duration // queue_codel_target_ms
	// StallLimit is admission_stall_limit_ms: a statement that held its slot this long stops
	// counting against the slot count (see the package comment, "Stall limit"); 0 = never.
	StallLimit time.Duration
	// Workloads are the configured workloads; DefaultWorkload is added when absent.
	Workloads []Workload
}

func (l Limits) ceiling() int {
	if l.MaxSlots <= 0 || l.MaxSlots > AdaptiveCeiling {
		return AdaptiveCeiling
	}
	return l.MaxSlots
}

// Options are the parts of a Controller a caller may replace; zero values take defaults.
type Options struct {
	Clock        Clock // default: the system clock
	InitialSlots int   // default: GOMAXPROCS
}

// State is what the Controller shows as gauges.
type State struct {
	Slots    int  // current slot count
	Running  int  // statements holding a slot
	Stalled  int  // statements that run past the stall limit, holding no slot
	Queued   int  // statements waiting for one
	Standing bool // the queue stands: one waiter per slot, the others are refused
}

// Stats are the Controller's cumulative counts.
type Stats struct {
	Queued    uint64 // statements that had to wait
	TimedOut  uint64 // left the queue at their deadline
	Full      uint64 // found the queue full
	Cancelled uint64 // left the queue because their context ended
	Standing  uint64 // refused because the queue stood and held one waiter per slot
	Stalled   uint64 // ran past the stall limit
}

// Ticket is one statement's admission: Release it once when the statement ends.
type Ticket struct {
	w       *workload
	granted int64 // when it took its slot (or started stalled), ns since the epoch
	stalled bool
	// borrowed: it took the slot of a holder of a workload its own ranks before, beyond the
	// slot count (see grant).
	borrowed   bool
	released   bool
	prev, next *Ticket // in holders while it holds a slot
}

// Workload is the name of the workload the ticket's statement runs in.
func (t *Ticket) Workload() string { return t.w.spec.Name }

// Outranked says whether another running statement's workload ranks before this ticket's in
// the order the queue hands out slots in: a better priority, or the same priority and less
// recent CPU use per unit of weight. Such a statement should give its processor up to the
// others when goroutines wait for one. An atomic load: safe to call from the statement's
// goroutines at any time, also after Release (then it no longer changes).
func (t *Ticket) Outranked() bool { return t.w.outranked.Load() }

// Controller hands out CPU slots to statements; see the package comment. Safe for concurrent
// use. Lock order: mu is a leaf lock (nothing else is locked while it is held).
type Controller struct {
	clock Clock
	epoch time.Time
	wake  chan struct{} // a non-blocking signal to a parked Run that work appeared
	// parked is true while Run sleeps for want of work: only then does an arriving statement
	// wake it, so a busy server pays no goroutine wake-up per statement.
	parked atomic.Bool

	mu      sync.Mutex
	limits  Limits
	slots   int
	running int // tickets holding a slot
	stalled int // tickets past the stall limit
	queued  int // waiters in all workloads' queues
	holders holders
	// workloads by name; order is the configuration's, removed ones last.
	workloads map[string]*workload
	order     []*workload
	// waited is the total wait of statements that left the queue; enqueued is the sum of the
	// queued statements' enqueue times (ns since epoch), so the waits in progress are
	// queued·now - enqueued without a walk over the queues.
	waited   time.Duration
	enqueued int64
	stats    Stats
	standing standing
	// lastTick is the time of the previous Tick; lastCPU the process's CPU time when a Tick
	// last read it, 0 when none did since Run woke; sinceRead counts the Ticks since.
	lastTick  int64
	lastCPU   time.Duration
	sinceRead int
	// cpuKnown says a Tick was given the CPU time: a Tick without it then leaves its CPU to
	// the next that reads it. ran sums the ticks' lengths (ns) since that read while statements
	// ran, and each workload's ran its share of them (see account).
	cpuKnown bool
	ran      float64
}

// New returns a Controller with limits.
func New(limits Limits, opts Options) *Controller {
	if opts.Clock == nil {
		opts.Clock = systemClock{}
	}
	if opts.InitialSlots <= 0 {
		opts.InitialSlots = runtime.GOMAXPROCS(0)
	}
	c := &Controller{clock: opts.Clock, wake: make(chan struct{}, 1)}
	c.epoch = c.clock.Now()
	c.limits = limits
	c.slots = min(opts.InitialSlots, limits.ceiling())
	c.setWorkloads(limits.Workloads)
	return c
}

// SetLimits replaces the limits. A lower ceiling lowers the slot count at once (running
// statements finish; new ones wait); a smaller queue refuses newcomers, the waiting stay. A
// workload left out of the new limits is removed once its statements have finished.
func (c *Controller) SetLimits(l Limits) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.StandingInterval != c.limits.StandingInterval || l.StandingTarget != c.limits.StandingTarget {
		c.standing = standing{}
	}
	c.limits = l
	c.slots = min(c.slots, l.ceiling())
	c.setWorkloads(l.Workloads)
	c.grant()
}

// Limits returns the current limits.
func (c *Controller) Limits() Limits {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limits
}

// TryAcquire takes a slot for a statement of the named workload when one is free, nobody
// waits and the workload is under its own bound. On true the caller must Release the ticket
// once when the statement ends.
func (c *Controller) TryAcquire(name string) (*Ticket, bool) {
	c.mu.Lock()
	w := c.workloads[name]
	ok := w != nil && !w.removed && c.free(w)
	var t *Ticket
	if ok {
		t = c.hold(w)
		c.observeWait(0)
	}
	first := ok && c.running+c.stalled == 1
	c.mu.Unlock()
	if first {
		c.signal()
	}
	return t, ok
}

// Acquire takes a slot for a statement of the named workload, waiting in the workload's queue
// for at most maxWait when none is free (maxWait <= 0: no wait). It returns the ticket — the
// caller must Release it once — or a *RejectedError (deadline passed, queue full, unknown
// workload), or ctx's error when ctx ended while waiting.
func (c *Controller) Acquire(ctx context.Context, name string, maxWait time.Duration) (*Ticket, error) {
	if t, ok := c.TryAcquire(name); ok {
		return t, nil
	}
	c.mu.Lock()
	w := c.workloads[name]
	if w == nil || w.removed {
		err := c.rejected(UnknownWorkload, nil, maxWait)
		err.Workload = name
		c.mu.Unlock()
		return nil, err
	}
	if c.free(w) {
		t := c.hold(w) // a slot came free since TryAcquire
		c.observeWait(0)
		c.mu.Unlock()
		return t, nil
	}
	if maxWait <= 0 {
		return nil, c.refuse(w, Timeout, &c.stats.TimedOut, maxWait)
	}
	if c.queued >= c.limits.MaxQueued {
		return nil, c.refuse(w, QueueFull, &c.stats.Full, maxWait)
	}
	if w.spec.MaxQueued > 0 && w.queue.len >= w.spec.MaxQueued {
		return nil, c.refuse(w, WorkloadQueueFull, &c.stats.Full, maxWait)
	}
	if c.queued >= c.slots && c.standingQueue() {
		c.standing.refused = true
		return nil, c.refuse(w, StandingQueue, &c.stats.Standing, maxWait)
	}
	wt := &waiter{ready: make(chan struct{}), w: w, at: c.sinceEpoch()}
	w.queue.push(wt)
	c.queued++
	c.enqueued += wt.at
	w.enqueued += wt.at
	c.stats.Queued++
	// A waiter of a better workload than those waiting may take a free slot at once.
	c.grant()
	// The deadline is armed before the waiter can be seen outside the lock, so that it counts
	// from the clock's reading when the waiter queued. (leave takes mu: a real timer's f runs in
	// its own goroutine, a test clock's outside this call.)
	timer := c.clock.AfterFunc(maxWait, func() { c.leave(wt, expired) })
	c.mu.Unlock()
	c.signal()

	select {
	case <-wt.ready:
	case <-ctx.Done():
		c.leave(wt, cancelled)
		<-wt.ready
	}
	timer.Stop()
	switch wt.state {
	case granted:
		if ctx.Err() != nil {
			c.Release(wt.ticket) // handed a slot as the context ended: give it to the next one
			return nil, ctx.Err()
		}
		return wt.ticket, nil
	case expired:
		c.mu.Lock()
		err := c.rejected(Timeout, w, maxWait)
		c.mu.Unlock()
		return nil, err
	case shed:
		c.mu.Lock()
		err := c.rejected(StandingQueue, w, maxWait)
		c.mu.Unlock()
		return nil, err
	default:
		return nil, ctx.Err()
	}
}

// free says whether a statement of w may take a slot at once: one is free, w is under its own
// bound, and no waiter that could take it waits (waiters of workloads at their bound cannot).
// Called with mu held.
func (c *Controller) free(w *workload) bool {
	return c.running < c.slots && !w.capped() && (c.queued == 0 || c.next() == nil)
}

// refuse counts a statement refused on arrival and unlocks mu. Called with mu held.
func (c *Controller) refuse(w *workload, reason Reason, count *uint64, maxWait time.Duration) *RejectedError {
	*count++
	w.refused++
	err := c.rejected(reason, w, maxWait)
	c.mu.Unlock()
	return err
}

// hold gives w's statement a slot. Called with mu held.
func (c *Controller) hold(w *workload) *Ticket {
	t := &Ticket{w: w, granted: c.sinceEpoch()}
	c.holders.push(t)
	c.running++
	w.running++
	w.admitted++
	if w.running == 1 {
		c.rank() // a workload starts running
	}
	return t
}

// Release gives back a ticket of TryAcquire or Acquire; its slot goes to the next waiter.
func (c *Controller) Release(t *Ticket) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.released {
		panic("admission: ticket released twice")
	}
	t.released = true
	w := t.w
	w.running--
	if t.stalled {
		c.stalled--
		w.stalled--
	} else {
		c.holders.remove(t)
		c.running--
	}
	if t.borrowed {
		w.borrowed--
	}
	c.settleBorrowers()
	if w.running == 0 {
		c.rank() // a workload stops running; grant ranks again if it starts another
	}
	c.grant()
	c.forget(w)
}

// settleBorrowers keeps the borrowers no more than the holders beyond the slot count: when a
// slot comes free, a borrower takes it as its own (oldest first), and so becomes a lender
// again and counts no more against the borrowing of others. Called with mu held.
func (c *Controller) settleBorrowers() {
	excess := max(c.running-c.slots, 0)
	n := c.borrowed()
	for t := c.holders.head; t != nil && n > excess; t = t.next {
		if t.borrowed {
			t.borrowed = false
			t.w.borrowed--
			n--
		}
	}
}

// leave takes wt out of the queue with the given state, if it is still waiting.
func (c *Controller) leave(wt *waiter, state waiterState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if wt.state != waiting {
		return
	}
	c.dequeue(wt)
	switch state {
	case expired:
		c.stats.TimedOut++
		wt.w.refused++
	case cancelled:
		c.stats.Cancelled++
	}
	wt.state = state
	close(wt.ready)
	c.forget(wt.w)
}

// grant hands free slots to the waiters the workloads' order picks. When every slot is taken,
// a waiter still starts if holders of workloads its own ranks before (a worse priority, or the
// same priority and more CPU per unit of weight recently) hold slots that no one borrowed: it
// borrows one of them (beyond the slot count), and the holder runs on beside it but steps back
// from the processor for it (Ticket.Outranked). So a workload waits for the statement of one
// it ranks before only when every slot is lent, and the statements that share the CPU stay at
// most twice the slot count. Called with mu held.
func (c *Controller) grant() {
	for {
		w := c.next()
		if w == nil {
			return
		}
		borrow := c.running >= c.slots
		if borrow && c.borrowed() >= c.lenders(w) {
			return // a worse workload's waiter has no more lenders
		}
		wt := w.queue.head
		c.observeWait(c.dequeue(wt))
		wt.ticket = c.hold(w)
		if borrow {
			wt.ticket.borrowed = true
			w.borrowed++
		}
		wt.state = granted
		close(wt.ready)
	}
}

// lenders are the slot holders that a statement of w may borrow from: those, not stalled and
// not borrowers themselves, of workloads that w ranks before. Called with mu held.
func (c *Controller) lenders(w *workload) int {
	n := 0
	for _, o := range c.order {
		if ranksBefore(w, o) {
			n += o.running - o.stalled - o.borrowed
		}
	}
	return n
}

// borrowed counts the holders that borrowed their slot. Called with mu held.
func (c *Controller) borrowed() int {
	n := 0
	for _, o := range c.order {
		n += o.borrowed
	}
	return n
}

// dequeue takes wt out of its queue and accounts its wait; it returns the wait (ns). Called
// with mu held.
func (c *Controller) dequeue(wt *waiter) int64 {
	wt.w.queue.remove(wt)
	c.queued--
	wait := c.sinceEpoch() - wt.at
	c.enqueued -= wt.at
	c.waited += time.Duration(wait)
	wt.w.enqueued -= wt.at
	wt.w.waited += wait
	return wait
}

func (c *Controller) sinceEpoch() int64 { return int64(c.clock.Now().Sub(c.epoch)) }

// rejected builds the error for a statement of w (nil: unknown) that gets no slot. Called with
// mu held.
func (c *Controller) rejected(reason Reason, w *workload, maxWait time.Duration) *RejectedError {
	e := &RejectedError{
		Reason: reason, Running: c.running, Stalled: c.stalled, Queued: c.queued, Slots: c.slots,
		MaxWait: maxWait, MaxSlots: c.limits.MaxSlots, MaxQueued: c.limits.MaxQueued,
		StandingInterval: c.limits.StandingInterval, StandingTarget: c.limits.StandingTarget,
		StallLimit: c.limits.StallLimit,
	}
	if w != nil {
		e.Workload, e.WorkloadRunning, e.WorkloadQueued = w.spec.Name, w.running, w.queue.len
		e.WorkloadMaxConcurrent, e.WorkloadMaxQueued = w.spec.MaxConcurrent, w.spec.MaxQueued
	}
	if reason == UnknownWorkload {
		for _, o := range c.order {
			if !o.removed {
				e.Known = append(e.Known, o.spec.Name)
			}
		}
	}
	return e
}

// State returns the current gauges.
func (c *Controller) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return State{Slots: c.slots, Running: c.running, Stalled: c.stalled, Queued: c.queued, Standing: c.standingQueue()}
}

// Stats returns the cumulative counts.
func (c *Controller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// QueueWait returns the cumulative time statements spent waiting for a slot, the waits in
// progress included; it never decreases.
func (c *Controller) QueueWait() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waited + time.Duration(int64(c.queued)*c.sinceEpoch()-c.enqueued)
}

// signal wakes Run without blocking, if it is parked.
func (c *Controller) signal() {
	if !c.parked.Load() || !c.parked.CompareAndSwap(true, false) {
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Reason says why a statement got no slot.
type Reason int

const (
	Timeout           Reason = iota + 1 // it waited its maximum (or might not wait at all)
	QueueFull                           // the server's queue was full when it arrived
	StandingQueue                       // the queue stood and held one waiter per slot without it
	WorkloadQueueFull                   // its workload's queue was full when it arrived
	UnknownWorkload                     // it named no workload that new statements may use
)

// RejectedError is a statement's failure to get a slot, with the state at that moment.
type RejectedError struct {
	Reason                          Reason
	Running, Stalled, Queued, Slots int
	MaxWait                         time.Duration
	MaxSlots, MaxQueued             int // the limits in force
	// StandingInterval and StandingTarget are the standing-queue limits in force.
	StandingInterval, StandingTarget time.Duration
	StallLimit                       time.Duration
	// Workload is the statement's workload, with its counts and bounds.
	Workload                                 string
	WorkloadRunning, WorkloadQueued          int
	WorkloadMaxConcurrent, WorkloadMaxQueued int
	// Known are the workloads new statements may name (for UnknownWorkload).
	Known []string
}

func (e *RejectedError) Error() string {
	switch e.Reason {
	case QueueFull:
		return fmt.Sprintf("admission queue full: %d statements running (%d slots), %d queued (max %d)", e.Running, e.Slots, e.Queued, e.MaxQueued)
	case WorkloadQueueFull:
		return fmt.Sprintf("workload %s queue full: %d of its statements queued (max %d)", e.Workload, e.WorkloadQueued, e.WorkloadMaxQueued)
	case StandingQueue:
		return fmt.Sprintf("admission queue standing (waits over %v for %v): %d statements running (%d slots), %d queued (one per slot)",
			e.StandingTarget, e.StandingInterval, e.Running, e.Slots, e.Queued)
	case UnknownWorkload:
		return fmt.Sprintf("unknown workload %q (known: %v)", e.Workload, e.Known)
	}
	return fmt.Sprintf("no CPU slot within %v: %d statements running (%d slots), %d queued", e.MaxWait, e.Running, e.Slots, e.Queued)
}
