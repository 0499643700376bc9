package overload

import (
	"log/slog"
	"os"
	"testing"
	"time"
)

// BenchmarkSample measures one full sample (every reader, the real /proc and
// cgroup files) of a process with about 25 threads, like a busy server.
func BenchmarkSample(b *testing.B) {
	const threads = 25
	var held []*lockedThread
	for range threads {
		if entries, err := os.ReadDir("/proc/self/task"); err != nil || len(entries) >= threads {
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
	for b.Loop() {
		s.Sample()
	}
	b.ReportMetric(float64(len(s.readers.threads.threads)), "threads")
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
