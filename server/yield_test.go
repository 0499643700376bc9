package server

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"overloadsql/admission"

	"github.com/dolthub/go-mysql-server/sql"
)

// What a look does, as the yielder's fakes record it.
var (
	stepsBack          = []string{"yield"}
	pollsThenStepsBack = []string{"poll", "yield"}
)

func TestYielderYieldsOnlyWhenOthersWait(t *testing.T) {
	for _, tc := range []struct {
		name                               string
		statements, procs, running, others int
		known                              bool
		outranked                          bool // the statement's workload is outranked by a running one
		want                               []string
	}{
		{"nobody waits, a processor is free", 1, 2, 1, 0, true, false, nil},
		{"only statements wait: 8 on one processor, 7 waiting", 8, 1, 1, 7, true, false, nil},
		{"one more than the statements: someone else waits", 8, 1, 1, 8, true, false, stepsBack},
		{"statements fit the processors, one goroutine waits", 2, 2, 2, 1, true, false, stepsBack},
		{"fewer statements than processors, nothing waits", 1, 2, 1, 0, true, false, nil},
		{"unknown count: yield, as the runtime would", 1, 1, 1, 0, false, false, stepsBack},
		{"outranked, the other statement waits", 2, 1, 1, 1, true, true, stepsBack},
		{"outranked, 12 statements on one processor, 11 waiting", 12, 1, 1, 11, true, true, stepsBack},
		{"outranked, on two processors, one goroutine waits", 3, 2, 2, 1, true, true, stepsBack},
		{"outranked, nobody waits, a processor is free", 2, 2, 1, 0, true, true, nil},
		// Every processor runs and nobody waits: a packet may be waiting for the runtime's poll.
		{"one processor, it runs, nothing waits", 1, 1, 1, 0, true, false, pollsThenStepsBack},
		{"two processors, both run, nothing waits", 2, 2, 2, 0, true, true, pollsThenStepsBack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var clock atomic.Int64
			var got []string
			y := yielder{
				statements: func() int { return tc.statements },
				load: func() (admission.Load, error) {
					if !tc.known {
						return admission.Load{}, errors.New("no such metric")
					}
					return admission.Load{Runnable: tc.others, Running: tc.running, Procs: tc.procs}, nil
				},
				outranked: func(*sql.Context) bool { return tc.outranked },
				now:       clock.Load,
				yield:     func() { got = append(got, "yield") },
				poll:      func() { got = append(got, "poll") },
				last:      new(atomic.Int64),

				steppedBack: new(atomic.Int32),
			}
			clock.Store(int64(yieldEvery))
			if _, err := y.Build(nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("the look did %v, want %v", got, tc.want)
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

		steppedBack: new(atomic.Int32),
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

// TestOutrankedStepsBackWhileABetterOneWaits: while a statement that nothing outranks has
// stepped back (for goroutines that are not statements, or after letting the runtime poll), an
// outranked statement that runs steps back at its next build, without waiting for a look; a
// statement that is not outranked goes on, and once the better one runs again nobody steps
// back for it.
func TestOutrankedStepsBackWhileABetterOneWaits(t *testing.T) {
	for _, tc := range []struct {
		name string
		load admission.Load
		away string // what the better statement does while the others run
	}{
		// Three statements on one processor, and one goroutine that is not a statement.
		{"steps back", admission.Load{Runnable: 3, Running: 1, Procs: 1}, "yield"},
		// The better statement alone on the processor.
		{"lets the runtime poll", admission.Load{Runnable: 0, Running: 1, Procs: 1}, "poll"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var clock atomic.Int64
			better, outranked, equal := sql.NewContext(context.Background()), sql.NewContext(context.Background()), sql.NewContext(context.Background())
			names := map[*sql.Context]string{better: "better", outranked: "outranked", equal: "equal"}
			var running *sql.Context
			var y yielder
			var stepped []string
			away := func(what string) {
				if running != better {
					stepped = append(stepped, names[running])
					return
				}
				if what != tc.away {
					return
				}
				stepped = append(stepped, "better")
				for _, other := range []*sql.Context{outranked, equal} {
					running = other
					if _, err := y.Build(other, nil, nil); err != nil {
						t.Fatal(err)
					}
				}
				running = better
			}
			y = yielder{
				statements:  func() int { return 3 },
				load:        func() (admission.Load, error) { return tc.load, nil },
				outranked:   func(ctx *sql.Context) bool { return ctx == outranked },
				now:         clock.Load,
				yield:       func() { away("yield") },
				poll:        func() { away("poll") },
				last:        new(atomic.Int64),
				steppedBack: new(atomic.Int32),
			}
			clock.Store(int64(yieldEvery))
			running = better
			if _, err := y.Build(better, nil, nil); err != nil {
				t.Fatal(err)
			}
			if want := []string{"better", "outranked"}; !slices.Equal(stepped, want) {
				t.Fatalf("stepped back: %v, want %v", stepped, want)
			}
			running = outranked
			if _, err := y.Build(outranked, nil, nil); err != nil { // within the look's interval
				t.Fatal(err)
			}
			if len(stepped) != 2 {
				t.Errorf("the outranked statement stepped back after the better one ran again: %v", stepped)
			}
		})
	}
}

func TestYielderReadsTheScheduler(t *testing.T) {
	y, err := newYielder(func() int { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := y.load(); err != nil {
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
	y, _ := newYielder(func() int { return 1 })
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
	y, _ := newYielder(func() int { return 1 })
	b.Run("scheduler", func(b *testing.B) {
		for b.Loop() {
			_ = y.look(ctx)
		}
	})
	b.Run("poll", func(b *testing.B) { // when every processor runs and nobody waits
		for b.Loop() {
			y.poll()
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
	y, _ := newYielder(func() int { return 1 })
	for b.Loop() {
		_, _ = y.Build(ctx, nil, nil)
	}
}
