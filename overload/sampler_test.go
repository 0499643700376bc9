package overload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"
)

// schedstat formats a thread's file.
func schedstat(busy, wait time.Duration) string {
	return fmt.Sprintf("%d %d 1\n", busy.Nanoseconds(), wait.Nanoseconds())
}

// TestWindow feeds one thread's counters, one step per 100 ms, and checks the
// ratios over the trailing 1 s window: they appear once the busy time passes
// the threshold, cover exactly one window once it is full, and follow a
// change of load one window later, without a sawtooth.
func TestWindow(t *testing.T) {
	type step struct {
		busy, kernel, goWait time.Duration // added during the 100 ms before the sample
		wantKernel, wantGo   float64
		wantWindow           time.Duration
	}
	steady := step{busy: 50 * time.Millisecond, kernel: 25 * time.Millisecond, goWait: 50 * time.Millisecond}
	var steps []step
	// The first sample covers nothing; at 200 ms the busy time (100 ms)
	// equals the threshold, so the ratios are still 0.
	steps = append(steps, step{wantWindow: 0}, step{busy: 50 * time.Millisecond, kernel: 25 * time.Millisecond, goWait: 50 * time.Millisecond, wantWindow: 100 * time.Millisecond})
	s := steady
	s.wantWindow = 200 * time.Millisecond
	steps = append(steps, s)
	for i := 3; i <= 15; i++ {
		s := steady
		s.wantKernel, s.wantGo = 0.5, 1
		s.wantWindow = min(time.Duration(i)*100*time.Millisecond, time.Second)
		steps = append(steps, s)
	}
	// The wait stops: after k steps, (10-k) of the window's 10 steps waited.
	for k := 1; k <= 12; k++ {
		remaining := float64(max(10-k, 0)) / 10
		steps = append(steps, step{busy: 50 * time.Millisecond, wantKernel: 0.5 * remaining, wantGo: remaining, wantWindow: time.Second})
	}

	f := newFixture(t, "proc", "")
	f.remove("proc/self/task/102")
	s0 := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second, BusyThreshold: 100 * time.Millisecond})
	var busy, kernel time.Duration
	for i, st := range steps {
		if i > 0 {
			f.now = f.now.Add(100 * time.Millisecond)
		}
		busy += st.busy
		kernel += st.kernel
		f.goWait.ns += uint64(st.goWait)
		f.write("proc/self/task/101/schedstat", schedstat(busy, kernel))
		s0.Sample()
		snap := s0.Snapshot()
		if !near(snap.KernelOverload, st.wantKernel) || !near(snap.GoOverload, st.wantGo) ||
			!near(snap.Overload, st.wantKernel+st.wantGo) || snap.Window != st.wantWindow {
			t.Errorf("step %d: kernel %g go %g overload %g window %v; want %g %g %g %v",
				i, snap.KernelOverload, snap.GoOverload, snap.Overload, snap.Window, st.wantKernel, st.wantGo, st.wantKernel+st.wantGo, st.wantWindow)
		}
		if got := s0.Overload(); got != snap.Overload {
			t.Errorf("step %d: Overload() = %g, snapshot has %g", i, got, snap.Overload)
		}
	}
}

// TestWindowJitter checks that a tick that comes a little early does not
// stretch the window by a whole interval.
func TestWindowJitter(t *testing.T) {
	f := newFixture(t, "proc", "")
	s := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second, BusyThreshold: time.Millisecond})
	ticks := []time.Duration{0, 101, 99, 100, 102, 98, 100, 100, 101, 99, 99}
	for _, ms := range ticks {
		f.now = f.now.Add(ms * time.Millisecond)
		s.Sample()
	}
	if got := s.Snapshot().Window; got != 999*time.Millisecond {
		t.Errorf("window = %v, want 999ms (the sample 10 ticks back)", got)
	}
}

