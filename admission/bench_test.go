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
