package admission

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// grants is a harness for workloads: every waiter it starts sends its ticket to one channel,
// so the test learns which statement each release let in.
type grants struct {
	*harness
	got chan *Ticket
}

func newGrants(t *testing.T, slots int, limits Limits) *grants {
	return &grants{harness: newHarness(t, slots, limits), got: make(chan *Ticket, 1000)}
}

// queuedIn starts a statement of the workload that waits (an hour at most) and returns once it
// is queued.
func (g *grants) queuedIn(name string) {
	g.t.Helper()
	before := g.c.State().Queued
	go func() {
		tk, err := g.c.Acquire(context.Background(), name, time.Hour)
		if err != nil {
			g.t.Errorf("%s: %v", name, err)
			return
		}
		g.got <- tk
	}()
	g.waitFor(fmt.Sprintf("queue of %d", before+1), func(s State) bool { return s.Queued == before+1 })
}

// next returns the ticket of the statement that got in.
func (g *grants) next() *Ticket {
	g.t.Helper()
	select {
	case tk := <-g.got:
		return tk
	case <-time.After(5 * time.Second):
		g.t.Fatalf("no statement got in within 5 s; state %+v", g.c.State())
		return nil
	}
}

func (g *grants) take(name string) *Ticket {
	g.t.Helper()
	tk, ok := g.c.TryAcquire(name)
	if !ok {
		g.t.Fatalf("TryAcquire(%s): no free slot; state %+v", name, g.c.State())
	}
	return tk
}

func workloadState(c *Controller, name string) (WorkloadState, bool) {
	for _, w := range c.Workloads() {
		if w.Name == name {
			return w, true
		}
	}
	return WorkloadState{}, false
}

func TestStallLimitReleasesTheSlot(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 10, StallLimit: ms(500)})
	long := g.take(DefaultWorkload)
	g.queuedIn(DefaultWorkload)
	g.clock.Advance(ms(499))
	g.c.Tick(Load{})
	if s := g.c.State(); s != (State{Slots: 1, Running: 1, Queued: 1}) {
		t.Fatalf("before the stall limit: state %+v", s)
	}
	g.clock.Advance(ms(1))
	g.c.Tick(Load{})
	next := g.next()
	if s := g.c.State(); s != (State{Slots: 1, Running: 1, Stalled: 1}) {
		t.Fatalf("at the stall limit: state %+v, want the long one stalled and the next one running", s)
	}
	if st := g.c.Stats(); st.Stalled != 1 {
		t.Errorf("stats %+v", st)
	}
	// The stalled statement runs on; its end frees no slot (it holds none).
	g.queuedIn(DefaultWorkload)
	g.c.Release(long)
	if s := g.c.State(); s != (State{Slots: 1, Running: 1, Queued: 1}) {
		t.Fatalf("after the stalled one ended: state %+v", s)
	}
	g.c.Release(next)
	g.c.Release(g.next())
	if s := g.c.State(); s != (State{Slots: 1}) {
		t.Errorf("state %+v", s)
	}
}

func TestStallLimitOff(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 10})
	g.take(DefaultWorkload)
	g.queuedIn(DefaultWorkload)
	g.clock.Advance(time.Hour - time.Second)
	g.c.Tick(Load{})
	if s := g.c.State(); s != (State{Slots: 1, Running: 1, Queued: 1}) {
		t.Fatalf("stall limit 0: state %+v, want nothing stalled", s)
	}
}

