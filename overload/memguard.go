package overload

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Memory guard defaults.
const (
	// MemoryResumeRatio is the share of the memory limit the heap must fall under before
	// ordinary statements are accepted again: the hysteresis that keeps one freed row from
	// letting the next big statement in at once.
	MemoryResumeRatio = 0.9
	// memoryCollectEvery is the shortest time between two requests to return memory while the
	// heap stays over the limit: each one is a full collection.
	memoryCollectEvery = time.Second
)

// MemoryGuard decides when the Go heap is over the server's memory limit (see the package
// comment): crossing the limit is an event, the caller cancels its running statements once per
// event and refuses new ones while Over says so; the state ends when the heap falls under
// MemoryResumeRatio of the limit. Check is called from one goroutine; Over from any.
type MemoryGuard struct {
	heap func() uint64 // bytes of heap objects now
	// collect runs a full collection, nil for none: a heap over the limit is read again after
	// it, so that garbage not yet collected (heap objects count it until they are swept) does
	// not stop every statement; only what is still there after it is the statements' memory.
	collect func()

	over        atomic.Bool
	heapBytes   atomic.Uint64 // at the last check
	limitBytes  atomic.Uint64 // at the last check
	lastCollect time.Time     // only Check's goroutine touches it
}

// MemoryCheck is what one check found and what the caller must do.
type MemoryCheck struct {
	Heap, Limit uint64
	// Exceeded: the heap crossed the limit at this check; cancel the running statements.
	Exceeded bool
	// Collect: ask the runtime to return memory (at most once per memoryCollectEvery).
	Collect bool
	// Resumed: the heap fell under the resume ratio at this check; statements are accepted again.
	Resumed bool
}

// NewMemoryGuard is a guard reading the heap with heap and confirming a crossing after
// collect (nil: none); a nil heap reads the Go runtime's (HeapObjects) and collects with
// runtime.GC.
func NewMemoryGuard(heap func() uint64, collect func()) *MemoryGuard {
	if heap == nil {
		heap, collect = HeapObjects(), runtime.GC
	}
	return &MemoryGuard{heap: heap, collect: collect}
}

// Check reads the heap and compares it with limit (bytes; 0 = no limit, the guard is off). A
// heap over the limit while not over yet is read again after a full collection, and counts as
// crossing only if it is still over then.
func (g *MemoryGuard) Check(now time.Time, limit uint64) MemoryCheck {
	heap := g.heap()
	if limit > 0 && heap > limit && !g.over.Load() && g.collect != nil {
		g.collect()
		heap = g.heap()
	}
	g.heapBytes.Store(heap)
	g.limitBytes.Store(limit)
	c := MemoryCheck{Heap: heap, Limit: limit}
	over := g.over.Load()
	switch {
	case !over && limit > 0 && heap > limit:
		g.over.Store(true)
		c.Exceeded, c.Collect = true, true
		g.lastCollect = now
	case over && (limit == 0 || float64(heap) < MemoryResumeRatio*float64(limit)):
		g.over.Store(false)
		c.Resumed = true
	case over && now.Sub(g.lastCollect) >= memoryCollectEvery:
		c.Collect = true
		g.lastCollect = now
	}
	return c
}

// Over reports whether the heap is over the limit (since it crossed it and until it fell under
// the resume ratio), with the heap and limit of the last check.
func (g *MemoryGuard) Over() (over bool, heap, limit uint64) {
	return g.over.Load(), g.heapBytes.Load(), g.limitBytes.Load()
}

// heapObjectsMetric is the runtime's count of bytes in heap objects, live or not yet swept:
// read without stopping the world.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// HeapObjects returns a reader of the Go heap's bytes in objects (runtime/metrics). The reader
// keeps its sample, so it is for one goroutine.
func HeapObjects() func() uint64 {
	sample := []metrics.Sample{{Name: heapObjectsMetric}}
	return func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
}

// heapLiveMetric is the runtime's count of heap bytes found live by the last collection.
const heapLiveMetric = "/gc/heap/live:bytes"

// HeapLive returns a reader of the bytes of the Go heap the last collection found live
// (runtime/metrics): unlike HeapObjects, it leaves out the garbage not yet collected. The
// reader keeps its sample, so it is for one goroutine.
func HeapLive() func() uint64 {
	sample := []metrics.Sample{{Name: heapLiveMetric}}
	return func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
}
