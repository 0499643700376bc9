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

// sampleRing is a ring of the most recent samples, oldest first.
type sampleRing struct {
	buf        []sample
	head, size int
}

func (r *sampleRing) at(i int) *sample { return &r.buf[(r.head+i)%len(r.buf)] }

func (r *sampleRing) newest() *sample { return r.at(r.size - 1) }

// newestOrNil returns a copy of the newest sample, nil when there is none.
func (r *sampleRing) newestOrNil() *sample {
	if r.size == 0 {
		return nil
	}
	s := *r.newest()
	return &s
}

// push appends s, overwriting the oldest sample when the ring is full.
func (r *sampleRing) push(s sample) {
	if r.size == len(r.buf) {
		r.buf[r.head] = s
		r.head = (r.head + 1) % len(r.buf)
		return
	}
	r.buf[(r.head+r.size)%len(r.buf)] = s
	r.size++
}

// resize changes the capacity, keeping the newest samples.
func (r *sampleRing) resize(capacity int) {
	if capacity == len(r.buf) {
		return
	}
	keep := min(r.size, capacity)
	buf := make([]sample, capacity)
	for i := range keep {
		buf[i] = *r.at(r.size - keep + i)
	}
	r.buf, r.head, r.size = buf, 0, keep
}

// baseline returns the sample the newest one is compared with: the newest
// sample that is at least window old, within tolerance (half an interval,
// so timer jitter does not stretch the window by a whole interval), or the
// oldest sample when none is. Older samples are dropped.
func (r *sampleRing) baseline(window, tolerance time.Duration) *sample {
	newest := r.newest()
	for i := r.size - 2; i >= 0; i-- {
		if newest.at.Sub(r.at(i).at) >= window-tolerance {
			r.head = (r.head + i) % len(r.buf)
			r.size -= i
			return r.at(0)
		}
	}
	return r.at(0)
}
