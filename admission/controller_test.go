package admission

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// harness is a Controller on a fake clock with statements that wait in goroutines. It keeps
// the tickets its statements got, in the order they got them.
type harness struct {
	t     *testing.T
	clock *fakeClock
	c     *Controller

	mu   sync.Mutex
	held []*Ticket
}

// keep records a ticket the harness's statement got.
func (h *harness) keep(tk *Ticket) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = append(h.held, tk)
}

// try is TryAcquire in the default workload, keeping the ticket.
func (h *harness) try() bool {
	tk, ok := h.c.TryAcquire(DefaultWorkload)
	if ok {
		h.keep(tk)
	}
	return ok
}

// acquireNow is Acquire in the default workload in the calling goroutine.
func (h *harness) acquireNow(ctx context.Context, maxWait time.Duration) error {
	tk, err := h.c.Acquire(ctx, DefaultWorkload, maxWait)
	if err == nil {
		h.keep(tk)
	}
	return err
}

// release releases the oldest ticket the harness holds.
func (h *harness) release() {
	h.t.Helper()
	h.mu.Lock()
	if len(h.held) == 0 {
		h.mu.Unlock()
		h.t.Fatal("release: the harness holds no ticket")
	}
	tk := h.held[0]
	h.held = h.held[1:]
	h.mu.Unlock()
	h.c.Release(tk)
}

func newHarness(t *testing.T, slots int, limits Limits) *harness {
	t.Helper()
	clock := newFakeClock()
	return &harness{t: t, clock: clock, c: New(limits, Options{Clock: clock, InitialSlots: slots})}
}

// acquire starts a statement that asks for a slot; its result arrives on the channel.
func (h *harness) acquire(ctx context.Context, maxWait time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() { done <- h.acquireNow(ctx, maxWait) }()
	return done
}

// queued starts a statement and waits until it is in the queue, so the order of calls is the
// order of arrival.
func (h *harness) queued(ctx context.Context, maxWait time.Duration) <-chan error {
	h.t.Helper()
	before := h.c.State().Queued
	done := h.acquire(ctx, maxWait)
	h.waitFor(fmt.Sprintf("queue of %d", before+1), func(s State) bool { return s.Queued == before+1 })
	return done
}

// waitFor polls the state (the waiting goroutines run on their own) with a generous deadline.
func (h *harness) waitFor(what string, cond func(State) bool) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond(h.c.State()) {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: not within 5 s; state %+v", what, h.c.State())
		}
		runtime.Gosched()
	}
}

func result(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("Acquire did not return within 5 s")
		return nil
	}
}

func pending(done <-chan error) bool {
	select {
	case err := <-done:
		panic(fmt.Sprintf("returned early: %v", err))
	default:
		return true
	}
}

func TestFastPath(t *testing.T) {
	h := newHarness(t, 2, Limits{MaxQueued: 10})
	for range 2 {
		if !h.try() {
			t.Fatal("a free slot was refused")
		}
	}
	if h.try() {
		t.Fatal("a third statement got one of two slots")
	}
	if s := h.c.State(); s != (State{Slots: 2, Running: 2}) {
		t.Fatalf("state %+v", s)
	}
	h.release()
	if !h.try() {
		t.Fatal("a released slot was not free")
	}
}