func TestBusyThreshold(t *testing.T) {
	tests := []struct {
		name       string
		busy, wait time.Duration
		threshold  time.Duration
		want       float64
	}{
		{name: "busy equals threshold", busy: time.Second, wait: 2 * time.Second, threshold: time.Second, want: 0},
		{name: "busy just over threshold", busy: time.Second + time.Microsecond, wait: time.Second + time.Microsecond, threshold: time.Second, want: 1},
		{name: "busy under threshold", busy: 500 * time.Millisecond, wait: time.Second, threshold: time.Second, want: 0},
		{name: "no wait", busy: 2 * time.Second, wait: 0, threshold: time.Second, want: 0},
		{name: "default threshold is 1s", busy: time.Second, wait: time.Second, threshold: 0, want: 0},
		{name: "over default threshold", busy: 2 * time.Second, wait: time.Second, threshold: 0, want: 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "proc", "")
			f.remove("proc/self/task/102")
			f.write("proc/self/task/101/schedstat", schedstat(0, 0))
			s := f.sampler(Settings{Interval: time.Second, Window: time.Second, BusyThreshold: tt.threshold})
			s.Sample()
			f.now = f.now.Add(time.Second)
			f.write("proc/self/task/101/schedstat", schedstat(tt.busy, tt.wait))
			s.Sample()
			if got := s.Overload(); got != tt.want {
				t.Errorf("overload = %g, want %g", got, tt.want)
			}
		})
	}
}

// TestThreadsComeAndGo checks the per-thread accounting: a new thread counts
// with all it accumulated, an exited thread keeps its last contribution, and
// a reused thread id does not make the totals go back. (A fixture file does
// not fail with ESRCH when its directory goes, so exits here are noticed by
// the listing, as a change of the directory's link count or by the periodic
// rescan.)
func TestThreadsComeAndGo(t *testing.T) {
	f := newFixture(t, "proc", "")
	s := f.sampler(Settings{})
	type step struct {
		name       string
		change     func()
		busyMicros uint64
		waitMicros uint64
	}
	steps := []step{
		{name: "two threads", change: func() {}, busyMicros: 1_500_000, waitMicros: 30_000},
		{name: "102 exits, 101 runs", change: func() {
			f.remove("proc/self/task/102")
			f.write("proc/self/task/101/schedstat", schedstat(1100*time.Millisecond, 20*time.Millisecond))
		}, busyMicros: 1_600_000, waitMicros: 30_000},
		{name: "103 starts", change: func() {
			f.write("proc/self/task/103/schedstat", schedstat(200*time.Millisecond, 5*time.Millisecond))
		}, busyMicros: 1_800_000, waitMicros: 35_000},
		{name: "id 101 reused by a new thread", change: func() {
			f.write("proc/self/task/101/schedstat", schedstat(50*time.Millisecond, time.Millisecond))
		}, busyMicros: 1_850_000, waitMicros: 36_000},
		{name: "every thread exits", change: func() {
			f.remove("proc/self/task/101")
			f.remove("proc/self/task/103")
		}, busyMicros: 1_850_000, waitMicros: 36_000},
		{name: "102 comes back as a new thread", change: func() {
			f.write("proc/self/task/102/schedstat", schedstat(10*time.Millisecond, 0))
		}, busyMicros: 1_860_000, waitMicros: 36_000},
	}
	for _, st := range steps {
		st.change()
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
		c := s.Snapshot().Counters
		if c.BusyMicros != st.busyMicros || c.KernelWaitMicros != st.waitMicros {
			t.Errorf("%s: busy %d µs, wait %d µs; want %d, %d", st.name, c.BusyMicros, c.KernelWaitMicros, st.busyMicros, st.waitMicros)
		}
	}

	// One thread ends and another starts between two samples: the link
	// count is unchanged, and the periodic rescan finds the new thread.
	f.remove("proc/self/task/102")
	f.write("proc/self/task/104/schedstat", schedstat(time.Second, 0))
	for i := 1; i <= rescanEvery; i++ {
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
		if s.Snapshot().Counters.BusyMicros == 2_860_000 {
			return
		}
	}
	t.Errorf("after %d samples busy is %d µs; the new thread was not found", rescanEvery, s.Snapshot().Counters.BusyMicros)
}

