package userlock

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// never is a done channel that does not close.
var never <-chan struct{}

func noCause() error { return nil }

func TestTableRules(t *testing.T) {
	type step struct {
		op      string // get, release, releaseAll, owner
		session uint32
		name    string
		want    string // get: "1"/"0"; release: "1"/"0"/"NULL"; releaseAll: count; owner: id
	}
	for _, c := range []struct {
		name  string
		steps []step
		names int // names kept at the end
	}{
		{"a lock taken and released is forgotten", []step{
			{"get", 1, "a", "1"}, {"owner", 0, "a", "1"}, {"release", 1, "a", "1"}, {"owner", 0, "a", "0"}, {"release", 1, "a", "NULL"},
		}, 0},
		{"another session's lock is not free and not released", []step{
			{"get", 1, "a", "1"}, {"get", 2, "a", "0"}, {"release", 2, "a", "0"}, {"owner", 0, "a", "1"},
		}, 1},
		{"names compare without case", []step{
			{"get", 1, "Lock", "1"}, {"get", 2, "LOCK", "0"}, {"owner", 0, "lock", "1"}, {"release", 1, "lOcK", "1"},
		}, 0},
		{"a lock taken twice needs two releases", []step{
			{"get", 1, "a", "1"}, {"get", 1, "a", "1"}, {"release", 1, "a", "1"}, {"owner", 0, "a", "1"}, {"release", 1, "a", "1"}, {"owner", 0, "a", "0"},
		}, 0},
		{"release all counts every GET_LOCK it undid", []step{
			{"get", 1, "a", "1"}, {"get", 1, "a", "1"}, {"get", 1, "b", "1"}, {"get", 2, "c", "1"},
			{"releaseAll", 1, "", "3"}, {"owner", 0, "a", "0"}, {"owner", 0, "c", "2"}, {"releaseAll", 1, "", "0"},
		}, 1},
		{"a failed try keeps no name", []step{
			{"get", 1, "a", "1"}, {"get", 2, "a", "0"}, {"releaseAll", 1, "", "1"},
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tbl := New()
			for i, s := range c.steps {
				var got string
				switch s.op {
				case "get":
					ok, _, err := tbl.Get(s.session, s.name, 0, never, noCause)
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					got = map[bool]string{true: "1", false: "0"}[ok]
				case "release":
					released, exists, _ := tbl.Release(s.session, s.name)
					got = map[bool]string{true: "1", false: "0"}[released]
					if !exists {
						got = "NULL"
					}
				case "releaseAll":
					n, _ := tbl.ReleaseAll(s.session)
					got = strconv.Itoa(n)
				case "owner":
					got = strconv.Itoa(int(tbl.Owner(s.name)))
				}
				if got != s.want {
					t.Fatalf("step %d %s(%d, %q) = %s, want %s", i, s.op, s.session, s.name, got, s.want)
				}
			}
			if n := tbl.Names(); n != c.names {
				t.Errorf("names kept at the end: %d, want %d", n, c.names)
			}
		})
	}
}

// waitFor polls until cond holds, for at most a minute (a busy machine may be slow to run the
// waiting goroutine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if cond() {
			return
		}
		time.Sleep(50 * time.Microsecond)
	}
	t.Fatalf("never: %s", what)
}

// waiters is how many sessions wait for key.
func (t *Table) waitersOf(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.locks[key]; l != nil {
		return len(l.waiters)
	}
	return 0
}

func TestWaiterGetsTheLockWhenItIsReleased(t *testing.T) {
	tbl := New()
	tbl.Get(1, "a", 0, never, noCause)
	got := make(chan bool)
	go func() {
		ok, _, _ := tbl.Get(2, "a", -1, never, noCause)
		got <- ok
	}()
	waitFor(t, "session 2 waits", func() bool { return tbl.waitersOf("a") == 1 })
	tbl.Release(1, "a")
	if !<-got {
		t.Fatal("the waiter did not get the released lock")
	}
	if o := tbl.Owner("a"); o != 2 {
		t.Fatalf("owner %d, want 2", o)
	}
}