func TestFIFOOrder(t *testing.T) {
	h := newHarness(t, 1, Limits{MaxQueued: 10})
	if err := h.acquireNow(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	var waiters []<-chan error
	for range 4 {
		waiters = append(waiters, h.queued(context.Background(), time.Minute))
	}
	// A newcomer finds a free slot only after the queue: it must not overtake.
	if h.try() {
		t.Fatal("TryAcquire overtook the queue")
	}
	for i, w := range waiters {
		h.release()
		if err := result(t, w); err != nil {
			t.Fatalf("waiter %d: %v", i, err)
		}
		for _, later := range waiters[i+1:] {
			pending(later)
		}
		if s := h.c.State(); s.Running != 1 || s.Queued != len(waiters)-i-1 {
			t.Fatalf("after release %d: state %+v", i, s)
		}
	}
	if h.clock.Pending() != 0 {
		t.Errorf("%d deadline timers left running", h.clock.Pending())
	}
}

func TestDeadlines(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxWait time.Duration
		advance []time.Duration // clock steps; the statement must still wait after all but the last
	}{
		{"100 ms", 100 * time.Millisecond, []time.Duration{50 * time.Millisecond, 49 * time.Millisecond, time.Millisecond}},
		{"5 s in one step", 5 * time.Second, []time.Duration{5 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 1, Limits{MaxQueued: 10})
			h.try()
			w := h.queued(context.Background(), tc.maxWait)
			for _, step := range tc.advance[:len(tc.advance)-1] {
				h.clock.Advance(step)
				pending(w)
			}
			h.clock.Advance(tc.advance[len(tc.advance)-1])
			err := result(t, w)
			var re *RejectedError
			if !errors.As(err, &re) || re.Reason != Timeout {
				t.Fatalf("want a timeout, got %v", err)
			}
			if re.Running != 1 || re.Slots != 1 || re.Queued != 0 || re.MaxWait != tc.maxWait {
				t.Errorf("error state %+v", re)
			}
			if s := h.c.State(); s.Queued != 0 || s.Running != 1 {
				t.Errorf("state after the timeout %+v", s)
			}
			if got := h.c.QueueWait(); got != tc.maxWait {
				t.Errorf("QueueWait %v, want %v", got, tc.maxWait)
			}
			if st := h.c.Stats(); st.TimedOut != 1 || st.Queued != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestDeadlineOfOneWaiterLeavesTheOthersInOrder(t *testing.T) {
	h := newHarness(t, 1, Limits{MaxQueued: 10})
	h.try()
	long1 := h.queued(context.Background(), time.Minute)
	short := h.queued(context.Background(), 10*time.Millisecond)
	long2 := h.queued(context.Background(), time.Minute)
	h.clock.Advance(10 * time.Millisecond)
	if err := result(t, short); err == nil {
		t.Fatal("the short waiter got a slot")
	}
	h.release()
	if err := result(t, long1); err != nil {
		t.Fatal(err)
	}
	pending(long2)
	h.release()
	if err := result(t, long2); err != nil {
		t.Fatal(err)
	}
}

func TestNoWait(t *testing.T) {
	h := newHarness(t, 1, Limits{MaxQueued: 10})
	if err := h.acquireNow(context.Background(), 0); err != nil {
		t.Fatalf("a free slot with maxWait 0: %v", err)
	}
	var re *RejectedError
	if err := h.acquireNow(context.Background(), 0); !errors.As(err, &re) || re.Reason != Timeout {
		t.Fatalf("no free slot, maxWait 0: want a timeout at once, got %v", err)
	}
	if s := h.c.State(); s.Queued != 0 {
		t.Errorf("state %+v", s)
	}
}

func TestFullQueue(t *testing.T) {
	for _, maxQueued := range []int{0, 1, 3} {
		t.Run(fmt.Sprint("max ", maxQueued), func(t *testing.T) {
			h := newHarness(t, 1, Limits{MaxQueued: maxQueued})
			h.try()
			var waiters []<-chan error
			for range maxQueued {
				waiters = append(waiters, h.queued(context.Background(), time.Minute))
			}
			err := h.acquireNow(context.Background(), time.Minute)
			var re *RejectedError
			if !errors.As(err, &re) || re.Reason != QueueFull {
				t.Fatalf("want a full queue, got %v", err)
			}
			if re.Queued != maxQueued || re.MaxQueued != maxQueued || re.Running != 1 {
				t.Errorf("error state %+v", re)
			}
			for _, w := range waiters {
				pending(w)
				h.release()
				if err := result(t, w); err != nil {
					t.Fatal(err)
				}
			}
			if st := h.c.Stats(); st.Full != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestCancelWhileQueued(t *testing.T) {
	h := newHarness(t, 1, Limits{MaxQueued: 10})
	h.try()
	first := h.queued(context.Background(), time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	gone := h.queued(ctx, time.Minute)
	last := h.queued(context.Background(), time.Minute)
	h.clock.Advance(30 * time.Millisecond)
	cancel()
	if err := result(t, gone); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	if s := h.c.State(); s.Queued != 2 {
		t.Fatalf("the cancelled waiter is still counted: %+v", s)
	}
	if st := h.c.Stats(); st.Cancelled != 1 {
		t.Errorf("stats %+v", st)
	}
	// Its wait is accounted up to the moment it left; the two others still wait.
	h.clock.Advance(10 * time.Millisecond)
	if got, want := h.c.QueueWait(), 30*time.Millisecond+2*40*time.Millisecond; got != want {
		t.Errorf("QueueWait %v, want %v", got, want)
	}
	for _, w := range []<-chan error{first, last} {
		h.release()
		if err := result(t, w); err != nil {
			t.Fatal(err)
		}
	}
	if s := h.c.State(); s != (State{Slots: 1, Running: 1}) {
		t.Errorf("state %+v", s)
	}
}

func TestCancelledContextBeforeArrival(t *testing.T) {
	h := newHarness(t, 1, Limits{MaxQueued: 10})
	h.try()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.acquireNow(ctx, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if s := h.c.State(); s.Queued != 0 || s.Running != 1 {
		t.Errorf("state %+v", s)
	}
}

// TestSlotReturnedOnEveryExit runs statements that end in each way a statement ends and
// checks that every slot comes back: the caller's deferred Release is the only way out.
func TestSlotReturnedOnEveryExit(t *testing.T) {
	h := newHarness(t, 2, Limits{MaxQueued: 10})
	statement := func(ctx context.Context, body func(context.Context) error) (err error) {
		tk, err := h.c.Acquire(ctx, DefaultWorkload, time.Minute)
		if err != nil {
			return err
		}
		defer h.c.Release(tk)
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return body(ctx)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		body func(context.Context) error
	}{
		{"success", context.Background(), func(context.Context) error { return nil }},
		{"error", context.Background(), func(context.Context) error { return errors.New("syntax error") }},
		{"panic", context.Background(), func(context.Context) error { panic("engine bug") }},
		{"cancelled while running", context.Background(), func(context.Context) error { return context.Canceled }},
		{"cancelled before", cancelled, func(ctx context.Context) error { return ctx.Err() }},
	} {
		_ = statement(tc.ctx, tc.body)
		if s := h.c.State(); s.Running != 0 {
			t.Errorf("%s: %d slot(s) still taken", tc.name, s.Running)
		}
	}
}

func TestQueueWaitNeverDecreases(t *testing.T) {
	h := newHarness(t, 1, Limits{MaxQueued: 100})
	h.try()
	var last time.Duration
	var waiters []<-chan error
	for i := range 20 {
		switch {
		case i%3 == 0:
			waiters = append(waiters, h.queued(context.Background(), time.Hour))
		case len(waiters) > 0:
			h.release()
			if err := result(t, waiters[0]); err != nil {
				t.Fatal(err)
			}
			waiters = waiters[1:]
		}
		h.clock.Advance(7 * time.Millisecond)
		got := h.c.QueueWait()
		if got < last {
			t.Fatalf("step %d: QueueWait went from %v to %v", i, last, got)
		}
		last = got
	}
}

func TestSetLimits(t *testing.T) {
	h := newHarness(t, 4, Limits{MaxSlots: 0, MaxQueued: 10})
	for range 4 {
		h.try()
	}
	h.c.SetLimits(Limits{MaxSlots: 2, MaxQueued: 1})
	if s := h.c.State(); s.Slots != 2 || s.Running != 4 {
		t.Fatalf("a lower ceiling: state %+v (running statements finish, the count falls at once)", s)
	}
	w := h.queued(context.Background(), time.Minute)
	var re *RejectedError
	if err := h.acquireNow(context.Background(), time.Minute); !errors.As(err, &re) || re.Reason != QueueFull {
		t.Fatalf("a smaller queue: %v", err)
	}
	h.release()
	h.release()
	pending(w) // 2 running on 2 slots
	h.release()
	if err := result(t, w); err != nil {
		t.Fatal(err)
	}
}

// step is one tick of the slot adjuster: the scheduler's load, then the expected state.
type step struct {
	load Load
	want State
}

func TestAdjust(t *testing.T) {
	idle := func(procs int) Load { return Load{Runnable: 0, Procs: procs} }
	displaced := func(procs int) Load { return Load{Runnable: 1, Procs: procs} }
	backlog := func(procs, n int) Load { return Load{Runnable: 1 + n, Procs: procs} }
	for _, tc := range []struct {
		name       string
		slots      int
		maxSlots   int
		statements int // arrive before the first tick; those without a slot queue
		steps      []step
	}{
		{"statements that block: one slot more per tick until nobody waits", 2, 0, 5, []step{
			{idle(2), State{Slots: 3, Running: 3, Queued: 2}},
			{idle(2), State{Slots: 4, Running: 4, Queued: 1}},
			{displaced(2), State{Slots: 5, Running: 5, Queued: 0}},
			{idle(2), State{Slots: 6, Running: 5, Queued: 0}},
			{idle(2), State{Slots: 6, Running: 5, Queued: 0}}, // not saturated: no growth
		}},
		{"growth stops at max_concurrent_statements", 2, 3, 5, []step{
			{idle(2), State{Slots: 3, Running: 3, Queued: 2}},
			{idle(2), State{Slots: 3, Running: 3, Queued: 2}},
		}},
		{"CPU-bound on one processor: between one and two slots", 1, 0, 8, []step{
			{displaced(1), State{Slots: 2, Running: 2, Queued: 6}},
			{backlog(1, 1), State{Slots: 1, Running: 2, Queued: 6}},
			{backlog(1, 1), State{Slots: 1, Running: 2, Queued: 6}}, // already over: no lower
			{displaced(1), State{Slots: 2, Running: 2, Queued: 6}},
		}},
		{"Go run queue builds on two processors: shrink to one", 4, 0, 4, []step{
			{backlog(2, 3), State{Slots: 3, Running: 4}},
			{backlog(2, 2), State{Slots: 3, Running: 4}}, // over the count: wait for statements to end
		}},
		{"a backlog below one per processor holds the count", 3, 0, 6, []step{
			{backlog(2, 1), State{Slots: 3, Running: 3, Queued: 3}},
			{backlog(2, 1), State{Slots: 3, Running: 3, Queued: 3}},
		}},
		{"never below one slot", 1, 0, 1, []step{
			{backlog(1, 5), State{Slots: 1, Running: 1}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.slots, Limits{MaxSlots: tc.maxSlots, MaxQueued: 100})
			for range tc.statements {
				if !h.try() {
					h.queued(context.Background(), time.Hour)
				}
			}
			for i, st := range tc.steps {
				h.c.Adjust(st.load)
				if got := h.c.State(); got != st.want {
					t.Fatalf("tick %d with %+v: state %+v, want %+v", i, st.load, got, st.want)
				}
			}
		})
	}
}

// TestShrinkThenRelease: after the count fell, ending statements do not hand their slots on
// until the running ones fit the new count.
func TestShrinkThenRelease(t *testing.T) {
	h := newHarness(t, 3, Limits{MaxQueued: 10})
	for range 3 {
		h.try()
	}
	w := h.queued(context.Background(), time.Hour)
	h.c.Adjust(Load{Runnable: 4, Procs: 1})
	h.c.Adjust(Load{Runnable: 4, Procs: 1})
	if s := h.c.State(); s.Slots != 2 {
		t.Fatalf("state %+v", s)
	}
	h.release()
	pending(w) // 2 running on 2 slots
	h.release()
	if err := result(t, w); err != nil {
		t.Fatal(err)
	}
}

type fakeScheduler struct{ load func() Load }

func (f fakeScheduler) Load() (Load, error) { return f.load(), nil }

// TestRunWakesOnArrival: the adjuster sleeps while idle and grows the count for blocked
// statements once they arrive (real ticks of 1 ms; the test polls the outcome).
func TestRunWakesOnArrival(t *testing.T) {
	c := New(Limits{MaxQueued: 100}, Options{InitialSlots: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx, fakeScheduler{func() Load { return Load{Runnable: 0, Procs: 1} }}, time.Millisecond, func(err error) { t.Error(err) })
	}()
	defer func() {
		cancel()
		<-done
	}()
	var results []chan error
	for range 10 {
		r := make(chan error, 1)
		results = append(results, r)
		go func() {
			_, err := c.Acquire(context.Background(), DefaultWorkload, time.Minute)
			r <- err
		}()
	}
	for i, r := range results {
		if err := result(t, r); err != nil {
			t.Fatalf("statement %d: %v", i, err)
		}
	}
	if s := c.State(); s.Running != 10 || s.Slots < 10 {
		t.Errorf("state %+v", s)
	}
}

func TestGoScheduler(t *testing.T) {
	l, err := NewGoScheduler().Load()
	if err != nil {
		t.Fatal(err)
	}
	if l.Procs < 1 || l.Runnable < 0 {
		t.Errorf("load %+v", l)
	}
}

// TestArrivalsWakeOnlyAParkedRun: the first statement wakes the parked adjuster; statements
// that arrive before its next tick send it nothing (a wake-up per statement cost a busy server
// a goroutine switch each).
func TestArrivalsWakeOnlyAParkedRun(t *testing.T) {
	c := New(Limits{MaxQueued: 100}, Options{InitialSlots: 4})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx, fakeScheduler{func() Load { return Load{Procs: 1} }}, time.Hour, func(err error) { t.Error(err) })
	}()
	defer func() {
		cancel()
		<-done
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !c.parked.Load() {
		if time.Now().After(deadline) {
			t.Fatal("Run did not park while idle")
		}
		time.Sleep(time.Millisecond)
	}
	first, ok := c.TryAcquire(DefaultWorkload)
	if !ok {
		t.Fatal("no slot")
	}
	for c.parked.Load() || len(c.wake) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("Run was not woken by the first statement")
		}
		time.Sleep(time.Millisecond)
	}
	c.Release(first)
	// Each of these finds the server idle, as the first did, but Run is not parked: it waits
	// for its next tick.
	for range 100 {
		tk, ok := c.TryAcquire(DefaultWorkload)
		if !ok {
			t.Fatal("no slot")
		}
		c.Release(tk)
	}
	if n := len(c.wake); n != 0 || c.parked.Load() {
		t.Errorf("after 100 statements between two ticks: %d wake-ups pending, parked %v; want none", n, c.parked.Load())
	}
}
