package quota

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
)

func fixed(n int64) Limit { return func() int64 { return n } }

// refusedBy is the account that refused err, "" when err is nil.
func refusedBy(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *ExceededError
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *ExceededError", err)
	}
	return e.Account
}

// The session quota refuses the session that would go past it while another session under the
// same server account goes on reserving, and a release makes room again.
func TestSessionQuotaRefusesOneSessionWhileAnotherGoesOn(t *testing.T) {
	server := New("server", nil, fixed(1000))
	a := New("session 1", server, fixed(300))
	b := New("session 2", server, fixed(300))
	steps := []struct {
		who     *Account
		reserve int64 // < 0: release
		refused string
	}{
		{a, 200, ""},
		{a, 200, "session 1"}, // 400 > 300
		{b, 250, ""},          // b goes on
		{a, 100, ""},          // exactly 300
		{b, 50, ""},
		{a, 1, "session 1"},
		{a, -150, ""},
		{a, 100, ""},
	}
	for i, s := range steps {
		var err error
		if s.reserve < 0 {
			s.who.Release(-s.reserve)
		} else {
			err = s.who.Reserve(s.reserve)
		}
		if got := refusedBy(t, err); got != s.refused {
			t.Fatalf("step %d (%s %d): refused by %q, want %q", i, s.who.Name(), s.reserve, got, s.refused)
		}
	}
	if a.Used() != 250 || b.Used() != 300 || server.Used() != 550 {
		t.Errorf("used: a %d b %d server %d, want 250 300 550", a.Used(), b.Used(), server.Used())
	}
}

// The server's account refuses whichever session would take the total past it, and the
// refusal leaves nothing reserved on any level.
func TestServerAccountRefusesTheSessionThatWouldFillIt(t *testing.T) {
	server := New("server", nil, fixed(500))
	sessions := make([]*Account, 4)
	for i := range sessions {
		sessions[i] = New("session", server, fixed(300))
	}
	for i, want := range []string{"", "", "server", "server"} {
		err := sessions[i].Reserve(200)
		if got := refusedBy(t, err); got != want {
			t.Errorf("session %d: refused by %q, want %q", i, got, want)
		}
	}
	if server.Used() != 400 || sessions[2].Used() != 0 || sessions[3].Used() != 0 {
		t.Errorf("used: server %d, refused sessions %d %d; want 400, 0, 0", server.Used(), sessions[2].Used(), sessions[3].Used())
	}
	var e *ExceededError
	if err := sessions[3].Reserve(200); !errors.As(err, &e) || e.Used != 400 || e.Limit != 500 || e.Want != 200 {
		t.Errorf("refusal: %+v, want used 400, limit 500, want 200", e)
	}
}

// A workload's account between the sessions and the server refuses the sessions of that
// workload only: another workload's sessions go on.
func TestWorkloadAccountRefusesOneWorkloadWhileAnotherGoesOn(t *testing.T) {
	server := New("server", nil, fixed(10_000))
	batch := New("workload batch", server, fixed(500))
	web := New("workload web", server, fixed(5_000))
	b1, b2 := New("b1", batch, fixed(400)), New("b2", batch, fixed(400))
	w1, w2 := New("w1", web, fixed(400)), New("w2", web, fixed(400))
	for _, s := range []struct {
		who     *Account
		n       int64
		refused string
	}{
		{b1, 300, ""},
		{b2, 300, "workload batch"}, // 600 > 500, though b2's own 300 <= 400
		{w1, 400, ""},
		{w2, 400, ""}, // web goes on
		{b2, 200, ""},
		{b2, 1, "workload batch"},
		{w1, 1, "w1"},
	} {
		if got := refusedBy(t, s.who.Reserve(s.n)); got != s.refused {
			t.Errorf("%s reserves %d: refused by %q, want %q", s.who.Name(), s.n, got, s.refused)
		}
	}
	if batch.Used() != 500 || web.Used() != 800 || server.Used() != 1300 {
		t.Errorf("used: batch %d web %d server %d, want 500 800 1300", batch.Used(), web.Used(), server.Used())
	}
}

