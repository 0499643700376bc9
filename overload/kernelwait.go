package overload

// negligibleShare: a thread whose busy time in a sampling interval is under this fraction of the
// process's busy time in it does no work worth speaking of (the runtime's sysmon, idle
// scheduler threads, the netpoller), and its kernel wait is left out.
const negligibleShare = 0.05

// kernelWait is the kernel run-queue wait of one sampling interval, from each thread's busy and
// wait in it and the time the cgroup's CPU quota throttled it (throttledOK: the cgroup reports
// throttling).
//
// Two corrections make it the wait of the server's work rather than of its threads:
//
//   - A thread with a negligible share of the busy time is left out. Such a thread wakes up
//     often and waits behind a neighbour at every wake-up, so its wait is of the order of the
//     busy threads' while it delays nothing: counted, one statement beside two equal neighbours
//     read about 2.4 instead of 2.
//   - Under a quota, every runnable thread accrues the throttled time as wait, whatever it would
//     have done with the CPU; ten runnable threads count a throttled second ten times. The
//     cgroup reports the throttled time once per CPU that was throttled (cpu.stat), which is the
//     wait of the work the quota held back. So each counted thread's wait loses an equal share
//     of the throttled time, and the throttled time is added once.
func kernelWait(threads []threadTimes, throttled uint64, throttledOK bool) uint64 {
	var busy uint64
	for _, t := range threads {
		busy += t.busy
	}
	counts := func(t threadTimes) bool { return t.busy > 0 && float64(t.busy) >= negligibleShare*float64(busy) }
	var n uint64
	for _, t := range threads {
		if counts(t) {
			n++
		}
	}
	var share uint64
	if throttledOK && n > 0 {
		share = throttled / n
	}
	var wait uint64
	for _, t := range threads {
		if counts(t) && t.wait > share {
			wait += t.wait - share
		}
	}
	if throttledOK {
		wait += throttled
	}
	return wait
}
