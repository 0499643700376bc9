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
	g := NewMemoryGuard(func() uint64 { return heap })
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
	g := NewMemoryGuard(nil)
	now := time.Now()
	for b.Loop() {
		g.Check(now, 1<<62)
	}
}