// TestWaitersBehindStalledStatements: while statements run stalled, a waiter that has waited
// the stall limit starts at once, however many long statements are ahead of it; while none
// runs stalled, waiting longer than the limit starts nobody (short statements in a long queue
// keep their order and their slots).
func TestWaitersBehindStalledStatements(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 10, StallLimit: ms(500)})
	first := g.take(DefaultWorkload)
	for range 4 { // three long statements, then a short one, all at 0
		g.queuedIn(DefaultWorkload)
	}
	g.clock.Advance(ms(400))
	g.c.Release(first) // a short holder: the first waiter gets its slot at 400
	holder := g.next()
	g.clock.Advance(ms(100))
	g.c.Tick(Load{})
	if s := g.c.State(); s != (State{Slots: 1, Running: 1, Queued: 3}) {
		t.Fatalf("waits of 500 ms, nobody stalled: state %+v, want the queue kept", s)
	}
	g.clock.Advance(ms(400))
	g.c.Tick(Load{}) // 900: the holder stalls; the next waiter takes the slot, the other two start stalled
	var got []*Ticket
	for range 3 {
		got = append(got, g.next())
	}
	if s := g.c.State(); s != (State{Slots: 1, Running: 1, Stalled: 3}) {
		t.Fatalf("900 ms: state %+v, want one holder and three stalled", s)
	}
	stalled := 0
	for _, tk := range append(got, holder) {
		if tk.stalled {
			stalled++
		}
	}
	if stalled != 3 {
		t.Errorf("%d of the tickets stalled, want 3", stalled)
	}
	for _, tk := range append(got, holder) {
		g.c.Release(tk)
	}
	if s := g.c.State(); s != (State{Slots: 1}) {
		t.Errorf("state %+v", s)
	}
}

// TestStallRespectsTheWorkloadBound: a workload's max_concurrent_statements counts stalled
// statements, so its waiters do not start stalled past it.
func TestStallRespectsTheWorkloadBound(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 10, StallLimit: ms(500),
		Workloads: []Workload{{Name: "etl", MaxConcurrent: 1}}})
	g.take("etl")
	g.queuedIn("etl")
	g.clock.Advance(ms(600))
	g.c.Tick(Load{})
	if s := g.c.State(); s != (State{Slots: 1, Stalled: 1, Queued: 1}) {
		t.Fatalf("state %+v, want the etl waiter held by its workload's bound", s)
	}
	// Another workload takes the free slot.
	other := g.take(DefaultWorkload)
	g.c.Release(other)
}

// fairShare runs one slot at full demand from every workload for n statements of 10 ms of CPU
// each (on the fake clock) and returns how many statements each workload ran.
func fairShare(t *testing.T, workloads []Workload, n int) map[string]int {
	g := newGrants(t, 1, Limits{MaxQueued: 100, Workloads: workloads})
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.Name
	}
	holder := g.take(names[0])
	for _, name := range names {
		g.queuedIn(name)
	}
	var cpu time.Duration
	ran := map[string]int{}
	g.c.Tick(Load{CPU: time.Second})
	cpu = time.Second
	for range n {
		g.clock.Advance(ms(10))
		cpu += ms(10)
		g.c.Tick(Load{CPU: cpu})
		ran[holder.Workload()]++
		g.c.Release(holder)
		holder = g.next()
		g.queuedIn(holder.Workload()) // demand never stops
	}
	return ran
}

func TestFairShare(t *testing.T) {
	for _, tc := range []struct {
		name      string
		workloads []Workload
	}{
		{"two workloads 1:1", []Workload{{Name: "a", Weight: 1}, {Name: "b", Weight: 1}}},
		{"two workloads 3:1", []Workload{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}}},
		{"three workloads 1:1:1", []Workload{{Name: "a", Weight: 1}, {Name: "b", Weight: 1}, {Name: "c", Weight: 1}}},
		{"three workloads 3:1:1", []Workload{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}, {Name: "c", Weight: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 1000
			ran := fairShare(t, tc.workloads, n)
			var total float64
			for _, w := range tc.workloads {
				total += w.Weight
			}
			for _, w := range tc.workloads {
				want := float64(n) * w.Weight / total
				if got := float64(ran[w.Name]); math.Abs(got-want) > 0.05*want {
					t.Errorf("%s (weight %v) ran %v of %d statements, want %.0f ± 5%% (all: %v)", w.Name, w.Weight, got, n, want, ran)
				}
			}
		})
	}
}

