package overload

import (
	"runtime"
	"time"
)

// goWaitBound caps the Go run-queue wait by what the server's statements can explain.
//
// The runtime's scheduling-latency histogram counts every goroutine, the runtime's own among
// them: the background sweeper and the GC workers yield whenever another goroutine wants the
// CPU, and then wait a whole scheduling slice: the runtime's housekeeping, not overload (the
// README gives the figures). And while a noisy neighbour holds the CPU the
// histogram counts the kernel's wait a second time. With R statements running on c
// processors at most R-c of them wait at any time, so the Go wait over a window is capped at
// the integral of max(0, R-c) over the window. The cap applies over the whole window, not per
// sample: the runtime records one scheduling event in eight, so the histogram grows in lumps.
// Without a statement count the histogram is used as it is.
type goWaitBound struct {
	running func() int // statements running now; nil = no bound
	procs   func() int // processors the Go scheduler runs goroutines on

	lastAt time.Time
	excess uint64 // cumulative integral of max(0, R-c), ns
}

func newGoWaitBound(running func() int) *goWaitBound {
	return &goWaitBound{running: running, procs: func() int { return runtime.GOMAXPROCS(0) }}
}

func (b *goWaitBound) bounded() bool { return b.running != nil }

// busyShare is the share of the processors the running statements want now, at most 1 (-1
// without a statement count), and the number of processors.
func (b *goWaitBound) busyShare() (float64, int) {
	procs := max(b.procs(), 1)
	if !b.bounded() {
		return -1, procs
	}
	return min(float64(b.running())/float64(procs), 1), procs
}

// advance adds the statements' excess over the processors since the last call, and returns the
// cumulative excess (ns).
func (b *goWaitBound) advance(at time.Time) uint64 {
	if !b.bounded() {
		return 0
	}
	if !b.lastAt.IsZero() && at.After(b.lastAt) {
		b.excess += uint64(max(0, b.running()-b.procs())) * uint64(at.Sub(b.lastAt))
	}
	b.lastAt = at
	return b.excess
}

// boundedWait is the cumulative bounded Go wait of newest: over the window from base it grows by
// min(histogram growth, excess growth), and it never decreases.
func boundedWait(base, previous, newest *sample) uint64 {
	if newest == base {
		return newest.goWait
	}
	target := base.goWait + min(newest.goWaitRaw-base.goWaitRaw, newest.goExcess-base.goExcess)
	return max(previous.goWait, target)
}
