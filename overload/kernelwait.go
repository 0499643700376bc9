package overload

// negligibleShare: a thread whose busy time in a sampling interval is under this fraction of the
// process's busy time in it does no work worth speaking of (the runtime's sysmon, idle
// scheduler threads, the netpoller), and its kernel wait is left out.
const negligibleShare = 0.05

// kernelWait is the kernel run-queue wait of one sampling interval, from each thread's busy and
// wait in it and the time the cgroup's CPU quota throttled it (throttledOK: the cgroup reports
// throttling). busyShare is the share of the processors that the server's work wanted during the
// interval (running statements over GOMAXPROCS, at most 1; negative when unknown: then the
// busy threads are taken for the work), procs their number.
//
// Two corrections make it the wait of the server's work rather than of its threads:
//
//   - A thread with a negligible share of the busy time is left out. Such a thread wakes up
//     often and waits behind a neighbour at every wake-up, so its wait is of the order of the
//     busy threads' while it delays nothing.
//   - Under a quota, every runnable thread accrues the throttled time as wait, whatever it would
//     have done with the CPU (the Go scheduler's idle processors spin, so their threads are
//     runnable too); ten runnable threads count a throttled second ten times. So the throttled
//     wall time is taken out of each counted thread's wait (the cgroup's throttled time,
//     cpu.stat, is summed over the throttled CPUs: divided by the CPUs the counted threads ran
//     on, at most procs), and the work the quota held back is added once: the throttled wall
//     time for every statement that wanted a processor (at most procs).
func kernelWait(threads []threadTimes, throttled uint64, throttledOK bool, busyShare float64, procs int) uint64 {
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
	var share uint64 // the throttled wall time
	if throttledOK && n > 0 {
		share = throttled / min(n, uint64(max(procs, 1)))
	}
	var wait uint64
	for _, t := range threads {
		if counts(t) && t.wait > share {
			wait += t.wait - share
		}
	}
	if throttledOK {
		wanted := min(busyShare, 1) * float64(max(procs, 1))
		if busyShare < 0 {
			wanted = float64(min(n, uint64(max(procs, 1))))
		}
		wait += uint64(float64(share) * wanted)
	}
	return wait
}
