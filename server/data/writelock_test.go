package data

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// waitFor polls cond until it holds; the lock's waiters are goroutines, so the tests wait for
// them to be queued before they go on. Bounded: fails after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWriteLockIsReentrantAndFIFO(t *testing.T) {
	var l WriteLock
	ctx := context.Background()
	if err := l.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := l.Acquire(ctx, 1); err != nil {
		t.Fatalf("re-entry: %v", err)
	}
	order := make(chan uint32, 2)
	for _, conn := range []uint32{2, 3} {
		go func() {
			if err := l.Acquire(ctx, conn); err != nil {
				t.Error(err)
			}
			order <- conn
		}()
		waitFor(t, "the waiter to queue", func() bool { _, n := l.State(); return int(n) == int(conn)-1 })
	}
	l.Release(3) // not the holder: nothing happens
	if owner, waiting := l.State(); owner != 1 || waiting != 2 {
		t.Fatalf("state = %d, %d after a release by a non-holder; want 1, 2", owner, waiting)
	}
	l.Release(1)
	if got := <-order; got != 2 {
		t.Fatalf("connection %d got the lock first, want 2 (arrival order)", got)
	}
	if !l.Holds(2) || l.Holds(1) {
		t.Fatal("the lock did not pass to connection 2")
	}
	l.Release(2)
	if got := <-order; got != 3 {
		t.Fatalf("got %d, want 3", got)
	}
	l.Release(3)
	if owner, waiting := l.State(); owner != 0 || waiting != 0 {
		t.Fatalf("state = %d, %d after every release; want free", owner, waiting)
	}
}

func TestWriteLockWaiterGivesUp(t *testing.T) {
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Unix(0, 0))
		}, context.DeadlineExceeded},
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l WriteLock
			if err := l.Acquire(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := c.ctx()
			defer cancel()
			if err := l.Acquire(ctx, 2); !errors.Is(err, c.want) {
				t.Fatalf("acquire = %v, want %v", err, c.want)
			}
			if owner, waiting := l.State(); owner != 1 || waiting != 0 {
				t.Fatalf("state = %d, %d after the waiter gave up; want 1, 0", owner, waiting)
			}
			l.Release(1)
			if err := l.Acquire(context.Background(), 3); err != nil || !l.Holds(3) {
				t.Fatalf("the lock is not free after the holder released it: %v", err)
			}
		})
	}
}

// A waiter granted the lock at the moment it gives up passes it on instead of keeping it; one
// not granted leaves the queue.
func TestWriteLockGiveUp(t *testing.T) {
	var l WriteLock
	if err := l.Acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	granted := &lockWaiter{conn: 2, granted: make(chan struct{})}
	queued := &lockWaiter{conn: 3, granted: make(chan struct{})}
	last := &lockWaiter{conn: 4, granted: make(chan struct{})}
	l.waiters = []*lockWaiter{granted, queued, last}
	l.Release(1)
	if !l.Holds(2) {
		t.Fatal("the release did not grant connection 2")
	}
	l.giveUp(queued)
	if _, waiting := l.State(); waiting != 1 {
		t.Fatalf("%d waiting after connection 3 gave up, want 1", waiting)
	}
	l.giveUp(granted)
	select {
	case <-last.granted:
	default:
		t.Fatal("connection 2 gave up its grant, but the lock did not pass to connection 4")
	}
	if !l.Holds(4) {
		t.Fatal("connection 4 does not hold the lock")
	}
}

// interrupt (a KILL) stops only the named connection's wait; a connection that does not wait is
// not affected, and the lock passes on in order.
func TestWriteLockInterrupt(t *testing.T) {
	var l WriteLock
	ctx := context.Background()
	if err := l.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	results := map[uint32]chan error{2: make(chan error, 1), 3: make(chan error, 1)}
	for _, conn := range []uint32{2, 3} {
		go func() { results[conn] <- l.Acquire(ctx, conn) }()
		waitFor(t, "the waiter to queue", func() bool { _, n := l.State(); return int(n) == int(conn)-1 })
	}
	l.Interrupt(1) // the holder does not wait: nothing happens
	l.Interrupt(2)
	l.Interrupt(2) // twice: still one stop
	if err := <-results[2]; !errors.Is(err, ErrWaitInterrupted) {
		t.Fatalf("the interrupted waiter's acquire = %v, want ErrWaitInterrupted", err)
	}
	if owner, waiting := l.State(); owner != 1 || waiting != 1 {
		t.Fatalf("state = %d, %d after the interrupt; want 1, 1", owner, waiting)
	}
	l.Release(1)
	if err := <-results[3]; err != nil || !l.Holds(3) {
		t.Fatalf("connection 3 after the release: %v, holds %v; want the lock", err, l.Holds(3))
	}
}

// Connection ids wrap around to 0 after 2^32 connections: connection 0 holds and waits like any
// other, and the lock is free only when nobody holds it.
func TestWriteLockConnectionZero(t *testing.T) {
	var l WriteLock
	if epoch, free := l.quiet(); !free || epoch != 0 {
		t.Fatalf("a new lock: epoch %d, free %v; want 0, true", epoch, free)
	}
	if err := l.Acquire(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if _, free := l.quiet(); free || !l.Holds(0) || l.Holds(1) {
		t.Fatal("connection 0 took the lock, but the lock reads free or not held by 0")
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if err := l.Acquire(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("connection 1 beside holder 0: %v, want to wait (and time out)", err)
	}
	l.Release(0)
	if epoch, free := l.quiet(); !free || epoch != 1 {
		t.Fatalf("after the release: epoch %d, free %v; want 1, true", epoch, free)
	}
	if err := l.Acquire(context.Background(), math.MaxUint32); err != nil || !l.Holds(math.MaxUint32) {
		t.Fatalf("the largest connection id: %v", err)
	}
	if epoch, _ := l.quiet(); epoch != 2 {
		t.Fatalf("epoch %d after two grants, want 2", epoch)
	}
}
