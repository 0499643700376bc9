package overload

import (
	"fmt"
	"testing"
	"time"
)

// TestGoWaitBound feeds a histogram that grows in lumps (one recorded event in eight) and
// checks that the Go part over a full window is min(histogram, statement excess).
func TestGoWaitBound(t *testing.T) {
	const ms = uint64(time.Millisecond)
	for _, tc := range []struct {
		name           string
		running, procs int
		lumps          []uint64 // histogram growth per 100 ms interval, repeated
		wantRatio      float64  // Go wait / busy over the last window, busy 100 ms per interval
	}{
		{"one statement on one processor: runtime housekeeping is not overload", 1, 1, []uint64{160 * ms, 0}, 0},
		{"three statements on one processor: at most two wait", 3, 1, []uint64{320 * ms, 0, 160 * ms, 640 * ms, 0}, 2},
		{"three statements, histogram below the bound: kept", 3, 1, []uint64{150 * ms, 0}, 0.75},
		{"four statements on two processors", 4, 2, []uint64{900 * ms}, 2},
		{"idle", 0, 2, []uint64{5 * ms}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, s := boundFixture(t, func() int { return tc.running }, tc.procs)
			var snap *Snapshot
			for i := range 30 {
				snap = f.boundStep(s, time.Duration(tc.lumps[i%len(tc.lumps)]))
			}
			if d := snap.GoOverload - tc.wantRatio; d > 0.05 || d < -0.05 {
				t.Errorf("GoRunQueueOverload = %.3f, want %.3f", snap.GoOverload, tc.wantRatio)
			}
		})
	}
}

func TestGoWaitBoundNeverDecreases(t *testing.T) {
	running := 3
	f, s := boundFixture(t, func() int { return running }, 1)
	var last uint64
	for i := range 40 {
		if i == 20 {
			running = 1 // contention ends: the window's bound falls, the counter stays
		}
		snap := f.boundStep(s, 300*time.Millisecond)
		if snap.Counters.GoWaitMicros < last {
			t.Fatalf("sample %d: GoWaitMicros went from %d to %d", i, last, snap.Counters.GoWaitMicros)
		}
		last = snap.Counters.GoWaitMicros
	}
}

// boundFixture is one thread busy 100 ms per 100 ms step, with a statement count.
func boundFixture(t *testing.T, running func() int, procs int) (*fixture, *Sampler) {
	f := newFixture(t, "proc", "")
	f.remove("proc/self/task/102")
	s := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second, BusyThreshold: time.Millisecond})
	s.goBound = &goWaitBound{running: running, procs: func() int { return procs }}
	return f, s
}

// boundStep advances 100 ms with the thread busy throughout and the histogram grown by lump.
func (f *fixture) boundStep(s *Sampler, lump time.Duration) *Snapshot {
	f.now = f.now.Add(100 * time.Millisecond)
	f.busy += 100 * time.Millisecond
	f.goWait.ns += uint64(lump)
	f.write("proc/self/task/101/schedstat", schedstat(f.busy, 0))
	s.Sample()
	return s.Snapshot()
}

// TestAdmissionQueuePart: k CPU-bound statements on one processor, s of them holding a slot
// and k-s queued. The Go part sees s-1 statements waiting (plus the runtime's housekeeping,
// which the bound removes), the admission queue k-s; the total reads k-1 whatever s is.
func TestAdmissionQueuePart(t *testing.T) {
	const k = 8
	for _, slots := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprint(slots, " slots"), func(t *testing.T) {
			f := newFixture(t, "proc", "")
			f.remove("proc/self/task/102")
			var queued time.Duration
			s := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second, BusyThreshold: time.Millisecond})
			s.goBound = &goWaitBound{running: func() int { return slots }, procs: func() int { return 1 }}
			s.queueWait = func() time.Duration { return queued }
			var snap *Snapshot
			for range 30 {
				queued += time.Duration(k-slots) * 100 * time.Millisecond
				// The histogram: the statements that wait for the processor, and 160 ms of
				// housekeeping (the GC's workers yielding) on top.
				snap = f.boundStep(s, time.Duration(slots-1)*100*time.Millisecond+160*time.Millisecond)
			}
			want := map[string]float64{
				"OSCPUOverload":          k - 1,
				"GoRunQueueOverload":     float64(slots - 1),
				"AdmissionQueueOverload": float64(k - slots),
			}
			for _, m := range snap.Metrics {
				if w, ok := want[m.Name]; ok {
					if d := m.Value - w; d > 0.05 || d < -0.05 {
						t.Errorf("%s = %.3f, want %.3f", m.Name, m.Value, w)
					}
					delete(want, m.Name)
				}
			}
			if len(want) > 0 {
				t.Errorf("rows missing: %v", want)
			}
			if snap.Counters.QueueWaitMicros != uint64(queued/time.Microsecond) {
				t.Errorf("QueueWaitMicros %d, want %d", snap.Counters.QueueWaitMicros, queued/time.Microsecond)
			}
		})
	}
}

