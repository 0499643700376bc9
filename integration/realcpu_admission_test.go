package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"overloadsql/internal/serverproc"
)

// The tests below check the overload signal with admission control on: the statements run on a
// user table (not exempt), so they take CPU slots and the surplus waits in the queue. Truth is
// measured as in realcpu_test.go, with the server's CPU time from /proc/<pid>/stat
// (serverproc.CPUTime, independent of the server's own accounting): d runnable statements that
// got busy time B in wall time W waited d·W - B, a ratio of d·W/B - 1. Bands are ±15% of that
// truth (the target); the machine's other load moves truth and reading alike.

// admissionRealTop keeps the busy threshold lower than realTop: with seven other jobs on the
// machine a server pinned to one core may get a fifth of it, and a window under the threshold
// reads 0 whatever waited.
const admissionRealTop = "os_cpu_busy_time_threshold = 50000\n"

// userHeavyQuery is a CPU-bound statement on a user table (a million-row cross join).
const userHeavyQuery = "SELECT COUNT(*) FROM main.n a, main.n b, main.n c, main.n d, main.n e, main.n f"

func createHeavyTable(t *testing.T, db *sql.DB) {
	t.Helper()
	mustExec(t, db, "CREATE TABLE main.n (i INT PRIMARY KEY)")
	mustExec(t, db, "INSERT INTO main.n VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)")
}

// truthByProcess reads OSCPUOverload for the given time and returns its median with d·W/B - 1,
// B the server's CPU time from /proc over the same time.
func truthByProcess(t *testing.T, s *testServer, admin *sql.DB, d int, over time.Duration) (median, truth float64) {
	t.Helper()
	cpu0, err := serverproc.CPUTime(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	median = medianMetric(t, admin, "OSCPUOverload", over)
	cpu1, err := serverproc.CPUTime(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	busy, wall := (cpu1 - cpu0).Seconds(), time.Since(start).Seconds()
	truth = float64(d)*wall/busy - 1
	t.Logf("server got %.2f CPU over %.1f s; truth %d·W/B - 1 = %.3f", busy/wall, wall, d, truth)
	return median, truth
}

// within checks a reading against the measured truth with a relative tolerance.
func within(t *testing.T, what string, got, truth, tolerance float64) {
	t.Helper()
	withinRatio(t, what, got, truth, 1-tolerance, 1+tolerance)
}

// withinRatio checks that reading/truth is between lo and hi.
func withinRatio(t *testing.T, what string, got, truth, lo, hi float64) {
	t.Helper()
	t.Logf("%s: OSCPUOverload %.3f, truth %.3f (reading/truth %.2f)", what, got, truth, got/truth)
	if got < lo*truth || got > hi*truth {
		t.Errorf("%s: OSCPUOverload %.3f, want %.3f..%.3f (truth %.3f x %.2f..%.2f)", what, got, lo*truth, hi*truth, truth, lo, hi)
	}
}

// tolerance of the readings against the measured truth: 15%, as the issue asks.
const tolerance = 0.15

// TestRealAdmissionEightStatementsOnOneCore and TestRealAdmissionSelfContention check the queue's
// part of the signal, so the stall limit is off: with it, statements that run for seconds stop
// holding slots and their wait moves to the Go part (realcpu_stall_test.go).
func TestRealAdmissionEightStatementsOnOneCore(t *testing.T) {
	realCPU(t)
	need(t, "taskset")
	s := startServer(t, serverOptions{top: admissionRealTop + noStall, pin: "0"})
	admin := s.adminDB()
	createHeavyTable(t, s.db())
	stop := queryLoad(t, s.db(), userHeavyQuery, "SET queue_max_wait_ms = 60000", 8, 60*time.Second)
	defer stop()
	time.Sleep(2 * time.Second)

	var running, queued []int
	var adminMillis []float64
	for range 20 {
		_, r, q := admissionGauges(t, admin)
		running, queued = append(running, r), append(queued, q)
		began := time.Now()
		queryStrings(t, admin, "SELECT 1")
		adminMillis = append(adminMillis, float64(time.Since(began).Microseconds())/1000)
		time.Sleep(100 * time.Millisecond)
	}
	sort.Ints(running)
	sort.Ints(queued)
	sort.Float64s(adminMillis)
	t.Logf("running %v; queued %v; admin SELECT 1 ms %v", running, queued, adminMillis)
	if m := running[len(running)/2]; m < 1 || m > 2 {
		t.Errorf("median running statements %d, want 1..2 on one core", m)
	}
	if m := queued[len(queued)/2]; m < 6 {
		t.Errorf("median queued statements %d, want the other 6..7", m)
	}
	if m := adminMillis[len(adminMillis)/2]; m >= 50 {
		t.Errorf("admin SELECT 1: median %.1f ms, want < 50 ms", m)
	}
	got, truth := truthByProcess(t, s, admin, 8, 5*time.Second)
	parts := queryStrings(t, admin, "SELECT metric, round(value, 2) FROM system.asynchronous_metrics WHERE metric LIKE '%Overload' ORDER BY metric")
	t.Logf("parts now: %v", parts)
	within(t, "8 heavy statements on one core", got, truth, tolerance)
}

func TestRealAdmissionSelfContention(t *testing.T) {
	realCPU(t)
	need(t, "taskset")
	for _, k := range []int{2, 3, 4} {
		t.Run(fmt.Sprint("k=", k), func(t *testing.T) {
			s := startServer(t, serverOptions{top: admissionRealTop + noStall, pin: "0"})
			admin := s.adminDB()
			createHeavyTable(t, s.db())
			stop := queryLoad(t, s.db(), userHeavyQuery, "SET queue_max_wait_ms = 60000", k, 40*time.Second)
			defer stop()
			time.Sleep(2 * time.Second)
			got, truth := truthByProcess(t, s, admin, k, 5*time.Second)
			within(t, fmt.Sprintf("%d heavy statements on one core", k), got, truth, tolerance)
		})
	}
}

func TestRealAdmissionNeighbour(t *testing.T) {
	realCPU(t)
	need(t, "taskset")
	stressNG := need(t, "stress-ng")
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprint(n, " stress-ng workers"), func(t *testing.T) {
			s := startServer(t, serverOptions{top: admissionRealTop, pin: "0"})
			admin := s.adminDB()
			createHeavyTable(t, s.db())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			neighbour := exec.CommandContext(ctx, stressNG, "--cpu", strconv.Itoa(n), "--taskset", "0", "--timeout", "25s", "--quiet")
			if err := neighbour.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cancel()
				_ = neighbour.Wait()
			}()
			stop := queryLoad(t, s.db(), userHeavyQuery, "SET queue_max_wait_ms = 60000", 1, 25*time.Second)
			defer stop()
			time.Sleep(2 * time.Second)
			got, truth := truthByProcess(t, s, admin, 1, 5*time.Second)
			within(t, fmt.Sprintf("1 statement beside %d stress-ng workers", n), got, truth, tolerance)
		})
	}
}

