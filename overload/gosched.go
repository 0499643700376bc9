package overload

import (
	"fmt"
	"math"
	"runtime/metrics"
)

const (
	// schedLatencies is the runtime's histogram of the time goroutines spent
	// runnable before they ran.
	schedLatencies = "/sched/latencies:seconds"
	// goTrackingPeriod is the runtime's gTrackingPeriod (runtime2.go, Go
	// 1.26): it records one in this many scheduling events in the histogram,
	// so the sum over the buckets is scaled by it. TestRealGoWaitScaling catches a
	// change of the constant.
	goTrackingPeriod = 8
)

// goWaitSource returns the cumulative time the process's goroutines waited
// in the Go run queue, in nanoseconds.
type goWaitSource interface {
	read() (uint64, error)
}

// goSchedWait estimates the Go run-queue wait from the runtime's scheduling
// latency histogram. Each sample adds, for every bucket, the new events
// times the bucket's midpoint (the lower bound for the open last bucket, the
// upper bound for the underflow bucket), scaled by goTrackingPeriod.
type goSchedWait struct {
	samples []metrics.Sample
	prev    []uint64
	seconds float64
}

func newGoSchedWait() *goSchedWait {
	return &goSchedWait{samples: []metrics.Sample{{Name: schedLatencies}}}
}

func (g *goSchedWait) read() (uint64, error) {
	metrics.Read(g.samples)
	v := g.samples[0].Value
	if v.Kind() != metrics.KindFloat64Histogram {
		return 0, fmt.Errorf("runtime/metrics %s is not supported by this Go runtime", schedLatencies)
	}
	h := v.Float64Histogram()
	if len(h.Buckets) != len(h.Counts)+1 {
		return 0, fmt.Errorf("runtime/metrics %s: %d buckets for %d counts", schedLatencies, len(h.Buckets), len(h.Counts))
	}
	if len(g.prev) != len(h.Counts) {
		g.prev = make([]uint64, len(h.Counts))
	}
	for i, n := range h.Counts {
		if n <= g.prev[i] {
			continue
		}
		g.seconds += float64(n-g.prev[i]) * bucketValue(h.Buckets[i], h.Buckets[i+1]) * goTrackingPeriod
		g.prev[i] = n
	}
	return uint64(g.seconds * 1e9), nil
}

// bucketValue is the representative latency of the bucket [lo, hi).
func bucketValue(lo, hi float64) float64 {
	switch {
	case math.IsInf(hi, 1):
		return lo
	case math.IsInf(lo, -1):
		return max(hi, 0)
	default:
		return (lo + hi) / 2
	}
}