// Move takes a session's bytes from its old workload to the new one; the server's account,
// above both, keeps them. A full workload refuses the move unless it is forced.
func TestMoveBetweenWorkloads(t *testing.T) {
	server := New("server", nil, fixed(1000))
	a := New("workload a", server, fixed(500))
	b := New("workload b", server, fixed(250))
	s := New("session", a, nil)
	if err := s.Reserve(300); err != nil {
		t.Fatal(err)
	}
	if got := refusedBy(t, s.Move(b, false)); got != "workload b" {
		t.Fatalf("move into a too small workload: refused by %q, want workload b", got)
	}
	if s.Parent() != a || a.Used() != 300 || b.Used() != 0 || server.Used() != 300 {
		t.Fatalf("after a refused move: parent %s, a %d, b %d, server %d", s.Parent().Name(), a.Used(), b.Used(), server.Used())
	}
	if err := s.Move(b, true); err != nil {
		t.Fatal(err)
	}
	if s.Parent() != b || a.Used() != 0 || b.Used() != 300 || server.Used() != 300 {
		t.Fatalf("after a forced move: parent %s, a %d, b %d, server %d", s.Parent().Name(), a.Used(), b.Used(), server.Used())
	}
	if got := refusedBy(t, s.Reserve(1)); got != "workload b" {
		t.Errorf("reserve over the forced workload: refused by %q, want workload b", got)
	}
	s.Release(100)
	if err := s.Move(a, false); err != nil {
		t.Fatal(err)
	}
	if a.Used() != 200 || b.Used() != 0 || server.Used() != 200 {
		t.Errorf("after moving back: a %d, b %d, server %d", a.Used(), b.Used(), server.Used())
	}
}

// Charge goes past a limit (memory already kept); the account then refuses until released.
func TestChargeGoesOverAndRefusesAfter(t *testing.T) {
	server := New("server", nil, nil)
	s := New("session", server, fixed(100))
	s.Charge(150)
	if s.Used() != 150 || server.Used() != 150 {
		t.Fatalf("charged: %d, server %d", s.Used(), server.Used())
	}
	if got := refusedBy(t, s.Reserve(1)); got != "session" {
		t.Errorf("reserve over a charged account: refused by %q", got)
	}
	s.Release(100)
	if err := s.Reserve(50); err != nil {
		t.Errorf("reserve after release: %v", err)
	}
}

// A limit is read at each reservation: a lowered limit refuses the next one, and a limit of 0
// is none.
func TestLimitIsReadAtEachReservation(t *testing.T) {
	limit := int64(100)
	s := New("session", nil, func() int64 { return limit })
	if err := s.Reserve(80); err != nil {
		t.Fatal(err)
	}
	limit = 50
	if got := refusedBy(t, s.Reserve(1)); got != "session" {
		t.Errorf("after lowering: refused by %q", got)
	}
	limit = 0
	if err := s.Reserve(1 << 40); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

// Concurrent sessions never take the server's account past its limit, and every byte reserved
// is released.
func TestConcurrentReservationsStayUnderTheLimit(t *testing.T) {
	const limit = 10_000
	server := New("server", nil, fixed(limit))
	var wg sync.WaitGroup
	var over sync.Once
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New("session", server, fixed(4_000))
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 2000 {
				n := r.Int64N(500)
				if s.Reserve(n) == nil {
					if server.Used() > limit {
						over.Do(func() { t.Errorf("server account at %d, over %d", server.Used(), limit) })
					}
					s.Release(n)
				}
			}
		}()
	}
	wg.Wait()
	if server.Used() != 0 {
		t.Errorf("server account at %d after every release, want 0", server.Used())
	}
}

// ReserveOwn holds the account to its own limit only: a full server account does not refuse it,
// and it counts in the server's bytes, so that the next ordinary reservation is refused.
func TestReserveOwnIgnoresOnlyTheSharedLimits(t *testing.T) {
	server := New("server", nil, fixed(100))
	user := New("session", server, fixed(1000))
	operator := New("operator", server, fixed(50))
	steps := []struct {
		who     *Account
		own     bool
		reserve int64
		refused string
	}{
		{user, false, 100, ""},
		{user, false, 1, "server"},
		{operator, true, 40, ""},         // the server is full, the operator's own limit is not
		{operator, true, 20, "operator"}, // 60 > 50
		{operator, false, 1, "server"},   // an ordinary reservation of the operator is refused
		{user, false, 1, "server"},
	}
	for i, s := range steps {
		reserve := s.who.Reserve
		if s.own {
			reserve = s.who.ReserveOwn
		}
		if got := refusedBy(t, reserve(s.reserve)); got != s.refused {
			t.Fatalf("step %d (%s %d): refused by %q, want %q", i, s.who.Name(), s.reserve, got, s.refused)
		}
	}
	if server.Used() != 140 || operator.Used() != 40 {
		t.Errorf("used: server %d operator %d, want 140 and 40", server.Used(), operator.Used())
	}
}