func TestWaitEndsWhenDoneCloses(t *testing.T) {
	tbl := New()
	tbl.Get(1, "a", 0, never, noCause)
	done := make(chan struct{})
	killed := errors.New("killed")
	result := make(chan error)
	go func() {
		_, _, err := tbl.Get(2, "a", -1, done, func() error { return killed })
		result <- err
	}()
	waitFor(t, "session 2 waits", func() bool { return tbl.waitersOf("a") == 1 })
	close(done)
	if err := <-result; err != killed {
		t.Fatalf("wait ended with %v, want the cause's error", err)
	}
	tbl.Release(1, "a")
	if n := tbl.Names(); n != 0 {
		t.Fatalf("names kept after the waiter left and the holder released: %d", n)
	}
}

func TestWaitTimesOut(t *testing.T) {
	tbl := New()
	tbl.Get(1, "a", 0, never, noCause)
	ok, _, err := tbl.Get(2, "a", time.Millisecond, never, noCause)
	if ok || err != nil {
		t.Fatalf("Get with a timeout on a held lock: %v, %v; want false, nil", ok, err)
	}
	if w := tbl.waitersOf("a"); w != 0 {
		t.Fatalf("waiters after the timeout: %d", w)
	}
}

func TestDeadlockIsRefused(t *testing.T) {
	tbl := New()
	tbl.Get(1, "a", 0, never, noCause)
	tbl.Get(2, "b", 0, never, noCause)
	tbl.Get(3, "c", 0, never, noCause)
	// 1 waits for b (held by 2), 2 waits for c (held by 3): 3 asking for a closes the cycle.
	for _, w := range []struct {
		session uint32
		name    string
	}{{1, "b"}, {2, "c"}} {
		go tbl.Get(w.session, w.name, -1, never, noCause)
		waitFor(t, "a waiter", func() bool { return tbl.waitersOf(w.name) == 1 })
	}
	_, _, err := tbl.Get(3, "a", -1, never, noCause)
	var se *mysql.SQLError
	if !errors.As(err, &se) || se.Num != 3058 || se.State != "40001" {
		t.Fatalf("closing the cycle: %v, want error 3058 (40001)", err)
	}
	// Not a cycle: 4 waits for a behind 1, whose wait goes through 2 and 3 but not 4.
	res := make(chan bool)
	go func() { ok, _, _ := tbl.Get(4, "a", time.Hour, never, noCause); res <- ok }()
	waitFor(t, "session 4 waits", func() bool { return tbl.waitersOf("a") == 1 })
	tbl.ReleaseAll(3) // 2 gets c, then releases all: 1 gets b, then releases all: 4 gets a
	waitFor(t, "session 2 holds c", func() bool { return tbl.Owner("c") == 2 })
	tbl.ReleaseAll(2)
	waitFor(t, "session 1 holds b", func() bool { return tbl.Owner("b") == 1 })
	tbl.ReleaseAll(1)
	if !<-res {
		t.Fatal("session 4 did not get a")
	}
}

// TestReleasedLockGoesToTheOldestWaiter: a released lock goes to the session that waited
// longest, even when its holder asks for it again at once.
func TestReleasedLockGoesToTheOldestWaiter(t *testing.T) {
	tbl := New()
	tbl.Get(1, "a", 0, never, noCause)
	got := make(chan uint32, 2)
	for _, s := range []uint32{2, 3} {
		go func() {
			if ok, _, _ := tbl.Get(s, "a", -1, never, noCause); ok {
				got <- s
			}
		}()
		waitFor(t, "the waiter queues", func() bool { return tbl.waitersOf("a") == int(s-1) })
	}
	tbl.Release(1, "a")
	if ok, _, _ := tbl.Get(1, "a", 0, never, noCause); ok {
		t.Fatal("the releasing session took the lock back before its waiters")
	}
	if s := <-got; s != 2 {
		t.Fatalf("session %d got the lock, want the oldest waiter 2", s)
	}
	tbl.Release(2, "a")
	if s := <-got; s != 3 {
		t.Fatalf("session %d got the lock, want 3", s)
	}
	tbl.Release(3, "a")
	if n := tbl.Names(); n != 0 {
		t.Fatalf("names kept: %d", n)
	}
}