// TestRealAdmissionCPUQuota runs the server in a cgroup with a 0.5-CPU CFS quota (how
// Kubernetes CPU limits run servers), created for the test and removed after it: v2 (cpu.max)
// where the unified hierarchy has the cpu controller, else v1 (cpu.cfs_quota_us). One statement
// (truth 1 on a quiet machine) and two (truth 3).
//
// The truth counts k runnable threads. With one statement and GOMAXPROCS = 2 the runtime runs
// its GC workers on the idle processor beside the statement, so at times two threads wait out
// the throttled part of each period and the true wait is above 1·W/B - 1 (readings of 1.10 and
// 1.19 of that figure, rightly). One statement therefore runs with GOMAXPROCS = 1, where the GC
// shares the statement's processor and one thread is runnable. The goroutines behind it on that
// processor wait too, in the Go part, which the threads' truth does not count: the threads' part
// is held to the truth, and the whole to it plus goAllowance.
func TestRealAdmissionCPUQuota(t *testing.T) {
	realCPU(t)
	for _, k := range []int{1, 2} {
		t.Run(fmt.Sprint(k, " statements"), func(t *testing.T) {
			join := quotaCgroup(t, 50000, 100000)
			var env []string
			if k == 1 {
				env = []string{"GOMAXPROCS=1"}
			}
			s := startServer(t, serverOptions{top: admissionRealTop, env: env})
			join(s.proc.Pid())
			admin := s.adminDB()
			createHeavyTable(t, s.db())
			stop := queryLoad(t, s.db(), userHeavyQuery, "SET queue_max_wait_ms = 60000", k, 30*time.Second)
			defer stop()
			time.Sleep(2 * time.Second)
			cpu0, err := serverproc.CPUTime(s.proc.Pid())
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			total, threads := medianThreadPart(t, admin, 5*time.Second)
			cpu1, err := serverproc.CPUTime(s.proc.Pid())
			if err != nil {
				t.Fatal(err)
			}
			busy, wall := (cpu1 - cpu0).Seconds(), time.Since(start).Seconds()
			truth := float64(k)*wall/busy - 1
			t.Logf("server got %.2f CPU over %.1f s; truth %d·W/B - 1 = %.3f", busy/wall, wall, k, truth)
			what := fmt.Sprintf("%d statements under a 0.5-CPU quota", k)
			within(t, what+", threads' part", threads, truth, tolerance)
			withinRatio(t, what, total, truth, 1-tolerance, 1+tolerance+goAllowance/truth)
		})
	}
}

