package overload

import "time"

// sample holds the cumulative counters taken at one instant. Ratios come
// from the difference of two samples one window apart.
type sample struct {
	at        time.Time
	threads   threadTimes // busy and kernel wait of all threads, ns
	threadsOK bool
	goWait    uint64 // Go run-queue wait, ns, bounded (see goWaitBound)
	goWaitRaw uint64 // the runtime histogram's estimate, ns
	goExcess  uint64 // cumulative statements-over-processors integral, ns
	goWaitOK  bool
	// kernelWaitRaw is the threads' kernel wait as kernelWait counts it, ns; threads.wait is
	// that bounded (see goWaitBound). kernelWanted is the cumulative processor time the
	// running statements wanted, ns.
	kernelWaitRaw uint64
	kernelWanted  uint64
	queueWait     uint64 // admission queue wait, ns
	queueWaitOK   bool
	processCPU    uint64 // process CPU time from getrusage, ns
	processCPUOK  bool
	cpu           cpuTimes // host /proc/stat
	cpuOK         bool
	cgroupQuota   float64 // CPUs, with a cgroup CPU quota
	cgroupUsage   uint64  // cgroup CPU usage, ns, with a quota
	cgroupOK      bool
}

// history is a ring of the most recent samples, oldest first.
type history struct {
	buf        []sample
	head, size int
}

func (h *history) at(i int) *sample { return &h.buf[(h.head+i)%len(h.buf)] }

func (h *history) newest() *sample { return h.at(h.size - 1) }

// newestOrNil returns a copy of the newest sample, nil when there is none.
func (h *history) newestOrNil() *sample {
	if h.size == 0 {
		return nil
	}
	s := *h.newest()
	return &s
}

// push appends s, overwriting the oldest sample when the ring is full.
func (h *history) push(s sample) {
	if h.size == len(h.buf) {
		h.buf[h.head] = s
		h.head = (h.head + 1) % len(h.buf)
		return
	}
	h.buf[(h.head+h.size)%len(h.buf)] = s
	h.size++
}

// resize changes the capacity, keeping the newest samples.
func (h *history) resize(capacity int) {
	if capacity == len(h.buf) {
		return
	}
	keep := min(h.size, capacity)
	buf := make([]sample, capacity)
	for i := range keep {
		buf[i] = *h.at(h.size - keep + i)
	}
	h.buf, h.head, h.size = buf, 0, keep
}

// baseline returns the sample the newest one is compared with: the newest
// sample that is at least window old, within tolerance (half an interval,
// so timer jitter does not stretch the window by a whole interval), or the
// oldest sample when none is. Older samples are dropped.
func (h *history) baseline(window, tolerance time.Duration) *sample {
	newest := h.newest()
	for i := h.size - 2; i >= 0; i-- {
		if newest.at.Sub(h.at(i).at) >= window-tolerance {
			h.head = (h.head + i) % len(h.buf)
			h.size -= i
			return h.at(0)
		}
	}
	return h.at(0)
}
