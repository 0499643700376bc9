package admission

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// used gives each named workload, in order, the CPU time it names, with the fake clock standing
// still (nothing decays): a statement of the workload runs alone while a Tick reads the CPU.
// It returns the CPU time read last, to go on from.
func used(t *testing.T, g *grants, cpu time.Duration, uses []use) time.Duration {
	t.Helper()
	g.c.Tick(Load{CPU: cpu}) // the first read is the baseline
	for _, u := range uses {
		tk := g.take(u.workload)
		cpu += u.cpu
		g.c.Tick(Load{CPU: cpu})
		g.c.Release(tk)
	}
	return cpu
}

type use struct {
	workload string
	cpu      time.Duration
}

// outranked are the workloads of tickets that are outranked, in the order of tickets.
func outranked(tickets []*Ticket) []string {
	var out []string
	for _, tk := range tickets {
		if tk.Outranked() {
			out = append(out, tk.Workload())
		}
	}
	return out
}

func TestOutranked(t *testing.T) {
	for _, tc := range []struct {
		name      string
		workloads []Workload
		uses      []use
		running   []string // statements that run now, one ticket each
		want      []string // workloads of the outranked ones
	}{
		{"two 1:1: over its share yields to under", []Workload{{Name: "a"}, {Name: "b"}},
			[]use{{"a", ms(20)}, {"b", ms(10)}}, []string{"a", "b"}, []string{"a"}},
		{"two 1:1: equal use outranks nobody", []Workload{{Name: "a"}, {Name: "b"}},
			[]use{{"a", ms(10)}, {"b", ms(10)}}, []string{"a", "b"}, nil},
		{"two 1:1: a workload that does not run outranks nobody", []Workload{{Name: "a"}, {Name: "b"}},
			[]use{{"a", ms(20)}, {"b", ms(10)}}, []string{"a", "a"}, nil},
		{"two 3:1: the heavier weight under its share", []Workload{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}},
			[]use{{"a", ms(24)}, {"b", ms(10)}}, []string{"a", "b"}, []string{"b"}}, // 8 vs 10 ms per weight
		{"two 3:1: the heavier weight over its share", []Workload{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}},
			[]use{{"a", ms(36)}, {"b", ms(10)}}, []string{"a", "b", "a"}, []string{"a", "a"}}, // 12 vs 10
		{"three 1:1:1: the least used outranks both", []Workload{{Name: "a"}, {Name: "b"}, {Name: "c"}},
			[]use{{"a", ms(30)}, {"b", ms(10)}, {"c", ms(20)}}, []string{"a", "b", "c"}, []string{"a", "c"}},
		{"three 1:1:1: the least used does not run", []Workload{{Name: "a"}, {Name: "b"}, {Name: "c"}},
			[]use{{"a", ms(30)}, {"b", ms(10)}, {"c", ms(20)}}, []string{"a", "c"}, []string{"a"}},
		{"three 3:1:1", []Workload{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}, {Name: "c", Weight: 1}},
			[]use{{"a", ms(30)}, {"b", ms(12)}, {"c", ms(5)}}, []string{"c", "a", "b"}, []string{"a", "b"}}, // 10, 12, 5
		{"three 3:1:1: two tied first", []Workload{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}, {Name: "c", Weight: 1}},
			[]use{{"a", ms(15)}, {"b", ms(5)}, {"c", ms(9)}}, []string{"a", "b", "c"}, []string{"c"}}, // 5, 5, 9
		{"priority beats the fair share", []Workload{{Name: "a"}, {Name: "urgent", Priority: -1}},
			[]use{{"urgent", ms(100)}}, []string{"a", "urgent"}, []string{"a"}},
		{"priority, then the fair share within it",
			[]Workload{{Name: "batch", Priority: 1}, {Name: "web"}, {Name: "api"}},
			[]use{{"web", ms(30)}, {"api", ms(10)}}, []string{"batch", "web", "api"}, []string{"batch", "web"}},
		{"one workload alone", []Workload{{Name: "a"}}, []use{{"a", ms(10)}}, []string{"a", "a"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGrants(t, len(tc.running), Limits{MaxQueued: 10, Workloads: tc.workloads})
			used(t, g, time.Second, tc.uses)
			var tickets []*Ticket
			for _, name := range tc.running {
				tickets = append(tickets, g.take(name))
			}
			if got := outranked(tickets); !slices.Equal(got, tc.want) {
				t.Errorf("outranked %v, want %v (state %s)", got, tc.want, recent(g.c))
			}
			for _, tk := range tickets {
				g.c.Release(tk)
			}
		})
	}
}

