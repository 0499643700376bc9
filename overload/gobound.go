package overload

import (
	"runtime"
	"time"
)

// goWaitBound caps the Go run-queue wait, and the kernel's, by what the server's statements can
// explain.
//
// The runtime's scheduling-latency histogram counts every goroutine, the runtime's own among
// them: the background sweeper and the GC workers yield whenever another goroutine wants the
// CPU, and then wait a whole scheduling slice: the runtime's housekeeping, not overload
// (docs/design.md gives the figures). And while a noisy neighbour holds the CPU the
// histogram counts the kernel's wait a second time. With R statements running on c
// processors at most R-c of them wait at any time, so the Go wait over a window is capped at
// the integral of max(0, R-c) over the window. The cap applies over the whole window, not per
// sample: the runtime records one scheduling event in eight, so the histogram grows in lumps.
//
// The kernel counts the wait of threads, not of statements, and the two differ when a
// statement moves between threads: the Go scheduler hands a goroutine to whichever thread has
// a processor free, so one CPU-bound statement runs on two or three threads in turn, each of
// them runnable, and waiting behind a neighbour or a CPU quota, for much of the time it does
// not run the statement (spinning in search of work, or just woken). Their waits add up to more
// than the statement's (docs/design.md, What it measures). What the statements can have waited for
// the kernel is bounded the other way round: the processors they wanted, min(R, c) over the
// window, less the CPU time the process got. So the kernel wait over a window is the smaller
// of the threads' wait and that. Statements that block (on a lock, on SLEEP, on a slow client)
// make the bound loose, not wrong: their threads do not wait.
// Without a statement count both parts are used as measured.
type goWaitBound struct {
	running func() int // statements running now; nil = no bound
	procs   func() int // processors the Go scheduler runs goroutines on

	lastAt time.Time
	excess uint64 // cumulative integral of max(0, R-c), ns
	wanted uint64 // cumulative integral of min(R, c), ns: processor time the statements wanted
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

// advance adds the statements' excess over the processors, and the processors they wanted,
// since the last call, and returns both cumulative integrals (ns).
func (b *goWaitBound) advance(at time.Time) (excess, wanted uint64) {
	if !b.bounded() {
		return 0, 0
	}
	if !b.lastAt.IsZero() && at.After(b.lastAt) {
		running, procs, dt := b.running(), b.procs(), uint64(at.Sub(b.lastAt))
		b.excess += uint64(max(0, running-procs)) * dt
		b.wanted += uint64(max(0, min(running, procs))) * dt
	}
	b.lastAt = at
	return b.excess, b.wanted
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

// boundedKernelWait is the cumulative bounded kernel wait of newest: over the window from base
// it grows by the threads' wait, at most by the processor time the statements wanted and did
// not get; it never decreases.
func boundedKernelWait(base, previous, newest *sample) uint64 {
	busy := newest.threads.busy - base.threads.busy
	wanted := newest.kernelWanted - base.kernelWanted
	var missed uint64
	if wanted > busy {
		missed = wanted - busy
	}
	target := base.threads.wait + min(newest.kernelWaitRaw-base.kernelWaitRaw, missed)
	return max(previous.threads.wait, target)
}
