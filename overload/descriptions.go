package overload

import (
	"maps"
	"slices"
)

// descriptions are the one-line texts of the system.asynchronous_metrics rows.
var descriptions = map[string]string{
	"OSCPUOverload":          "Ratio of the time the server's work waited for a CPU to the time it ran, over the trailing window: KernelRunQueueOverload + GoRunQueueOverload + AdmissionQueueOverload, 0 while busy time is at or under os_cpu_busy_time_threshold. Queries and connections are shed on it.",
	"AdmissionQueueOverload": "Part of OSCPUOverload from the admission queue: statements waited for a CPU slot (max_concurrent_statements, adaptive).",
	"KernelRunQueueOverload": "Part of OSCPUOverload from the kernel's run queue: the server's threads were runnable while another process or a CPU quota had the CPU, at most the processor time the running statements wanted and did not get (0 while no statement runs).",
	"GoRunQueueOverload":     "Part of OSCPUOverload from the Go scheduler's run queue: the server had more runnable goroutines than GOMAXPROCS.",
	"OSIdleTimeNormalized":   "Fraction of the host's CPU time that was idle over the trailing window, all CPUs together (/proc/stat), 0..1.",
	"OSUserTimeNormalized":   "Fraction of the host's CPU time spent in user space (user + nice) over the trailing window, all CPUs together, 0..1.",
	"OSSystemTimeNormalized": "Fraction of the host's CPU time spent in the kernel (system + irq + softirq) over the trailing window, all CPUs together, 0..1.",
	"CPUBusyRatio":           "Fraction of the CPU capacity that was busy over the trailing window: cgroup CPU usage / quota when a quota is set, else 1 - OSIdleTimeNormalized. The CPU warning value.",
	"MemoryResident":         "Resident set size of the server process, in bytes.",
	"OSMemoryTotal":          "Total memory of the host, in bytes (MemTotal).",
	"OSMemoryAvailable":      "Memory of the host available to new work without swapping, in bytes (MemAvailable).",
	"CGroupMemoryTotal":      "Memory limit of the server's cgroup, in bytes.",
	"CGroupMemoryUsed":       "Memory charged to the server's cgroup, in bytes, page cache included.",
	"MemoryOverloadRatio":    "Memory used / memory limit: (cgroup usage - inactive file cache) / cgroup limit, else resident set / host memory; max_server_memory_usage replaces the limit when set. The memory warning value.",
	"CGroupMaxCPU":           "CPU quota of the server's cgroup, in CPUs.",
	"PSICPUSomeAvg10":        "Percent of the last 10 seconds in which some runnable task waited for a CPU (/proc/pressure/cpu).",
	"PSIMemorySomeAvg10":     "Percent of the last 10 seconds in which some task stalled on memory (/proc/pressure/memory).",
	"PSIMemoryFullAvg10":     "Percent of the last 10 seconds in which all non-idle tasks stalled on memory at once (/proc/pressure/memory).",
}

// MetricNames are the names of every row the sampler can publish in system.asynchronous_metrics,
// present on this machine or not, sorted.
func MetricNames() []string {
	return slices.Sorted(maps.Keys(descriptions))
}
