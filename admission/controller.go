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
// this never run at once, however much they block.
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
}

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
	running int
	queue   queue
	// waited is the total wait of statements that left the queue; enqueued is the sum of the
	// queued statements' enqueue times (ns since epoch), so the waits in progress are
	// len(queue)·now - enqueued without a walk over the queue.
	waited   time.Duration
	enqueued int64
	stats    Stats
	standing standing
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
	return c
}

// SetLimits replaces the limits. A lower ceiling lowers the slot count at once (running
// statements finish; new ones wait); a smaller queue refuses newcomers, the waiting stay.
func (c *Controller) SetLimits(l Limits) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.StandingInterval != c.limits.StandingInterval || l.StandingTarget != c.limits.StandingTarget {
		c.standing = standing{}
	}
	c.limits = l
	c.slots = min(c.slots, l.ceiling())
	c.grant()
}

// Limits returns the current limits.
func (c *Controller) Limits() Limits {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limits
}

// TryAcquire takes a slot when one is free and nobody waits. On true the caller must call
// Release once when the statement ends.
func (c *Controller) TryAcquire() bool {
	c.mu.Lock()
	ok := c.running < c.slots && c.queue.len == 0
	if ok {
		c.running++
		c.observeWait(0)
	}
	first := ok && c.running == 1
	c.mu.Unlock()
	if first {
		c.signal()
	}
	return ok
}

// Acquire takes a slot, waiting in the queue for at most maxWait when none is free (maxWait
// <= 0: no wait). It returns nil with the slot taken — the caller must call Release once — or
// a *RejectedError (deadline passed, queue full), or ctx's error when ctx ended while waiting.
func (c *Controller) Acquire(ctx context.Context, maxWait time.Duration) error {
	if c.TryAcquire() {
		return nil
	}
	c.mu.Lock()
	if c.running < c.slots && c.queue.len == 0 {
		c.running++ // a slot came free since TryAcquire
		c.observeWait(0)
		c.mu.Unlock()
		return nil
	}
	if maxWait <= 0 {
		c.stats.TimedOut++
		err := c.rejected(Timeout, maxWait)
		c.mu.Unlock()
		return err
	}
	if c.queue.len >= c.limits.MaxQueued {
		c.stats.Full++
		err := c.rejected(QueueFull, maxWait)
		c.mu.Unlock()
		return err
	}
	if c.queue.len >= c.slots && c.standingQueue() {
		c.stats.Standing++
		c.standing.refused = true
		err := c.rejected(StandingQueue, maxWait)
		c.mu.Unlock()
		return err
	}
	w := &waiter{ready: make(chan struct{}), at: c.sinceEpoch()}
	c.queue.push(w)
	c.enqueued += w.at
	c.stats.Queued++
	c.mu.Unlock()
	c.signal()

	timer := c.clock.AfterFunc(maxWait, func() { c.leave(w, expired) })
	select {
	case <-w.ready:
	case <-ctx.Done():
		c.leave(w, cancelled)
		<-w.ready
	}
	timer.Stop()
	switch w.state {
	case granted:
		if ctx.Err() != nil {
			c.Release() // handed a slot as the context ended: give it to the next one
			return ctx.Err()
		}
		return nil
	case expired:
		c.mu.Lock()
		err := c.rejected(Timeout, maxWait)
		c.mu.Unlock()
		return err
	case shed:
		c.mu.Lock()
		err := c.rejected(StandingQueue, maxWait)
		c.mu.Unlock()
		return err
	default:
		return ctx.Err()
	}
}

// Release gives back a slot taken by TryAcquire or Acquire; the head of the queue gets it.
func (c *Controller) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running <= 0 {
		panic("admission: Release without a slot")
	}
	c.running--
	c.grant()
}

// leave takes w out of the queue with the given state, if it is still waiting.
func (c *Controller) leave(w *waiter, state waiterState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.state != waiting {
		return
	}
	c.queue.remove(w)
	c.dequeued(w)
	switch state {
	case expired:
		c.stats.TimedOut++
	case cancelled:
		c.stats.Cancelled++
	}
	w.state = state
	close(w.ready)
}

// grant hands free slots to the head of the queue. Called with mu held.
func (c *Controller) grant() {
	for c.running < c.slots && c.queue.len > 0 {
		w := c.queue.pop()
		c.observeWait(c.dequeued(w))
		c.running++
		w.state = granted
		close(w.ready)
	}
}

// dequeued accounts w's wait once it left the queue and returns it (ns). Called with mu held.
func (c *Controller) dequeued(w *waiter) int64 {
	wait := c.sinceEpoch() - w.at
	c.enqueued -= w.at
	c.waited += time.Duration(wait)
	return wait
}

func (c *Controller) sinceEpoch() int64 { return int64(c.clock.Now().Sub(c.epoch)) }

// rejected builds the error for a statement that gets no slot. Called with mu held.
func (c *Controller) rejected(reason Reason, maxWait time.Duration) *RejectedError {
	return &RejectedError{
		Reason: reason, Running: c.running, Queued: c.queue.len, Slots: c.slots,
		MaxWait: maxWait, MaxSlots: c.limits.MaxSlots, MaxQueued: c.limits.MaxQueued,
		StandingInterval: c.limits.StandingInterval, StandingTarget: c.limits.StandingTarget,
	}
}

// State returns the current gauges.
func (c *Controller) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return State{Slots: c.slots, Running: c.running, Queued: c.queue.len, Standing: c.standingQueue()}
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
	return c.waited + time.Duration(int64(c.queue.len)*c.sinceEpoch()-c.enqueued)
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
	Timeout       Reason = iota + 1 // it waited its maximum (or might not wait at all)
	QueueFull                       // the queue was full when it arrived
	StandingQueue                   // the queue stood and held one waiter per slot without it
)

// RejectedError is a statement's failure to get a slot, with the state at that moment.
type RejectedError struct {
	Reason                 Reason
	Running, Queued, Slots int
	MaxWait                time.Duration
	MaxSlots, MaxQueued    int // the limits in force
	// StandingInterval and StandingTarget are the standing-queue limits in force.
	StandingInterval, StandingTarget time.Duration
}

func (e *RejectedError) Error() string {
	switch e.Reason {
	case QueueFull:
		return fmt.Sprintf("admission queue full: %d statements running (%d slots), %d queued (max %d)", e.Running, e.Slots, e.Queued, e.MaxQueued)
	case StandingQueue:
		return fmt.Sprintf("admission queue standing (waits over %v for %v): %d statements running (%d slots), %d queued (one per slot)",
			e.StandingTarget, e.StandingInterval, e.Running, e.Slots, e.Queued)
	}
	return fmt.Sprintf("no CPU slot within %v: %d statements running (%d slots), %d queued", e.MaxWait, e.Running, e.Slots, e.Queued)
}