func recent(c *Controller) string {
	s := ""
	for _, w := range c.Workloads() {
		s += fmt.Sprintf("%s: priority %d, %v per weight; ", w.Name, w.Priority, w.RecentCPU)
	}
	return s
}

// TestOutrankedFollowsTheRunningSet: the ranking changes when a workload starts or stops
// running, when a Tick accounts CPU time, and when a reload changes priorities.
func TestOutrankedFollowsTheRunningSet(t *testing.T) {
	limits := Limits{MaxQueued: 10, Workloads: []Workload{{Name: "a"}, {Name: "b"}}}
	g := newGrants(t, 2, limits)
	cpu := used(t, g, time.Second, []use{{"a", ms(20)}, {"b", ms(10)}})
	a, b := g.take("a"), g.take("b")
	check := func(when string, tickets []*Ticket, want ...string) {
		t.Helper()
		if got := outranked(tickets); !slices.Equal(got, want) {
			t.Errorf("%s: outranked %v, want %v (%s)", when, got, want, recent(g.c))
		}
	}
	check("a used more", []*Ticket{a, b}, "a")
	g.c.Release(a)
	check("b alone", []*Ticket{b})
	if a.Outranked() {
		t.Error("a released ticket of a workload that no longer runs is outranked")
	}
	// b alone uses 20 ms more: now b has used more than a.
	cpu += ms(20)
	g.c.Tick(Load{CPU: cpu})
	a = g.take("a")
	check("b used more", []*Ticket{a, b}, "b")
	// Both run and a uses the CPU: its share grows past b's at a Tick.
	g.c.Release(b)
	cpu += ms(15)
	g.c.Tick(Load{CPU: cpu}) // a 35, b 30
	b = g.take("b")
	check("a used more again", []*Ticket{a, b}, "a")
	// A reload puts b after a whatever the CPU use.
	limits.Workloads = []Workload{{Name: "a"}, {Name: "b", Priority: 1}}
	g.c.SetLimits(limits)
	check("b at a worse priority", []*Ticket{a, b}, "b")
	g.c.Release(a)
	check("b alone at its priority", []*Ticket{b})
	g.c.Release(b)
}

// TestStalledStatementsRank: a statement that runs past the stall limit still runs, and ranks
// as its workload does.
func TestStalledStatementsRank(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 10, StallLimit: ms(500), Workloads: []Workload{
		{Name: "batch", Priority: 1}, {Name: "web"},
	}})
	long := g.take("batch")
	web, ok := g.arrive("web") // borrows batch's slot
	if !ok {
		t.Fatalf("web waits behind batch; state %+v", g.c.State())
	}
	g.clock.Advance(ms(500))
	g.c.Tick(Load{})
	if s := g.c.State(); s.Stalled != 2 {
		t.Fatalf("state %+v, want both stalled", s)
	}
	if !long.Outranked() || web.Outranked() {
		t.Errorf("stalled batch outranked %v, web %v; want true, false", long.Outranked(), web.Outranked())
	}
	g.c.Release(web)
	if long.Outranked() {
		t.Error("batch alone is outranked")
	}
	g.c.Release(long)
}

// arrive starts a statement of the workload (waiting an hour at most) and returns its ticket
// when it started at once, or false once it waits in the queue.
func (g *grants) arrive(name string) (*Ticket, bool) {
	g.t.Helper()
	before := g.c.State().Queued
	done := make(chan *Ticket, 1)
	go func() {
		tk, err := g.c.Acquire(context.Background(), name, time.Hour)
		if err != nil {
			g.t.Errorf("%s: %v", name, err)
		}
		done <- tk
	}()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case tk := <-done:
			return tk, tk != nil
		default:
		}
		if g.c.State().Queued > before {
			go func() { g.got <- <-done }() // served later through next
			return nil, false
		}
		time.Sleep(time.Millisecond)
	}
	g.t.Fatalf("%s neither started nor queued within 5 s; state %+v", name, g.c.State())
	return nil, false
}

