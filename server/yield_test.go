package server

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"overloadsql/admission"

	"github.com/dolthub/go-mysql-server/sql"
)

func TestYielderYieldsOnlyWhenOthersWait(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		statements, procs, others int
		known                     bool
		outranked                 bool // the statement's workload is outranked by a running one
		want                      bool
	}{
		{"nobody waits", 1, 1, 0, true, false, false},
		{"only statements wait: 8 on one processor, 7 waiting", 8, 1, 7, true, false, false},
		{"one more than the statements: someone else waits", 8, 1, 8, true, false, true},
		{"statements fit the processors, one goroutine waits", 2, 2, 1, true, false, true},
		{"fewer statements than processors, nothing waits", 1, 2, 0, true, false, false},
		{"unknown count: yield, as the runtime would", 1, 1, 0, false, false, true},
		{"outranked, the other statement waits", 2, 1, 1, true, true, true},
		{"outranked, 12 statements on one processor, 11 waiting", 12, 1, 11, true, true, true},
		{"outranked, on two processors, one goroutine waits", 3, 2, 1, true, true, true},
		{"outranked, nobody waits: the better one runs elsewhere", 2, 2, 0, true, true, false},
		{"outranked, one processor, nothing waits", 1, 1, 0, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var clock atomic.Int64
			yields := 0
			y := yielder{
				statements: func() int { return tc.statements },
				load: func() (admission.Load, error) {
					if !tc.known {
						return admission.Load{}, errors.New("no such metric")
					}
					return admission.Load{Runnable: tc.others, Procs: tc.procs}, nil
				},
				outranked: func(*sql.Context) bool { return tc.outranked },
				now:       clock.Load,
				yield:     func() { yields++ },
				last:      new(atomic.Int64),
			}
			clock.Store(int64(yieldEvery))
			if _, err := y.Build(nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			if got := yields == 1; got != tc.want {
				t.Errorf("yielded %d times, want yield %v", yields, tc.want)
			}
		})
	}
}

func TestYielderLooksOncePerInterval(t *testing.T) {
	var clock atomic.Int64
	looks, yields := 0, 0
	y := yielder{
		statements: func() int { return 1 },
		load:       func() (admission.Load, error) { looks++; return admission.Load{Runnable: 1, Procs: 1}, nil },
		outranked:  func(*sql.Context) bool { return false },
		now:        clock.Load,
		yield:      func() { yields++ },
		last:       new(atomic.Int64),
	}
	steps := []struct {
		at          time.Duration
		looks, ylds int
	}{
		{0, 0, 0}, // not yet an interval since the start
		{yieldEvery - 1, 0, 0},
		{yieldEvery, 1, 1},
		{yieldEvery + yieldEvery/2, 1, 1}, // the interval is shared: no second look in it
		{2 * yieldEvery, 2, 2},
	}
	for _, st := range steps {
		clock.Store(int64(st.at))
		for range 3 { // every build within the same instant: one look at most
			_, _ = y.Build(nil, nil, nil)
		}
		if looks != st.looks || yields != st.ylds {
			t.Fatalf("at %v: %d looks and %d yields, want %d and %d", st.at, looks, yields, st.looks, st.ylds)
		}
	}
}

func TestYielderReadsTheScheduler(t *testing.T) {
	if _, err := newYielder(func() int { return 0 }).load(); err != nil {
		t.Fatalf("%v: the yielder would yield every interval", err)
	}
}

// TestYielderReadsTheTicket: the yielder's outranked reads the admission ticket the statement's
// context carries; a statement without one (admin, exempt, admission off) is never outranked.
func TestYielderReadsTheTicket(t *testing.T) {
	c := admission.New(admission.Limits{Workloads: []admission.Workload{{Name: "a"}, {Name: "urgent", Priority: -1}}},
		admission.Options{InitialSlots: 2})
	a, ok := c.TryAcquire("a")
	if !ok {
		t.Fatal("no slot")
	}
	defer c.Release(a)
	y := newYielder(func() int { return 1 })
	ctxA := sql.NewContext(withTicket(context.Background(), a))
	plain := sql.NewContext(context.Background())
	if y.outranked(ctxA) || y.outranked(plain) || y.outranked(nil) {
		t.Fatal("outranked while nothing better runs")
	}
	urgent, ok := c.TryAcquire("urgent")
	if !ok {
		t.Fatal("no slot")
	}
	if !y.outranked(ctxA) {
		t.Error("a is not outranked while urgent runs")
	}
	if y.outranked(plain) || y.outranked(sql.NewContext(withTicket(context.Background(), urgent))) {
		t.Error("a statement without a ticket, or the better one, is outranked")
	}
	c.Release(urgent)
	if y.outranked(ctxA) {
		t.Error("a is outranked after urgent ended")
	}
}

// BenchmarkYielderLook is one look of a running statement at the Go scheduler (once per
// yieldEvery across all statements, on the statement's goroutine), with an admission ticket
// in its context.
func BenchmarkYielderLook(b *testing.B) {
	c := admission.New(admission.Limits{}, admission.Options{InitialSlots: 1})
	t, _ := c.TryAcquire(admission.DefaultWorkload)
	defer c.Release(t)
	ctx := sql.NewContext(withTicket(context.Background(), t))
	y := newYielder(func() int { return 1 })
	b.Run("scheduler", func(b *testing.B) {
		for b.Loop() {
			_ = y.shouldYield(ctx)
		}
	})
	b.Run("ticket", func(b *testing.B) { // read when goroutines wait
		for b.Loop() {
			_ = y.outranked(ctx)
		}
	})
}

// BenchmarkYielderBuild is the yielder's cost per iterator the engine builds, mostly between
// looks.
func BenchmarkYielderBuild(b *testing.B) {
	ctx := sql.NewContext(context.Background())
	y := newYielder(func() int { return 1 })
	for b.Loop() {
		_, _ = y.Build(ctx, nil, nil)
	}
}