// TestCountersMonotonic runs a seeded random life of threads and checks that
// the totals equal the sum of every thread's last reading and never decrease.
func TestCountersMonotonic(t *testing.T) {
	f := newFixture(t, "proc", "")
	f.remove("proc/self/task/101")
	f.remove("proc/self/task/102")
	s := f.sampler(Settings{})
	rng := rand.New(rand.NewPCG(1, 2))
	live := map[int]time.Duration{}
	var exited time.Duration
	var last Counters
	nextTid := 200
	for step := range 300 {
		switch op := rng.IntN(10); {
		case op < 2 || len(live) == 0:
			nextTid++
			live[nextTid] = time.Duration(rng.IntN(1000)) * time.Microsecond
			f.write(fmt.Sprintf("proc/self/task/%d/schedstat", nextTid), schedstat(live[nextTid], live[nextTid]/2))
		case op < 4:
			for tid, busy := range live {
				exited += busy
				delete(live, tid)
				f.remove(fmt.Sprintf("proc/self/task/%d", tid))
				break
			}
		default:
			for tid := range live {
				live[tid] += time.Duration(rng.IntN(1000)) * time.Microsecond
				f.write(fmt.Sprintf("proc/self/task/%d/schedstat", tid), schedstat(live[tid], live[tid]/2))
			}
		}
		f.goWait.ns += uint64(rng.IntN(1000))
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
		want := exited
		for _, busy := range live {
			want += busy
		}
		c := s.Snapshot().Counters
		if c.BusyMicros != uint64(want.Microseconds()) {
			t.Fatalf("step %d: busy %d µs, want %d", step, c.BusyMicros, want.Microseconds())
		}
		if c.BusyMicros < last.BusyMicros || c.KernelWaitMicros < last.KernelWaitMicros || c.GoWaitMicros < last.GoWaitMicros {
			t.Fatalf("step %d: counters went back from %+v to %+v", step, last, c)
		}
		last = c
	}
}

func TestFailOpen(t *testing.T) {
	tests := []struct {
		name        string
		procCase    string
		cgroupCase  string
		wantSources []string
	}{
		{name: "garbage in every /proc file", procCase: "garbage/proc",
			wantSources: []string{sourceThreads, sourceStat, sourceMemInfo, sourceRSS, sourcePSICPU, sourcePSIMemory, sourceCgroup}},
		{name: "missing /proc", procCase: "",
			wantSources: []string{sourceThreads, sourceStat, sourceMemInfo, sourceRSS, sourceCgroup}},
		{name: "garbage cgroup v1", procCase: "proc", cgroupCase: "garbage-cgroup-v1",
			wantSources: []string{sourceCgroupMemory, sourceCgroupCPU}},
		{name: "garbage cgroup v2", procCase: "proc", cgroupCase: "garbage-cgroup-v2",
			wantSources: []string{sourceCgroupMemory, sourceCgroupCPU}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.procCase, tt.cgroupCase)
			f.goWait.err = nil
			s := f.sampler(Settings{})
			for range 3 {
				f.now = f.now.Add(100 * time.Millisecond)
				s.Sample()
				snap := s.Snapshot()
				if got := sources(snap.Unavailable); !slices.Equal(got, tt.wantSources) {
					t.Fatalf("unavailable %v, want %v", got, tt.wantSources)
				}
				for _, u := range snap.Unavailable {
					if u.Reason == "" {
						t.Errorf("%s: no reason", u.Source)
					}
				}
				if v, ok := metric(snap, "OSCPUOverload"); !ok || v != 0 {
					t.Errorf("OSCPUOverload = %g, %v; want a 0 row", v, ok)
				}
			}
			if got := f.logLines("source unavailable"); got != len(tt.wantSources) {
				t.Errorf("logged %d failures over 3 samples, want one per source (%d):\n%s", got, len(tt.wantSources), f.log.String())
			}
		})
	}
}