func TestPriorityOrder(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 100, Workloads: []Workload{
		{Name: "batch", Priority: 1}, {Name: "web", Priority: 0}, {Name: "urgent", Priority: -1},
	}})
	// web has used far more CPU than batch: priority still wins over the fair share.
	web := g.take("web")
	g.clock.Advance(time.Second)
	g.c.Tick(Load{CPU: time.Second})
	g.c.Tick(Load{CPU: 2 * time.Second})
	g.c.Release(web)
	// The best priority holds the slot, so nobody borrows it (TestBorrowing).
	holder := g.take("urgent")
	for _, name := range []string{"batch", "web", "batch", "urgent", "web"} {
		g.queuedIn(name)
	}
	var order []string
	for range 5 {
		g.c.Release(holder)
		holder = g.next()
		order = append(order, holder.Workload())
	}
	if want := []string{"urgent", "web", "web", "batch", "batch"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if w, _ := workloadState(g.c, "web"); w.Admitted != 3 || w.CPU < time.Second {
		t.Errorf("web: %+v", w)
	}
}

func TestWorkloadBounds(t *testing.T) {
	g := newGrants(t, 2, Limits{MaxQueued: 100, Workloads: []Workload{{Name: "etl", MaxConcurrent: 1, MaxQueued: 1}}})
	etl := g.take("etl")
	// Its own bound: the second etl statement waits while a slot is free...
	g.queuedIn("etl")
	// ...and the third finds its queue full.
	_, err := g.c.Acquire(context.Background(), "etl", time.Hour)
	var re *RejectedError
	if !errors.As(err, &re) || re.Reason != WorkloadQueueFull || re.Workload != "etl" || re.WorkloadMaxQueued != 1 {
		t.Fatalf("a full workload queue: %v", err)
	}
	// The free slot goes to another workload, past the etl waiter.
	other := g.take(DefaultWorkload)
	g.c.Release(etl)
	next := g.next()
	if next.Workload() != "etl" {
		t.Fatalf("got %s", next.Workload())
	}
	if w, _ := workloadState(g.c, "etl"); w.Running != 1 || w.Queued != 0 || w.Admitted != 2 || w.Refused != 1 {
		t.Errorf("etl: %+v", w)
	}
	g.c.Release(next)
	g.c.Release(other)
}

func TestRemovedWorkload(t *testing.T) {
	limits := Limits{MaxQueued: 100, Workloads: []Workload{{Name: "etl"}, {Name: "web"}}}
	g := newGrants(t, 1, limits)
	running := g.take("etl")
	g.queuedIn("etl")
	limits.Workloads = []Workload{{Name: "web"}}
	g.c.SetLimits(limits)

	if g.c.Known("etl") {
		t.Error("a removed workload is still known")
	}
	_, err := g.c.Acquire(context.Background(), "etl", time.Hour)
	var re *RejectedError
	if !errors.As(err, &re) || re.Reason != UnknownWorkload || !slices.Equal(re.Known, []string{"web", DefaultWorkload}) {
		t.Fatalf("a new statement of the removed workload: %v", err)
	}
	if w, ok := workloadState(g.c, "etl"); !ok || !w.Removed || w.Running != 1 || w.Queued != 1 {
		t.Fatalf("the removed workload while its statements run: %+v (listed %v)", w, ok)
	}
	// Its running statement finishes, its waiter is served.
	g.c.Release(running)
	waiter := g.next()
	if waiter.Workload() != "etl" {
		t.Fatalf("got %s", waiter.Workload())
	}
	g.c.Release(waiter)
	if _, ok := workloadState(g.c, "etl"); ok {
		t.Error("the removed workload is still listed after its statements finished")
	}
	// Configured again, it is a new workload.
	limits.Workloads = []Workload{{Name: "web"}, {Name: "etl"}}
	g.c.SetLimits(limits)
	if w, ok := workloadState(g.c, "etl"); !ok || w.Removed || w.Admitted != 0 {
		t.Errorf("etl configured again: %+v", w)
	}
}