// TestKernelWaitBound: the threads' kernel wait over a window is capped by the processor time
// the running statements wanted and did not get. One CPU-bound statement that the Go scheduler
// moves between three threads, half held back by a neighbour or a quota: each thread runs it a
// third of the time and waits (runnable) longer than it runs, so the threads' wait is 2.4 times
// the statement's. Statements that block leave their threads idle, and the measured wait is kept.
func TestKernelWaitBound(t *testing.T) {
	for _, tc := range []struct {
		name           string
		running, procs int
		threads        []thread100ms
		want           float64 // KernelRunQueueOverload
	}{
		{"one statement on three threads, half the CPU: truth 1", 1, 2, []thread100ms{{17, 40}, {17, 40}, {16, 40}}, 1},
		{"two statements on three threads, a quarter each: truth 3", 2, 2, []thread100ms{{17, 70}, {17, 70}, {16, 70}}, 3},
		{"one statement on one thread beside a neighbour: kept", 1, 1, []thread100ms{{50, 50}}, 1},
		{"blocked statements: their threads' small wait kept", 8, 2, []thread100ms{{20, 10}, {10, 5}}, 0.5},
		{"no statement running: the housekeeping's wait is not the work's", 0, 2, []thread100ms{{20, 20}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "proc", "")
			f.remove("proc/self/task/101")
			f.remove("proc/self/task/102")
			for i := range tc.threads {
				f.write(fmt.Sprintf("proc/self/task/%d/schedstat", 200+i), schedstat(0, 0))
			}
			s := f.sampler(Settings{Interval: 100 * time.Millisecond, Window: time.Second, BusyThreshold: time.Millisecond})
			s.goBound = &goWaitBound{running: func() int { return tc.running }, procs: func() int { return tc.procs }}
			var snap *Snapshot
			for step := 1; step <= 30; step++ {
				f.now = f.now.Add(100 * time.Millisecond)
				for i, th := range tc.threads {
					at := func(msPerStep float64) time.Duration {
						return time.Duration(msPerStep * float64(step) * float64(time.Millisecond))
					}
					f.write(fmt.Sprintf("proc/self/task/%d/schedstat", 200+i), schedstat(at(th.busy), at(th.wait)))
				}
				s.Sample()
				snap = s.Snapshot()
			}
			got, _ := metric(snap, "KernelRunQueueOverload")
			if d := got - tc.want; d > 0.02 || d < -0.02 {
				t.Errorf("KernelRunQueueOverload = %.3f, want %.3f", got, tc.want)
			}
		})
	}
}

func TestKernelWaitBoundNeverDecreases(t *testing.T) {
	running := 1
	f, s := boundFixture(t, func() int { return running }, 1)
	var last uint64
	var wait time.Duration
	for i := range 40 {
		if i == 20 {
			running = 0 // the statement ends: the window's bound falls, the counter stays
		}
		f.now = f.now.Add(100 * time.Millisecond)
		f.busy += 50 * time.Millisecond
		wait += 50 * time.Millisecond
		f.write("proc/self/task/101/schedstat", schedstat(f.busy, wait))
		s.Sample()
		if got := s.Snapshot().Counters.KernelWaitMicros; got < last {
			t.Fatalf("sample %d: KernelWaitMicros went from %d to %d", i, last, got)
		} else {
			last = got
		}
	}
}
