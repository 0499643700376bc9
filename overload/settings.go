package overload

import (
	"log/slog"
	"time"
)

// Config of a Sampler. Zero values take defaults.
type Config struct {
	ProcRoot   string           // default "/proc"
	CgroupRoot string           // default "/sys/fs/cgroup"
	Clock      func() time.Time // default time.Now
	Logger     *slog.Logger     // default slog.Default()
	Settings   Settings
	OnSample   func(*Snapshot) // called after each published sample, outside the sampler's lock; may be nil
	// RunningStatements counts the server's statements running now; it bounds the Go run-queue
	// wait (see goWaitBound). Nil: the runtime's histogram is used unbounded.
	RunningStatements func() int
	// QueueWait is the cumulative time statements waited for a CPU slot in the admission queue
	// (it never decreases); it is the third part of the wait. Nil: no admission queue.
	QueueWait func() time.Duration
}

// Settings are the sampler's reloadable settings. Zero values take defaults.
type Settings struct {
	Interval        time.Duration // overload_sample_interval_ms, default 100ms
	Window          time.Duration // asynchronous_metrics_update_period_s, default 1s
	BusyThreshold   time.Duration // os_cpu_busy_time_threshold, default 1s: busy time in the window at or under it gives overload 0
	MaxServerMemory uint64        // max_server_memory_usage in bytes, 0 = none; replaces the memory ratio's denominator
}

const (
	defaultInterval      = 100 * time.Millisecond
	defaultWindow        = time.Second
	defaultBusyThreshold = time.Second
	// maxRingSize bounds the ring of samples whatever Window/Interval is.
	maxRingSize = 4096
)

func (s Settings) withDefaults() Settings {
	if s.Interval <= 0 {
		s.Interval = defaultInterval
	}
	if s.Window <= 0 {
		s.Window = defaultWindow
	}
	if s.BusyThreshold <= 0 {
		s.BusyThreshold = defaultBusyThreshold
	}
	return s
}

// ringSize is the number of samples that cover one window, plus the
// baseline and one spare for timer jitter.
func (s Settings) ringSize() int {
	n := int((s.Window+s.Interval-1)/s.Interval) + 2
	return min(n, maxRingSize)
}