func TestCPUAccounting(t *testing.T) {
	g := newGrants(t, 3, Limits{MaxQueued: 10, Workloads: []Workload{{Name: "a"}, {Name: "b"}}})
	cpuOf := func(name string) time.Duration {
		w, _ := workloadState(g.c, name)
		return w.CPU
	}
	g.c.Tick(Load{CPU: time.Second})
	a1, a2, b := g.take("a"), g.take("a"), g.take("b")
	g.clock.Advance(ms(15))
	g.c.Tick(Load{CPU: time.Second + ms(30)})
	if a, b := cpuOf("a"), cpuOf("b"); a != ms(20) || b != ms(10) {
		t.Errorf("CPU: a %v, b %v; want 20ms and 10ms (30 ms shared by three statements)", a, b)
	}
	// Ticks that do not read the CPU time leave it to the next that does, which shares it by
	// the time each workload ran: 10 ms with a, a, b running, then 10 ms with a alone.
	g.clock.Advance(ms(10))
	g.c.Tick(Load{Procs: 3})
	g.c.Release(a2)
	g.c.Release(b)
	if a, b := cpuOf("a"), cpuOf("b"); a != ms(20) || b != ms(10) {
		t.Errorf("after a tick without CPU time: a %v, b %v; want them unchanged", a, b)
	}
	g.clock.Advance(ms(10))
	g.c.Tick(Load{Procs: 3})
	g.clock.Advance(ms(10))
	g.c.Tick(Load{Procs: 3, CPU: time.Second + ms(30) + ms(40)})
	// 40 ms over 30 ms of ticks: a ran 2/3 of the first 10 ms and all of the last 20.
	wantA := ms(20) + time.Duration(float64(ms(40))*(float64(ms(10))*2/3+float64(ms(20)))/float64(ms(30)))
	wantB := ms(10) + time.Duration(float64(ms(40))*(float64(ms(10))/3)/float64(ms(30)))
	if a, b := cpuOf("a"), cpuOf("b"); absDiff(a, wantA) > time.Microsecond || absDiff(b, wantB) > time.Microsecond {
		t.Errorf("after the read: a %v, b %v; want %v and %v", a, b, wantA, wantB)
	}
	g.c.Release(a1)

	// A scheduler that never gives the CPU time: each running statement is charged its share
	// of the processors.
	u := newGrants(t, 3, Limits{MaxQueued: 10, Workloads: []Workload{{Name: "b"}}})
	u.clock.Advance(ms(1)) // a tick at the epoch counts as none
	u.c.Tick(Load{Procs: 3})
	ub := u.take("b")
	u.clock.Advance(ms(10))
	u.c.Tick(Load{Procs: 3})
	if w, _ := workloadState(u.c, "b"); w.CPU != ms(10) {
		t.Errorf("b without CPU time: %v, want 10ms", w.CPU)
	}
	u.c.Release(ub)
}

func absDiff(a, b time.Duration) time.Duration {
	if a > b {
		return a - b
	}
	return b - a
}

// TestRunReadsCPUEveryFewTicks: Run reads the process's CPU time at its first tick, every
// CPUReadEvery-th, and whenever no statement runs; the other ticks read only the run queue.
func TestRunReadsCPUEveryFewTicks(t *testing.T) {
	c := New(Limits{MaxQueued: 10}, Options{InitialSlots: 2})
	want := func(step string, v bool) {
		t.Helper()
		if got := c.wantsCPU(); got != v {
			t.Fatalf("%s: wantsCPU %v, want %v", step, got, v)
		}
	}
	want("idle", true)
	tk, _ := c.TryAcquire(DefaultWorkload)
	want("first tick", true)
	c.Tick(Load{Procs: 1, CPU: time.Second})
	for i := 1; i < CPUReadEvery; i++ {
		want(fmt.Sprintf("tick %d", i), false)
		c.Tick(Load{Procs: 1})
	}
	want(fmt.Sprintf("tick %d", CPUReadEvery), true)
	c.Tick(Load{Procs: 1, CPU: 2 * time.Second})
	want("after the read", false)
	c.Release(tk)
	want("nothing runs", true)
}
