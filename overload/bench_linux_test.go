package overload

import (
	"log/slog"
	"os"
	"testing"
	"time"
)

// benchThreads is the thread count of the process while BenchmarkSample
// runs: a busy server's.
const benchThreads = 30

// BenchmarkSample measures one full sample (every reader, the real /proc and
// cgroup files) of a process with benchThreads threads, most of them parked.
// The core-% metric is the sampler's share of one core at the default
// interval: the process's CPU time per sample (getrusage) / interval.
func BenchmarkSample(b *testing.B) {
	var held []*lockedThread
	for range benchThreads {
		if entries, err := os.ReadDir("/proc/self/task"); err != nil || len(entries) >= benchThreads {
			break
		}
		held = append(held, startLockedThread(b, 0))
	}
	defer func() {
		for _, lt := range held {
			lt.exit()
		}
	}()
	s := NewSampler(Config{Logger: slog.New(slog.DiscardHandler)})
	defer s.Close()
	s.Sample()
	if u := s.Snapshot().Unavailable; len(u) > 0 {
		b.Logf("unavailable here: %+v", u)
	}
	b.ReportAllocs()
	cpu0, err := rusageCPU()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s.Sample()
	}
	cpu1, err := rusageCPU()
	if err != nil {
		b.Fatal(err)
	}
	perSample := time.Duration(cpu1-cpu0) / time.Duration(b.N)
	b.ReportMetric(float64(perSample.Microseconds()), "cpu-µs/op")
	b.ReportMetric(100*perSample.Seconds()/defaultInterval.Seconds(), "core-%")
	if entries, err := os.ReadDir("/proc/self/task"); err == nil {
		b.ReportMetric(float64(len(entries)), "threads")
	}
}

// BenchmarkOverload measures the hot-path read of the current ratio.
func BenchmarkOverload(b *testing.B) {
	s := NewSampler(Config{Logger: slog.New(slog.DiscardHandler), Settings: Settings{Interval: time.Second}})
	defer s.Close()
	s.Sample()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Overload()
	}
}
