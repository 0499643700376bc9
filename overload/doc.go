// Package overload measures how overloaded the server's CPU is, and how full
// its memory is, for the decisions and warnings of the rest of the server.
// It knows nothing of SQL.
//
// # Signals
//
// The CPU overload ratio is wait / busy: for every second the server's work
// ran on a CPU, how long did work that was ready to run wait for one? Work
// whose k CPU-bound tasks share c cores (k > c) under a fair scheduler waits
// (k-c)/c. Busy is the CPU time of all the process's threads, summed from
// /proc/self/task/*/schedstat (/proc/self/schedstat is the main thread only).
// Wait has three parts, and a Go server needs them all:
//
//   - Kernel run-queue wait (schedstat's second field): the threads were
//     runnable while another process, or a CPU quota, had the CPU — a noisy
//     neighbour. It is the wait of threads, and a statement moves between
//     threads, so over a window it is capped by what the running statements
//     can have waited (kernelWait, goWaitBound).
//
//   - Go run-queue wait: the runtime sizes GOMAXPROCS to the CPUs the process
//     may use, so when the server itself has more runnable goroutines than
//     CPUs its threads do not queue in the kernel; its goroutines queue in the
//     Go scheduler instead, and kernel wait stays near zero however
//     overloaded the server is. The runtime's /sched/latencies:seconds
//     histogram records how long goroutines were runnable before running; the
//     sum of events times bucket midpoints estimates the wait, scaled by 8
//     because the runtime records one scheduling event in eight.
//
//   - Admission queue wait (Config.QueueWait): statements that wait for a CPU
//     slot are work waiting for a CPU as much as runnable goroutines are, so
//     with k CPU-bound statements on c processors the three parts still add
//     up to (k-c)/c, however many statements the slots let run. Statements
//     past the admission stall limit hold no slot and run beside the others:
//     their wait is Go run-queue wait (and kernel wait beside a neighbour),
//     and RunningStatements counts them, so the bounds below allow for it.
//
// The parts are published (KernelRunQueueOverload, GoRunQueueOverload,
// AdmissionQueueOverload) next to their sum (OSCPUOverload), so an operator
// sees whether the server or a neighbour is the cause.
//
// # Window and threshold
//
// The Sampler takes the cumulative counters every Interval (100 ms) into a
// ring and compares the newest sample with the one a Window (1 s) before it,
// so the ratio always covers the trailing window instead of restarting at
// every tick (which would make it a sawtooth). When the busy time inside the
// window is at or under BusyThreshold, or nothing waited, the ratio is 0: an
// almost idle server is not overloaded, however its few microseconds of work
// were scheduled.
//
// The same samples give the host CPU busy fraction (1 - idle share of
// /proc/stat, or cgroup CPU usage over the quota when a quota is set) and the
// memory ratio ((cgroup usage - inactive file cache) / cgroup limit, or
// resident set / host memory; max_server_memory_usage replaces the
// denominator), the values of the CPU and memory warnings.
//
// # Publication
//
// Every sample is published as one immutable Snapshot through an atomic
// pointer: the hot path reads the current ratio with Sampler.Overload, one
// atomic load. A Simulation replaces measured values everywhere they are
// published, for fire drills and deterministic tests.
//
// # Readers and failure
//
// /proc is read through github.com/prometheus/procfs over an injectable root
// (ProcRoot): the thread list (FS.AllThreads), /proc/stat (FS.Stat),
// meminfo (FS.Meminfo), PSI (FS.PSIStatsForResource), the process's stat for
// its resident set (Proc.Stat) and its cgroup membership (Proc.Cgroups). Two
// kinds of file are read here instead, kept open and re-read with pread at
// offset 0 into reused buffers: each thread's schedstat, the one file read
// once per thread at every sample (procfs opens, reads and closes a file at
// every call, and parses no bytes it did not open), and the cgroup controller files under
// CgroupRoot (cpu.stat, cpu.max, cpu.cfs_*, cpuacct.usage, memory.*), which
// procfs does not read. The thread list is read again only when the task
// directory's link count says threads came or went. Every reader is tested
// against fixtures under testdata/ (a /proc whose self links to process
// 4242, and cgroup v1 and v2 trees).
//
// A reader that fails is left out of the sample and listed in
// Snapshot.Unavailable, and the sample goes on without it (fail open: a blind
// part of the measurement reads 0, it never sheds work). The failure is
// logged once, and the recovery once.
//
// # Memory guard
//
// Go cannot fail one allocation, so the memory limit is enforced between
// allocations: a MemoryGuard, checked every few milliseconds by the server,
// reads the Go heap's bytes in objects (runtime/metrics, no stop-the-world)
// and compares them with the memory ratio's denominator (the same limit the
// memory warning uses). Crossing the limit is one event: the server cancels
// its ordinary running statements and asks the runtime to return memory;
// until the heap falls under MemoryResumeRatio of the limit, ordinary
// statements are refused. The heap is not the resident set: it leaves out
// stacks, runtime metadata and memory not yet returned to the system, so the
// guard fires at or after the point where the memory ratio would read 1.
package overload