// TestBorrowing: with every slot taken, a statement whose workload ranks before a holder's (a
// better priority, or the same priority and less CPU used) starts at once on that holder's
// slot, one per lender; a statement of a workload tied with the holders' or after them waits.
func TestBorrowing(t *testing.T) {
	workloads := []Workload{{Name: "batch", Priority: 1}, {Name: "web"}, {Name: "api"}, {Name: "urgent", Priority: -1}}
	for _, tc := range []struct {
		name     string
		slots    int
		holders  []string
		arrivals []string
		started  []bool // whether each arrival started at once
	}{
		{"one lender, one borrower", 1, []string{"batch"}, []string{"web", "web"}, []bool{true, false}},
		{"two lenders", 2, []string{"batch", "batch"}, []string{"web", "api", "urgent"}, []bool{true, true, false}},
		{"a borrower lends to nobody", 1, []string{"batch"}, []string{"web", "urgent"}, []bool{true, false}},
		{"a better holder lends to nobody", 1, []string{"web"}, []string{"batch", "web"}, []bool{false, false}},
		{"same priority, less CPU: under its share, it borrows", 1, []string{"web"}, []string{"api", "api"}, []bool{true, false}},
		{"same priority, more CPU: over its share, it waits", 1, []string{"api"}, []string{"web"}, []bool{false}},
		{"the same workload: a tie, it waits", 1, []string{"api"}, []string{"api"}, []bool{false}},
		// Borrowers are counted over all workloads: urgent's and api's borrows leave urgent none.
		{"two levels", 2, []string{"batch", "web"}, []string{"urgent", "api", "urgent"}, []bool{true, true, false}},
		{"two levels, over its share", 2, []string{"batch", "api"}, []string{"urgent", "web", "urgent"}, []bool{true, false, true}},
		{"two levels, the better one last", 2, []string{"batch", "web"}, []string{"api", "urgent", "urgent"}, []bool{true, true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGrants(t, tc.slots, Limits{MaxQueued: 10, Workloads: workloads})
			used(t, g, time.Second, []use{{"web", ms(50)}})
			var tickets []*Ticket
			for _, h := range tc.holders {
				tickets = append(tickets, g.take(h))
			}
			for i, a := range tc.arrivals {
				tk, ok := g.arrive(a)
				if ok != tc.started[i] {
					t.Fatalf("arrival %d (%s) started %v, want %v; state %+v", i, a, ok, tc.started[i], g.c.State())
				}
				if ok {
					tickets = append(tickets, tk)
				}
			}
			if s := g.c.State(); s.Running > 2*tc.slots {
				t.Errorf("state %+v: more than twice the slots run", s)
			}
			// Every one ends, the waiters get in as slots come free.
			queued := g.c.State().Queued
			for _, tk := range tickets {
				g.c.Release(tk)
			}
			for range queued {
				g.c.Release(g.next())
			}
			if s := g.c.State(); s != (State{Slots: tc.slots}) {
				t.Errorf("after all ended: state %+v", s)
			}
		})
	}
}

// TestBorrowedSlotAfterTheLenderEnds: when the lender ends, its borrower keeps running on
// the slot, and no one borrows beyond the count for it.
func TestBorrowedSlotAfterTheLenderEnds(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 10, Workloads: []Workload{{Name: "batch", Priority: 1}, {Name: "web"}}})
	batch := g.take("batch")
	web, ok := g.arrive("web")
	if !ok {
		t.Fatal("web waits behind batch")
	}
	if !batch.Outranked() || web.Outranked() {
		t.Errorf("batch outranked %v, web %v", batch.Outranked(), web.Outranked())
	}
	g.c.Release(batch)
	if _, ok := g.arrive("web"); ok {
		t.Fatalf("a second web started with no lender; state %+v", g.c.State())
	}
	if _, ok := g.arrive("batch"); ok {
		t.Fatalf("batch started; state %+v", g.c.State())
	}
	g.c.Release(web)
	next := g.next()
	if next.Workload() != "web" {
		t.Fatalf("got %s, want the waiting web", next.Workload())
	}
	g.c.Release(next)
	g.c.Release(g.next())
	if s := g.c.State(); s != (State{Slots: 1}) {
		t.Errorf("state %+v", s)
	}
}

// TestBorrowerWhoseLenderEndedLends: a borrower whose lender ended holds the slot as its own,
// so a still better priority may borrow it in turn.
func TestBorrowerWhoseLenderEndedLends(t *testing.T) {
	g := newGrants(t, 1, Limits{MaxQueued: 10, Workloads: []Workload{{Name: "batch", Priority: 1}, {Name: "web"}, {Name: "urgent", Priority: -1}}})
	batch := g.take("batch")
	web, ok := g.arrive("web")
	if !ok {
		t.Fatal("web waits behind batch")
	}
	g.c.Release(batch)
	urgent, ok := g.arrive("urgent")
	if !ok {
		t.Fatalf("urgent waits behind web, whose lender ended; state %+v", g.c.State())
	}
	if s := g.c.State(); s.Running > 2 {
		t.Errorf("state %+v: more than twice the slots run", s)
	}
	g.c.Release(web)
	g.c.Release(urgent)
	if s := g.c.State(); s != (State{Slots: 1}) {
		t.Errorf("state %+v", s)
	}
}
