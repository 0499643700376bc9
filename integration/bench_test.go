package integration

import (
	"context"
	"testing"
	"time"

	"overloadsql/internal/serverproc"
)

// Benchmarks against the real binary. They report ratios measured side by side in one run;
// compare the sub-benchmarks of one invocation, not numbers across runs. Reproduce with
//
//	go test ./integration -run XXX -bench . -benchtime 3000x -count 5

// BenchmarkSelectOne compares SELECT 1 over the wire in a session without thresholds (the check
// stops at the probability, 0) and in a session whose thresholds are far above the ratio (the
// check runs and never rejects), on one server with a small simulated overload so the check
// is not skipped at its first atomic load.
func BenchmarkSelectOne(b *testing.B) {
	s := startServer(b, serverOptions{})
	mustExec(b, s.adminDB(), "SET GLOBAL simulated_os_cpu_overload = 0.5")
	for _, bc := range []struct{ name, setup string }{
		{"protection_off", "SET max_os_cpu_wait_time_ratio_to_throw = 0"},
		{"protection_on_not_triggering", "SET min_os_cpu_wait_time_ratio_to_throw = 1000, max_os_cpu_wait_time_ratio_to_throw = 2000"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := s.db().Conn(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if _, err := c.ExecContext(context.Background(), bc.setup); err != nil {
				b.Fatal(err)
			}
			var one int
			for b.Loop() {
				if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConnection compares the server's CPU time for a connection dropped at accept time
// (overload 7, drop thresholds 1..2) with one that is accepted, pinged and closed. The metric
// server-µs/conn comes from the server's utime+stime in /proc/<pid>/stat.
func BenchmarkConnection(b *testing.B) {
	s := startServer(b, serverOptions{top: "min_os_cpu_wait_time_ratio_to_drop_connection = 1\nmax_os_cpu_wait_time_ratio_to_drop_connection = 2\n"})
	for _, bc := range []struct {
		name     string
		overload string
		wantErr  bool
	}{
		{"dropped", "7", true},
		{"accepted", "-1", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			mustExec(b, s.adminDB(), "SET GLOBAL simulated_os_cpu_overload = "+bc.overload)
			before := processCPU(b, s.proc.Pid())
			n := 0
			for b.Loop() {
				db := s.open("default", "", s.addr)
				err := db.Ping()
				db.Close()
				if (err != nil) != bc.wantErr {
					b.Fatalf("connect: %v", err)
				}
				n++
			}
			b.ReportMetric(float64((processCPU(b, s.proc.Pid())-before).Microseconds())/float64(n), "server-µs/conn")
		})
	}
}

// processCPU returns a process's user+system CPU time.
func processCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	d, err := serverproc.CPUTime(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
