package overload

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestMemoryGuard is a story: the heap grows over the limit, stays over it, falls between the
// resume ratio and the limit, then under the resume ratio, and grows again.
func TestMemoryGuard(t *testing.T) {
	const limit = 1000
	start := time.Unix(1_700_000_000, 0)
	steps := []struct {
		at    time.Duration
		heap  uint64
		limit uint64
		want  MemoryCheck
		over  bool
	}{
		{at: 0, heap: 500, limit: limit, want: MemoryCheck{}},
		{at: 10 * time.Millisecond, heap: 1000, limit: limit, want: MemoryCheck{}},
		{at: 20 * time.Millisecond, heap: 1001, limit: limit, want: MemoryCheck{Exceeded: true, Collect: true}, over: true},
		{at: 30 * time.Millisecond, heap: 1500, limit: limit, want: MemoryCheck{}, over: true},
		{at: 40 * time.Millisecond, heap: 950, limit: limit, want: MemoryCheck{}, over: true},
		{at: 1020 * time.Millisecond, heap: 950, limit: limit, want: MemoryCheck{Collect: true}, over: true},
		{at: 1030 * time.Millisecond, heap: 900, limit: limit, want: MemoryCheck{}, over: true},
		{at: 1040 * time.Millisecond, heap: 899, limit: limit, want: MemoryCheck{Resumed: true}},
		{at: 1050 * time.Millisecond, heap: 990, limit: limit, want: MemoryCheck{}},
		{at: 1060 * time.Millisecond, heap: 2000, limit: limit, want: MemoryCheck{Exceeded: true, Collect: true}, over: true},
		{at: 1070 * time.Millisecond, heap: 2000, limit: 0, want: MemoryCheck{Resumed: true}},
		{at: 1080 * time.Millisecond, heap: 1 << 40, limit: 0, want: MemoryCheck{}},
	}
	var heap uint64
	g := NewMemoryGuard(func() uint64 { return heap }, nil)
	for i, s := range steps {
		heap = s.heap
		got := g.Check(start.Add(s.at), s.limit)
		want := s.want
		want.Heap, want.Limit = s.heap, s.limit
		if got != want {
			t.Errorf("step %d (heap %d, limit %d): got %+v, want %+v", i, s.heap, s.limit, got, want)
		}
		over, h, l := g.Over()
		if over != s.over || h != s.heap || l != s.limit {
			t.Errorf("step %d: Over() = %v, %d, %d; want %v, %d, %d", i, over, h, l, s.over, s.heap, s.limit)
		}
	}
}

// A heap over the limit is read again after a collection: garbage alone is no crossing, and
// what stays after the collection is. Once over, the guard does not collect at each check.
func TestMemoryGuardConfirmsACrossingAfterACollection(t *testing.T) {
	const limit = 1000
	start := time.Unix(1_700_000_000, 0)
	var heap, live uint64
	collections := 0
	g := NewMemoryGuard(func() uint64 { return heap }, func() { collections++; heap = live })
	for i, s := range []struct {
		heap, live  uint64
		exceeded    bool
		collections int
	}{
		{heap: 900, live: 400, collections: 0},
		{heap: 1200, live: 700, collections: 1}, // garbage: no crossing
		{heap: 1100, live: 1050, exceeded: true, collections: 2},
		{heap: 1300, live: 1050, collections: 2}, // over already: no collection
	} {
		heap, live = s.heap, s.live
		c := g.Check(start.Add(time.Duration(i)*10*time.Millisecond), limit)
		if c.Exceeded != s.exceeded || collections != s.collections {
			t.Errorf("step %d: exceeded %v after %d collections, want %v after %d", i, c.Exceeded, collections, s.exceeded, s.collections)
		}
		if c.Exceeded && c.Heap != s.live {
			t.Errorf("step %d: heap %d reported, want %d read after the collection", i, c.Heap, s.live)
		}
	}
}

func TestHeapObjectsReadsTheRuntime(t *testing.T) {
	// The metric counts dead objects until they are swept: a collection between the two reads
	// (the 64 MiB below can start one) would free what earlier tests, or this one under
	// -count=2, left behind. Collect first and hold the collector off while measuring.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	read := HeapObjects()
	before := read()
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 1<<20))
	}
	after := read()
	if before == 0 || after < before+32<<20 {
		t.Errorf("heap objects: %d before and %d after allocating 64 MiB", before, after)
	}
	_ = keep[len(keep)-1][0]
}

// BenchmarkMemoryGuardCheck is the cost of one check with the runtime's reader (every 10 ms in
// the server).
func BenchmarkMemoryGuardCheck(b *testing.B) {
	g := NewMemoryGuard(nil, nil)
	now := time.Now()
	for b.Loop() {
		g.Check(now, 1<<62)
	}
}