// TestFailureLoggedOnceUntilRecovery checks the log of one source over a
// failure, its recovery and a second failure.
func TestFailureLoggedOnceUntilRecovery(t *testing.T) {
	f := newFixture(t, "proc", "")
	good := "cpu  1000 100 500 8000 50 10 20 0 0 0\ncpu0 1 1 1 1 0 0 0 0 0 0\n"
	s := f.sampler(Settings{})
	steps := []struct {
		stat                  string
		wantFailed, wantRecov int
	}{
		{stat: "garbage\n", wantFailed: 1},
		{stat: "garbage\n", wantFailed: 1},
		{stat: good, wantFailed: 1, wantRecov: 1},
		{stat: good, wantFailed: 1, wantRecov: 1},
		{stat: "cpu x\n", wantFailed: 2, wantRecov: 1},
	}
	for i, st := range steps {
		f.write("proc/stat", st.stat)
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
		if got := f.logLines("source unavailable"); got != st.wantFailed {
			t.Errorf("step %d: %d failure lines, want %d", i, got, st.wantFailed)
		}
		if got := f.logLines("source recovered"); got != st.wantRecov {
			t.Errorf("step %d: %d recovery lines, want %d", i, got, st.wantRecov)
		}
	}
}

// TestGoWaitUnavailable checks that the Go part fails open on its own: the
// kernel part is still measured.
func TestGoWaitUnavailable(t *testing.T) {
	f := newFixture(t, "proc", "")
	f.goWait.err = errors.New("no histogram")
	s := f.sampler(Settings{Interval: time.Second, BusyThreshold: time.Millisecond})
	s.Sample()
	f.now = f.now.Add(time.Second)
	f.write("proc/self/task/101/schedstat", schedstat(2*time.Second, 520*time.Millisecond))
	s.Sample()
	snap := s.Snapshot()
	if _, ok := metric(snap, "GoRunQueueOverload"); ok {
		t.Error("GoRunQueueOverload row present without its source")
	}
	if !near(snap.KernelOverload, 0.5) || !near(snap.Overload, 0.5) {
		t.Errorf("kernel %g overload %g, want 0.5 and 0.5", snap.KernelOverload, snap.Overload)
	}
	if got := sources(snap.Unavailable); !slices.Equal(got, []string{sourceGoScheduler}) {
		t.Errorf("unavailable %v", got)
	}
}

func TestHostCPUAndMetricRows(t *testing.T) {
	f := newFixture(t, "proc", "")
	s := f.sampler(Settings{})
	s.Sample()
	if _, ok := metric(s.Snapshot(), "CPUBusyRatio"); ok {
		t.Error("CPUBusyRatio present before a window")
	}
	f.now = f.now.Add(time.Second)
	// +400 ticks: user 60, nice 40, system 30, irq 5, softirq 5, idle 240, iowait 20.
	f.write("proc/stat", "cpu  1060 140 530 8240 70 15 25 0 0 0\ncpu0 0 0 0 0\ncpu1 0 0 0 0\ncpu2 0 0 0 0\ncpu3 0 0 0 0\n")
	s.Sample()
	snap := s.Snapshot()
	want := map[string]float64{
		"OSCPUOverload":          0,
		"KernelRunQueueOverload": 0,
		"GoRunQueueOverload":     0,
		"OSIdleTimeNormalized":   0.6,
		"OSUserTimeNormalized":   0.25,
		"OSSystemTimeNormalized": 0.1,
		"CPUBusyRatio":           0.4,
		"MemoryResident":         float64(4096 * os.Getpagesize()),
		"OSMemoryTotal":          16384000 * 1024,
		"OSMemoryAvailable":      12288000 * 1024,
		"MemoryOverloadRatio":    float64(4096*os.Getpagesize()) / (16384000 * 1024),
		"PSICPUSomeAvg10":        2.12,
		"PSIMemorySomeAvg10":     1.5,
		"PSIMemoryFullAvg10":     0.25,
	}
	if len(snap.Metrics) != len(want) {
		t.Errorf("got %d rows, want %d: %+v", len(snap.Metrics), len(want), snap.Metrics)
	}
	for _, m := range snap.Metrics {
		w, ok := want[m.Name]
		if !ok || !near(m.Value, w) || m.Description == "" {
			t.Errorf("row %s = %g (described: %v), want %g (expected: %v)", m.Name, m.Value, m.Description != "", w, ok)
		}
	}
	if !snap.CPUBusyKnown || !near(snap.CPUBusy, 0.4) {
		t.Errorf("CPUBusy %g, %v", snap.CPUBusy, snap.CPUBusyKnown)
	}
}

