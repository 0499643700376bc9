package overload

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

func TestKernelWait(t *testing.T) {
	ms := func(busy, wait int) threadTimes {
		return threadTimes{busy: uint64(busy) * uint64(time.Millisecond), wait: uint64(wait) * uint64(time.Millisecond)}
	}
	for _, tc := range []struct {
		name        string
		threads     []threadTimes
		throttled   int // ms
		throttledOK bool
		busyShare   float64 // -1: no statement count
		want        int     // ms
	}{
		{"no threads", nil, 0, false, 1, 0},
		{"one busy thread", []threadTimes{ms(40, 60)}, 0, false, 1, 60},
		{"a thread with a negligible share is left out", []threadTimes{ms(100, 200), ms(4, 300)}, 0, false, 1, 200},
		{"at the share it counts", []threadTimes{ms(95, 10), ms(5, 20)}, 0, false, 1, 30},
		{"idle threads are left out", []threadTimes{ms(0, 50), ms(10, 5)}, 0, false, 1, 5},
		{"throttling counted once, not per thread", []threadTimes{ms(50, 50), ms(1, 50), ms(1, 50)}, 50, true, -1, 50},
		{"two throttled threads, two throttled CPUs", []threadTimes{ms(25, 75), ms(25, 75)}, 150, true, 1, 150},
		{"one statement on two processors: the spinning one's CPU held back nothing", []threadTimes{ms(45, 50), ms(5, 50)}, 100, true, 0.5, 50},
		{"one thread, two processors: its CPU alone was throttled", []threadTimes{ms(50, 50), ms(1, 50)}, 50, true, 0.5, 50},
		{"a neighbour's wait beside throttling stays", []threadTimes{ms(30, 70)}, 50, true, -1, 70},
		{"throttling reported, none in the interval", []threadTimes{ms(50, 10)}, 0, true, 1, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := kernelWait(tc.threads, uint64(tc.throttled)*uint64(time.Millisecond), tc.throttledOK, tc.busyShare, 2)
			if want := uint64(tc.want) * uint64(time.Millisecond); got != want {
				t.Errorf("kernelWait = %v, want %v", time.Duration(got), time.Duration(want))
			}
		})
	}
}

// thread100ms is one thread's busy and wait in every 100 ms step, in ms.
type thread100ms struct{ busy, wait float64 }

// TestKernelPartFidelity tells the stories of the kernel part against fixture files: threads
// whose schedstat grows step by step and, under a quota, the cgroup's cpu.stat throttled time.
func TestKernelPartFidelity(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cgroup    string // fixture case; "" = no cgroup
		statFile  string // cpu.stat under the cgroup fixture's root
		v2        bool
		threads   []thread100ms
		throttled float64 // ms per step
		want      float64 // KernelRunQueueOverload
	}{
		{
			name:    "one statement beside two neighbours: sysmon's wake-ups left out (truth 2)",
			threads: []thread100ms{{33.3, 66.7}, {0.3, 40}},
			want:    66.7 / 33.6,
		},
		{
			name:      "cgroup v1, 0.5 CPU, one statement: throttled half the time (truth 1)",
			cgroup:    "cgroup-v1",
			statFile:  "cpu,cpuacct/kubepods/pod1/cpu.stat",
			threads:   []thread100ms{{50, 50}, {1, 50}, {1, 50}, {0.5, 50}},
			throttled: 50,
			want:      50.0 / 52.5,
		},
		{
			name:      "cgroup v2, 0.5 CPU, two statements on two CPUs (truth 3)",
			cgroup:    "cgroup-v2",
			statFile:  "system.slice/overloadsql.service/cpu.stat",
			v2:        true,
			threads:   []thread100ms{{25, 75}, {25, 75}, {1, 75}},
			throttled: 150,
			want:      150.0 / 51,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "proc", tc.cgroup)
			f.remove("proc/self/task/101")
			f.remove("proc/self/task/102")
			tids := make([]string, len(tc.threads))
			for i := range tc.threads {
				tids[i] = strconv.Itoa(200 + i)
				f.write("proc/self/task/"+tids[i]+"/schedstat", schedstat(0, 0))
			}
			s := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second, BusyThreshold: time.Millisecond})
			var throttled float64
			writeStat := func() {
				if tc.cgroup == "" {
					return
				}
				if tc.v2 {
					f.write("cgroup/"+tc.statFile, fmt.Sprintf("usage_usec 0\nnr_throttled 1\nthrottled_usec %d\n", int64(throttled*1000)))
					return
				}
				f.write("cgroup/"+tc.statFile, fmt.Sprintf("nr_periods 1\nnr_throttled 1\nthrottled_time %d\n", int64(throttled*1e6)))
			}
			writeStat()
			s.Sample()
			for step := 1; step <= 20; step++ {
				f.now = f.now.Add(100 * time.Millisecond)
				for i, th := range tc.threads {
					d := func(msPerStep float64) time.Duration {
						return time.Duration(msPerStep * float64(step) * float64(time.Millisecond))
					}
					f.write("proc/self/task/"+tids[i]+"/schedstat", schedstat(d(th.busy), d(th.wait)))
				}
				throttled += tc.throttled
				writeStat()
				s.Sample()
			}
			got, ok := metric(s.Snapshot(), "KernelRunQueueOverload")
			if !ok {
				t.Fatalf("no KernelRunQueueOverload row; unavailable: %v", sources(s.Snapshot().Unavailable))
			}
			if d := got - tc.want; d > 0.01 || d < -0.01 {
				t.Errorf("KernelRunQueueOverload = %.3f, want %.3f", got, tc.want)
			}
		})
	}
}

// TestMovedToAnotherCgroup: a server moved into a cgroup with a quota measures against it
// within cgroupRecheckEvery samples.
func TestMovedToAnotherCgroup(t *testing.T) {
	f := newFixture(t, "proc", "cgroup-v1")
	f.write("proc/self/cgroup", "5:cpu,cpuacct:/\n4:memory:/\n")
	s := f.sampler(Settings{})
	s.Sample()
	if _, ok := metric(s.Snapshot(), "CGroupMaxCPU"); ok {
		t.Fatal("a quota in the root cgroup")
	}
	f.write("proc/self/cgroup", "5:cpu,cpuacct:/kubepods/pod1\n4:memory:/kubepods/pod1\n")
	for range cgroupRecheckEvery {
		f.now = f.now.Add(100 * time.Millisecond)
		s.Sample()
	}
	if q, ok := metric(s.Snapshot(), "CGroupMaxCPU"); !ok || q != 1.5 {
		t.Errorf("CGroupMaxCPU after the move: %v, %v; want 1.5", q, ok)
	}
}
