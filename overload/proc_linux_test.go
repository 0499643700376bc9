package overload

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedThread starts a goroutine that owns an OS thread until stop is
// called; returning while locked makes the runtime end the thread.
type lockedThread struct {
	tid  int
	stop chan struct{}
	done chan struct{}
}

func startLockedThread(t testing.TB, spin time.Duration) *lockedThread {
	t.Helper()
	lt := &lockedThread{stop: make(chan struct{}), done: make(chan struct{})}
	ready := make(chan int)
	go func() {
		defer close(lt.done)
		runtime.LockOSThread()
		for end := time.Now().Add(spin); time.Now().Before(end); {
		}
		ready <- syscall.Gettid()
		<-lt.stop
	}()
	lt.tid = <-ready
	return lt
}

func (lt *lockedThread) exit() {
	close(lt.stop)
	<-lt.done
}

// pollUntil retries cond every millisecond until it holds or 10 s pass.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestKernelThreadExit checks the kernel behaviour the thread reader relies
// on: a kept-open schedstat file of an exited thread fails with ESRCH (or
// ENOENT), and the exited thread's time stays in the totals.
func TestKernelThreadExit(t *testing.T) {
	r := newThreadReader(newProcSource("/proc"))
	defer r.close()
	// The runtime cannot end the main thread (it parks it instead), so hold
	// the main thread with another goroutine if the first one lands on it.
	lt := startLockedThread(t, 20*time.Millisecond)
	for attempt := 0; lt.tid == os.Getpid() && attempt < 10; attempt++ {
		defer lt.exit()
		lt = startLockedThread(t, 20*time.Millisecond)
	}
	if lt.tid == os.Getpid() {
		t.Skip("could not start a goroutine off the main thread")
	}
	before, err := r.read()
	if err != nil {
		t.Fatal(err)
	}
	th, ok := r.threads[lt.tid]
	if !ok {
		t.Fatalf("thread %d not tracked", lt.tid)
	}
	if th.last.busy == 0 {
		t.Errorf("thread %d has no busy time after spinning", lt.tid)
	}
	kept := newProcFile(th.file.path, 64)
	defer kept.close()
	if _, err := kept.read(); err != nil {
		t.Fatal(err)
	}

	lt.exit()
	pollUntil(t, "the exited thread's file fails", func() bool {
		_, err := kept.read()
		if err != nil && !isNotExist(err) {
			t.Fatalf("read of an exited thread: %v, want ESRCH or ENOENT", err)
		}
		return err != nil
	})
	after, err := r.read()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.threads[lt.tid]; ok {
		t.Errorf("exited thread %d still tracked", lt.tid)
	}
	if after.busy < before.busy || after.wait < before.wait {
		t.Errorf("totals went back: %+v -> %+v", before, after)
	}
}

// TestRealGoWaitScaling runs k CPU-bound goroutines on one P: every moment k-1
// of them wait in the Go run queue, so the estimated Go wait per second of
// the P's time must be about k-1. That time is measured as the process's
// busy plus kernel wait (the P's thread was either on a CPU or waiting for
// one), which keeps the check valid on a machine shared with other work.
// This test uses real CPU because it checks the estimator's scaling constant
// (goTrackingPeriod), not a formula: a change of the runtime's sampling
// period moves the ratio by a factor of two or more, so the band is a factor
// of 1.5 either way: wide enough for a machine busy with other work, narrow
// enough to catch that change. The runtime samples few events in a
// second, so a loaded machine makes single runs noisy; each k gets up to three
// runs of two seconds, and one within the band passes.
func TestRealGoWaitScaling(t *testing.T) {
	realCPU(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for k := 2; k <= 4; k++ {
		want := float64(k - 1)
		in := func(r float64) bool { return r >= want/1.5 && r <= want*1.5 }
		var got []float64
		for range 3 {
			ratio := goWaitRatio(t, k, 2*time.Second)
			got = append(got, ratio)
			if in(ratio) {
				break
			}
		}
		t.Logf("k=%d: Go wait / time = %.2f (want %g)", k, got, want)
		if !in(got[len(got)-1]) {
			t.Errorf("k=%d: Go wait / time = %.2f in %d runs, want %g within a factor of 1.5", k, got, len(got), want)
		}
	}
}

// goWaitRatio runs k spinning goroutines for d and returns the estimated Go
// run-queue wait over the process's busy plus kernel wait time.
func goWaitRatio(t *testing.T, k int, d time.Duration) float64 {
	t.Helper()
	threads := newThreadReader(newProcSource("/proc"))
	defer threads.close()
	goWait := newGoSchedWait()
	t0, err := threads.read()
	if err != nil {
		t.Fatal(err)
	}
	g0, err := goWait.read()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for range k {
		wg.Go(func() {
			for time.Now().Before(end) {
			}
		})
	}
	wg.Wait()
	t1, err := threads.read()
	if err != nil {
		t.Fatal(err)
	}
	g1, err := goWait.read()
	if err != nil {
		t.Fatal(err)
	}
	return float64(g1-g0) / float64(t1.busy-t0.busy+t1.wait-t0.wait)
}

// realCPU skips a test whose figures come from real CPU contention unless OVERLOADSQL_REAL_CPU=1:
// anything else running on the machine (go test runs packages in parallel) moves them, so such
// tests run alone, in a step of their own (CONTRIBUTING.md, "Real-CPU tests").
func realCPU(t *testing.T) {
	t.Helper()
	if os.Getenv("OVERLOADSQL_REAL_CPU") != "1" {
		t.Skip("measures real CPU contention: run alone with OVERLOADSQL_REAL_CPU=1 go test -p 1 -run TestReal ./overload ./integration")
	}
}

// TestKernelThreadStart checks that a thread started between two readings is
// counted at the next one: the task directory's link count changes.
func TestKernelThreadStart(t *testing.T) {
	r := newThreadReader(newProcSource("/proc"))
	defer r.close()
	if _, err := r.read(); err != nil {
		t.Fatal(err)
	}
	lt := startLockedThread(t, 0)
	defer lt.exit()
	if _, err := r.read(); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.threads[lt.tid]; !ok && lt.tid != os.Getpid() {
		t.Errorf("new thread %d not tracked at the next reading", lt.tid)
	}
}