func TestSimulation(t *testing.T) {
	f := newFixture(t, "proc", "")
	s := f.sampler(Settings{})
	s.Sample()
	if s.Simulation().Active() {
		t.Fatal("a new sampler simulates")
	}
	measured := s.Snapshot()

	s.Simulate(Simulation{Overload: 3.5, CPUBusy: -1, Memory: 0.95})
	check := func(stage string) {
		t.Helper()
		snap := s.Snapshot()
		if s.Overload() != 3.5 || snap.Overload != 3.5 || !snap.Simulation.Active() {
			t.Errorf("%s: overload %g / %g, simulation %+v", stage, s.Overload(), snap.Overload, snap.Simulation)
		}
		if v, _ := metric(snap, "OSCPUOverload"); v != 3.5 {
			t.Errorf("%s: OSCPUOverload row %g", stage, v)
		}
		if v, _ := metric(snap, "MemoryOverloadRatio"); v != 0.95 || snap.Memory != 0.95 || !snap.MemoryKnown {
			t.Errorf("%s: memory row %g, field %g", stage, v, snap.Memory)
		}
		if snap.CPUBusyKnown {
			t.Errorf("%s: CPU busy simulated while off", stage)
		}
	}
	check("at once")
	if v, _ := metric(measured, "OSCPUOverload"); v != 0 {
		t.Errorf("the published measured snapshot changed: %g", v)
	}
	f.now = f.now.Add(100 * time.Millisecond)
	s.Sample()
	check("next sample")

	s.Simulate(NoSimulation())
	if s.Overload() != 0 || s.Snapshot().Simulation.Active() {
		t.Errorf("after simulation off: overload %g", s.Overload())
	}
}

// TestSimulationAddsAbsentRow checks that a simulated value shows even when
// its source is absent.
func TestSimulationAddsAbsentRow(t *testing.T) {
	f := newFixture(t, "garbage/proc", "")
	s := f.sampler(Settings{})
	s.Sample()
	s.Simulate(Simulation{Overload: -1, CPUBusy: 0.97, Memory: -1})
	if v, ok := metric(s.Snapshot(), "CPUBusyRatio"); !ok || v != 0.97 {
		t.Errorf("CPUBusyRatio = %g, %v", v, ok)
	}
	if _, ok := metric(s.Snapshot(), "MemoryOverloadRatio"); ok {
		t.Error("MemoryOverloadRatio present without a source or a simulation")
	}
}

func TestReconfigure(t *testing.T) {
	f := newFixture(t, "proc", "")
	s := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second})
	for range 15 {
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
	}
	s.Reconfigure(Settings{Interval: 100 * time.Millisecond, Window: 500 * time.Millisecond})
	f.now = f.now.Add(100 * time.Millisecond)
	s.Sample()
	if got := s.Snapshot().Window; got != 500*time.Millisecond {
		t.Errorf("window after shrinking = %v", got)
	}
	s.Reconfigure(Settings{Interval: 100 * time.Millisecond, Window: 2 * time.Second})
	for i := range 25 {
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
		want := min(time.Duration(i+6)*100*time.Millisecond, 2*time.Second)
		if got := s.Snapshot().Window; got != want {
			t.Fatalf("sample %d after growing: window %v, want %v", i, got, want)
		}
	}
}

