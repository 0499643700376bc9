package overload

import (
	"math"
	"time"
)

// Snapshot is one published sample: the ratios over the trailing window and
// the current gauges. It is immutable once published.
type Snapshot struct {
	Time           time.Time
	Window         time.Duration // span covered by the deltas (shorter than Settings.Window at start-up)
	Overload       float64       // OSCPUOverload, effective: KernelOverload + GoOverload + QueueOverload, or the simulated value
	KernelOverload float64       // KernelRunQueueOverload: kernel run-queue wait / busy
	GoOverload     float64       // GoRunQueueOverload: Go run-queue wait / busy
	QueueOverload  float64       // AdmissionQueueOverload: admission-queue wait / busy
	CPUBusy        float64       // CPUBusyRatio, effective: busy fraction of the CPU capacity
	CPUBusyKnown   bool
	Memory         float64 // MemoryOverloadRatio, effective: MemoryUsed / MemoryLimit
	MemoryKnown    bool
	MemoryUsed     uint64 // bytes in the memory ratio's numerator
	MemoryLimit    uint64 // bytes in its denominator
	Counters       Counters
	Metrics        []Metric      // rows of system.asynchronous_metrics; absent sources are absent rows
	Unavailable    []Unavailable // readers that failed in this sample
	Simulation     Simulation
}

// Counters are the cumulative, monotonic time counters of the process.
type Counters struct {
	BusyMicros       uint64 // OSCPUVirtualTimeMicroseconds
	KernelWaitMicros uint64 // KernelRunQueueWaitMicroseconds
	GoWaitMicros     uint64 // GoRunQueueWaitMicroseconds
	QueueWaitMicros  uint64 // AdmissionQueueWaitMicroseconds
}

// Event is one row of system.events.
type Event struct {
	Name        string
	Value       uint64
	Description string
}

// Events returns the counters as system.events rows, with their sum
// OSCPUWaitMicroseconds.
func (c Counters) Events() []Event {
	return []Event{
		{"OSCPUVirtualTimeMicroseconds", c.BusyMicros, "CPU time the server's threads spent running on a CPU (sum of /proc/self/task/*/schedstat busy time), in microseconds."},
		{"OSCPUWaitMicroseconds", c.KernelWaitMicros + c.GoWaitMicros + c.QueueWaitMicros, "Time the server's work was ready to run but waited for a CPU, in microseconds: KernelRunQueueWaitMicroseconds + GoRunQueueWaitMicroseconds + AdmissionQueueWaitMicroseconds."},
		{"KernelRunQueueWaitMicroseconds", c.KernelWaitMicros, "Time the server's threads were runnable but waited in the kernel's run queue (another process or a CPU quota had the CPU), at most the processor time the running statements wanted and did not get (none while no statement runs), in microseconds."},
		{"GoRunQueueWaitMicroseconds", c.GoWaitMicros, "Estimated time the server's goroutines were runnable but waited in the Go scheduler's run queue (more runnable work than GOMAXPROCS), in microseconds."},
		{"AdmissionQueueWaitMicroseconds", c.QueueWaitMicros, "Time statements waited in the admission queue for a CPU slot, in microseconds."},
	}
}

// Metric is one row of system.asynchronous_metrics.
type Metric struct {
	Name        string
	Value       float64
	Description string
}

// Unavailable names a reader that failed in a sample and why.
type Unavailable struct {
	Source string
	Reason string
}

// Simulation replaces measured values for fire drills and deterministic tests. A negative
// value means that one is off; the zero Simulation simulates three zeros, so start from
// NoSimulation.
type Simulation struct {
	Overload float64 // replaces OSCPUOverload
	CPUBusy  float64 // replaces CPUBusyRatio
	Memory   float64 // replaces MemoryOverloadRatio
}

// NoSimulation is the Simulation with every value off.
func NoSimulation() Simulation { return Simulation{Overload: -1, CPUBusy: -1, Memory: -1} }

// Active reports whether any value is simulated.
func (s Simulation) Active() bool {
	return s.Overload >= 0 || s.CPUBusy >= 0 || s.Memory >= 0
}

// Probability is the rejection rule (statements and connections): 0 when the rule is
// disabled (max <= 0 or max <= min) or r <= 0; otherwise the position of r,
// clamped to [min, max], between min and max.
func Probability(r, min, max float64) float64 {
	if max <= 0 || max <= min || !(r > 0) {
		return 0
	}
	return (math.Min(math.Max(r, min), max) - min) / (max - min)
}
