package admission

import (
	"testing"
	"time"
)

// BenchmarkGoSchedulerLoad is one look of Run at the Go scheduler and the process's CPU time.
func BenchmarkGoSchedulerLoad(b *testing.B) {
	g := NewGoScheduler()
	for b.Loop() {
		if _, err := g.Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTick is what Run does at each tick while statements run (tick: a look at the
// scheduler and Tick), with 4 statements of two workloads running.
func BenchmarkRunTick(b *testing.B) {
	clock := newFakeClock()
	c := New(Limits{MaxQueued: 100, StallLimit: time.Hour, Workloads: []Workload{{Name: "a"}, {Name: "b"}}},
		Options{Clock: clock, InitialSlots: 4})
	for _, w := range []string{"a", "a", "b", DefaultWorkload} {
		if _, ok := c.TryAcquire(w); !ok {
			b.Fatal("no slot")
		}
	}
	g := NewGoScheduler()
	for b.Loop() {
		clock.Advance(time.Millisecond)
		if err := c.tick(g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueue is a workload queue's work for 64 waiters: each joins the tail, every fourth
// leaves from the middle (its deadline or its client), the rest are served from the head; and
// the holders' list as statements take and give back slots out of order.
func BenchmarkQueue(b *testing.B) {
	ws := make([]*waiter, 64)
	for i := range ws {
		ws[i] = &waiter{}
	}
	ts := make([]*Ticket, 64)
	for i := range ts {
		ts[i] = &Ticket{}
	}
	for b.Loop() {
		var q queue
		for _, w := range ws {
			q.push(w)
		}
		for i := 1; i < len(ws); i += 4 {
			q.remove(ws[i])
		}
		for q.len > 0 {
			q.remove(q.head)
		}
		var h holders
		for _, t := range ts {
			h.push(t)
		}
		for i := len(ts) - 1; i >= 0; i -= 2 {
			h.remove(ts[i])
		}
		for h.head != nil {
			h.remove(h.head)
		}
	}
}