func TestOverloadDoesNotAllocate(t *testing.T) {
	f := newFixture(t, "proc", "")
	s := f.sampler(Settings{})
	s.Sample()
	if n := testing.AllocsPerRun(100, func() { _ = s.Overload() }); n != 0 {
		t.Errorf("Overload allocates %g times", n)
	}
}

// TestSampleAllocations checks that a steady sample's allocations do not
// grow with the samples taken: procfs allocates what it reads, the sampler
// keeps nothing of it.
func TestSampleAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts vary under the race detector (sync.Pool drops items at random); the non-race run checks them")
	}
	f := newFixture(t, "proc", "cgroup-v1")
	s := f.sampler(Settings{})
	sample := func() {
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
	}
	sample()
	first := testing.AllocsPerRun(100, sample)
	for range 2000 {
		sample()
	}
	if later := testing.AllocsPerRun(100, sample); later > first {
		t.Errorf("a sample allocated %g times at first, %g times 2000 samples later", first, later)
	}
}

func TestRun(t *testing.T) {
	var published int
	samples := make(chan *Snapshot, 100)
	s := NewSampler(Config{
		Settings: Settings{Interval: time.Millisecond, Window: 5 * time.Millisecond},
		OnSample: func(snap *Snapshot) {
			select {
			case samples <- snap:
			default:
			}
		},
	})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.Run(ctx)
		close(done)
	}()
	deadline := time.After(10 * time.Second)
	for published < 5 {
		select {
		case snap := <-samples:
			published++
			if snap != s.Snapshot() && published == 1 {
				t.Log("a newer sample was published meanwhile")
			}
			if published == 2 {
				s.Reconfigure(Settings{Interval: 2 * time.Millisecond, Window: 5 * time.Millisecond})
			}
		case <-deadline:
			t.Fatalf("only %d samples in 10 s", published)
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if s.Snapshot().Counters.BusyMicros == 0 {
		t.Error("no busy time measured from the real /proc")
	}
}

// TestConcurrentUse runs the sampler while other goroutines simulate,
// reconfigure and read; run it with -race.
func TestConcurrentUse(t *testing.T) {
	s := NewSampler(Config{Settings: Settings{Interval: time.Millisecond}})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.Run(ctx)
		close(done)
	}()
	for i := range 200 {
		s.Simulate(Simulation{Overload: float64(i), CPUBusy: -1, Memory: -1})
		s.Reconfigure(Settings{Interval: time.Duration(1+i%3) * time.Millisecond, Window: 10 * time.Millisecond})
		if got := s.Overload(); got < 0 {
			t.Fatalf("overload %g", got)
		}
		_ = s.Snapshot().Metrics
		_ = s.Simulation()
	}
	if got := s.Overload(); got != 199 {
		t.Errorf("overload after the last simulation = %g, want 199", got)
	}
	cancel()
	<-done
}

// TestGoPartWithoutThreadFiles checks that the Go part keeps working when the per-thread files
// cannot be read: its busy time then comes from getrusage, while the kernel part is blind (0).
func TestGoPartWithoutThreadFiles(t *testing.T) {
	f := newFixture(t, "proc", "")
	f.remove("proc/self/task")
	s := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second, BusyThreshold: time.Millisecond})
	for range 15 {
		f.now = f.now.Add(100 * time.Millisecond)
		f.processCPU += uint64(100 * time.Millisecond)
		f.goWait.ns += uint64(50 * time.Millisecond)
		s.Sample()
	}
	snap := s.Snapshot()
	if !near(snap.GoOverload, 0.5) || snap.KernelOverload != 0 || !near(snap.Overload, 0.5) {
		t.Errorf("without thread files: go %g kernel %g overload %g; want 0.5, 0, 0.5", snap.GoOverload, snap.KernelOverload, snap.Overload)
	}
	if got := sources(snap.Unavailable); !slices.Contains(got, sourceThreads) {
		t.Errorf("unavailable %v, want %s listed", got, sourceThreads)
	}
}