// goAllowance bounds the Go part a CPU-quota reading may add to the threads' truth. The truth
// counts the statements' threads; goroutines that wait for a processor behind them (the sampler
// every overload_sample_interval_ms, the test's probes, the GC's workers) are the Go part, which
// the truth cannot see. The runtime records one scheduling event in eight, so each recorded wait
// of a preemption slice (10 ms) counts 80 ms: a one-second window at 0.5 CPU reads the Go part in
// steps of about 0.16, and two such steps fit under the allowance.
const goAllowance = 0.35

// medianThreadPart reads OSCPUOverload and its parts every 250 ms for the given time and returns
// the medians of the whole and of its threads' part (KernelRunQueueOverload +
// AdmissionQueueOverload, without GoRunQueueOverload).
func medianThreadPart(t *testing.T, admin *sql.DB, over time.Duration) (total, threads float64) {
	t.Helper()
	var totals, parts []float64
	for deadline := time.Now().Add(over); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		var sum, goPart float64
		if err := admin.QueryRow("SELECT "+
			"SUM(IF(metric = 'OSCPUOverload', value, 0)), "+
			"SUM(IF(metric = 'GoRunQueueOverload', value, 0)) "+
			"FROM system.asynchronous_metrics WHERE metric IN ('OSCPUOverload', 'GoRunQueueOverload')").Scan(&sum, &goPart); err != nil {
			t.Fatal(err)
		}
		totals, parts = append(totals, sum), append(parts, sum-goPart)
	}
	sort.Float64s(totals)
	sort.Float64s(parts)
	t.Logf("OSCPUOverload readings: %v; without the Go part: %v", totals, parts)
	return totals[len(totals)/2], parts[len(parts)/2]
}

// quotaCgroup creates a cgroup with the CPU quota and returns a function that moves a process
// into it; the cgroup is removed when the test ends (after the server in it has stopped).
// Without permission the test is skipped, or fails under CI.
func quotaCgroup(t *testing.T, quotaUS, periodUS int) (join func(pid int)) {
	t.Helper()
	name := fmt.Sprintf("overloadsql-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	noCgroup := func(err error) { unavailable(t, fmt.Sprintf("cannot create a CPU-quota cgroup: %v", err)) }
	var dirs []string
	var procsFiles []string
	if controllers, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && strings.Contains(string(controllers), "cpu") {
		dir := filepath.Join("/sys/fs/cgroup", name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			noCgroup(err)
		}
		dirs = append(dirs, dir)
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(fmt.Sprintf("%d %d", quotaUS, periodUS)), 0o644); err != nil {
			os.Remove(dir)
			noCgroup(err)
		}
		procsFiles = append(procsFiles, filepath.Join(dir, "cgroup.procs"))
	} else {
		cpu := filepath.Join("/sys/fs/cgroup/cpu", name)
		if err := os.Mkdir(cpu, 0o755); err != nil {
			noCgroup(err)
		}
		dirs = append(dirs, cpu)
		for file, v := range map[string]int{"cpu.cfs_period_us": periodUS, "cpu.cfs_quota_us": quotaUS} {
			if err := os.WriteFile(filepath.Join(cpu, file), []byte(strconv.Itoa(v)), 0o644); err != nil {
				os.Remove(cpu)
				noCgroup(err)
			}
		}
		procsFiles = append(procsFiles, filepath.Join(cpu, "cgroup.procs"))
		// A separate cpuacct hierarchy gives the usage that goes with the quota.
		if acct := filepath.Join("/sys/fs/cgroup/cpuacct", name); !sameDir("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct") {
			if err := os.Mkdir(acct, 0o755); err == nil {
				dirs = append(dirs, acct)
				procsFiles = append(procsFiles, filepath.Join(acct, "cgroup.procs"))
			}
		}
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			var err error
			for range 50 { // the server's exit empties the cgroup a moment later
				if err = os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("remove cgroup %s: %v", d, err)
			}
		}
	})
	return func(pid int) {
		for _, f := range procsFiles {
			if err := os.WriteFile(f, []byte(strconv.Itoa(pid)), 0o644); err != nil {
				t.Fatalf("move the server into %s: %v", f, err)
			}
		}
	}
}

func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
