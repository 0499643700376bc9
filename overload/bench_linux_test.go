package overload

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
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

// BenchmarkHostCPU measures the reading of a /proc/stat of a host with 2 and
// with 64 CPUs (and an interrupt line of 16 counters per CPU): procfs parses
// every line of the file, so its cost grows with the host.
func BenchmarkHostCPU(b *testing.B) {
	for _, cpus := range []int{2, 64} {
		b.Run(fmt.Sprintf("cpus=%d", cpus), func(b *testing.B) {
			root := b.TempDir()
			var stat strings.Builder
			stat.WriteString("cpu  4705 356 584 3699176 23060 0 277 0 0 0\n")
			for i := range cpus {
				fmt.Fprintf(&stat, "cpu%d 1393280 32966 572056 13343292 6130 0 17875 0 0 0\n", i)
			}
			stat.WriteString("intr 8885917")
			for i := range 16 * cpus {
				fmt.Fprintf(&stat, " %d", i%7)
			}
			stat.WriteString("\nctxt 38014093\nbtime 1418183276\nprocesses 26442\nprocs_running 2\nprocs_blocked 0\n")
			stat.WriteString("softirq 5057579 250191 1481983 1647 211099 186066 0 1783454 622196 12499 508444\n")
			if err := os.WriteFile(root+"/stat", []byte(stat.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			src := newProcSource(root)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readHostCPU(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
