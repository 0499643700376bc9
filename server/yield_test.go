package server

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"overloadsql/admission"
)

func TestYielderYieldsOnlyWhenOthersWait(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		statements, procs, others int
		known                     bool
		want                      bool
	}{
		{"nobody waits", 1, 1, 0, true, false},
		{"only statements wait: 8 on one processor, 7 waiting", 8, 1, 7, true, false},
		{"one more than the statements: someone else waits", 8, 1, 8, true, true},
		{"statements fit the processors, one goroutine waits", 2, 2, 1, true, true},
		{"fewer statements than processors, nothing waits", 1, 2, 0, true, false},
		{"unknown count: yield, as the runtime would", 1, 1, 0, false, true},
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
				now:   clock.Load,
				yield: func() { yields++ },
				last:  new(atomic.Int64),
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

// BenchmarkYielderLook is one look of a running statement at the Go scheduler (once per
// yieldEvery across all statements, on the statement's goroutine).
func BenchmarkYielderLook(b *testing.B) {
	y := newYielder(func() int { return 1 })
	for b.Loop() {
		_ = y.othersWait()
	}
}
