package admission

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// standingStep is one event of a standing-queue scenario, on the fake clock.
type standingStep struct {
	// take, queue, refuse, shed (the oldest waiter is refused), release (the oldest waiter gets
	// the slot), free (a release that grants nothing), fewer (one slot less), advance,
	// standing, off
	op string
	d  time.Duration
	// want is the expected State().Standing of a "standing" step.
	want bool
}

func take() standingStep                   { return standingStep{op: "take"} }
func enqueue() standingStep                { return standingStep{op: "queue"} }
func refuse() standingStep                 { return standingStep{op: "refuse"} }
func release() standingStep                { return standingStep{op: "release"} }
func advance(d time.Duration) standingStep { return standingStep{op: "advance", d: d} }
func isStanding(want bool) standingStep    { return standingStep{op: "standing", want: want} }
func turnStandingOff() standingStep        { return standingStep{op: "off"} }
func ms(n int) time.Duration               { return time.Duration(n) * time.Millisecond }
func shedOldest() standingStep             { return standingStep{op: "shed"} }
func slotLess() standingStep               { return standingStep{op: "fewer"} }
func releaseOnly() standingStep            { return standingStep{op: "free"} }

func concat(parts ...[]standingStep) []standingStep {
	var all []standingStep
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// standsAfterTwoIntervals brings a one-slot controller (interval 100 ms, target 5 ms) to a
// standing queue: the first interval saw a statement take a free slot (wait 0), the second only
// a statement that waited the whole interval. It ends at 200 ms with the slot taken and one
// statement waiting since 0.
var standsAfterTwoIntervals = []standingStep{
	take(), enqueue(), advance(ms(100)), isStanding(false), advance(ms(100)), isStanding(true),
}

func TestStandingQueue(t *testing.T) {
	codel := Limits{MaxQueued: 100, StandingInterval: ms(100), StandingTarget: ms(5)}
	for _, tc := range []struct {
		name   string
		slots  int
		limits Limits
		steps  []standingStep
		// refused is the expected Stats().Standing at the end.
		refused uint64
	}{
		{
			name: "off: the queue takes everyone", slots: 1,
			limits: Limits{MaxQueued: 100, StandingTarget: ms(5)},
			steps: []standingStep{take(), enqueue(), enqueue(), advance(time.Second), isStanding(false),
				enqueue(), advance(time.Second), enqueue(), isStanding(false)},
		},
		{
			name: "waits under the target: not standing, the queue takes everyone", slots: 1, limits: codel,
			steps: []standingStep{take(), enqueue(), advance(ms(3)), release(), advance(ms(97)),
				enqueue(), enqueue(), advance(ms(4)), release(), isStanding(false)},
		},
		{
			name: "a whole interval over the target: one waiter per slot, the rest refused", slots: 1, limits: codel,
			steps: concat(standsAfterTwoIntervals, []standingStep{refuse(), refuse(),
				release(), enqueue(), refuse(), isStanding(true)}),
			refused: 3,
		},
		{
			name: "two slots keep two waiters", slots: 2, limits: codel,
			steps: []standingStep{take(), take(), enqueue(), enqueue(), advance(ms(100)), isStanding(false),
				advance(ms(100)), isStanding(true), refuse(), release(), enqueue(), refuse()},
			refused: 2,
		},
		{
			name: "short waits with refusals keep it standing; short waits alone end it", slots: 1, limits: codel,
			steps: concat(standsAfterTwoIntervals, []standingStep{
				release(), advance(ms(100)), isStanding(true), // 200-300: a wait of 200 ms
				enqueue(), advance(ms(2)), release(), enqueue(), refuse(), advance(ms(2)), release(),
				advance(ms(96)), isStanding(true), // 300-400: waits of 2 ms, but one refused
				enqueue(), advance(ms(1)), release(), advance(ms(100)), isStanding(false), // 400-500: 1 ms
				enqueue(), enqueue(), enqueue(),
			}),
			refused: 1,
		},
		{
			name: "idle intervals end it", slots: 1, limits: codel,
			steps: concat(standsAfterTwoIntervals, []standingStep{release(), release(),
				advance(time.Second), isStanding(false), take(), enqueue(), enqueue()}),
		},
		{
			name: "a queue that keeps waiting over whole idle intervals stands", slots: 1, limits: codel,
			steps:   []standingStep{take(), advance(ms(50)), enqueue(), advance(ms(500)), isStanding(true), refuse()},
			refused: 1,
		},
		{
			name: "a burst that did not drain: the oldest waiters beyond one per slot are shed", slots: 1, limits: codel,
			steps: []standingStep{take(), enqueue(), enqueue(), enqueue(), advance(ms(100)), isStanding(false),
				advance(ms(100)), isStanding(true), shedOldest(), shedOldest(), release(), enqueue(), refuse()},
			refused: 3,
		},
		{
			name: "fewer slots: the excess is shed when the next interval ends", slots: 2, limits: codel,
			steps: []standingStep{take(), take(), enqueue(), enqueue(), advance(ms(200)), isStanding(true),
				slotLess(), advance(ms(50)), isStanding(true), advance(ms(50)), isStanding(true), shedOldest(),
				releaseOnly(), release()},
			refused: 1,
		},
		{
			name: "turning it off ends it at once", slots: 1, limits: codel,
			steps: concat(standsAfterTwoIntervals, []standingStep{turnStandingOff(), isStanding(false), enqueue(), enqueue()}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.slots, tc.limits)
			var waiters []<-chan error
			for i, st := range tc.steps {
				switch st.op {
				case "take":
					if !h.try() {
						t.Fatalf("step %d: no free slot", i)
					}
				case "queue":
					waiters = append(waiters, h.queued(context.Background(), time.Hour))
				case "refuse":
					// A statement that queues instead must not hang the test.
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					err := h.acquireNow(ctx, time.Hour)
					cancel()
					var re *RejectedError
					if !errors.As(err, &re) || re.Reason != StandingQueue {
						t.Fatalf("step %d: want a refusal for the standing queue, got %v", i, err)
					}
					if re.Queued != tc.slots || re.Slots != tc.slots || re.StandingInterval != ms(100) || re.StandingTarget != ms(5) {
						t.Errorf("step %d: error state %+v", i, re)
					}
					if !strings.Contains(re.Error(), "admission queue standing (waits over 5ms for 100ms)") {
						t.Errorf("step %d: message %q", i, re.Error())
					}
				case "shed":
					err := result(t, waiters[0])
					var re *RejectedError
					if !errors.As(err, &re) || re.Reason != StandingQueue {
						t.Fatalf("step %d: want the oldest waiter shed for the standing queue, got %v", i, err)
					}
					waiters = waiters[1:]
				case "free":
					h.release()
					if len(waiters) > 0 {
						pending(waiters[0])
					}
				case "fewer":
					h.c.Adjust(Load{Runnable: 3, Procs: 1})
				case "release":
					h.release()
					if len(waiters) > 0 {
						if err := result(t, waiters[0]); err != nil {
							t.Fatalf("step %d: the head of the queue: %v", i, err)
						}
						waiters = waiters[1:]
					}
				case "advance":
					h.clock.Advance(st.d)
				case "standing":
					if got := h.c.State().Standing; got != st.want {
						t.Fatalf("step %d: standing %v, want %v (state %+v)", i, got, st.want, h.c.State())
					}
				case "off":
					l := tc.limits
					l.StandingInterval = 0
					h.c.SetLimits(l)
				default:
					t.Fatalf("step %d: unknown op %q", i, st.op)
				}
			}
			for _, w := range waiters {
				pending(w)
			}
			if got := h.c.Stats().Standing; got != tc.refused {
				t.Errorf("Stats().Standing = %d, want %d", got, tc.refused)
			}
		})
	}
}

// BenchmarkFastPath is the cost of TryAcquire and Release on a free slot, without and with
// the standing queue (which reads the clock on every slot taken).
func BenchmarkFastPath(b *testing.B) {
	for _, bc := range []struct {
		name   string
		limits Limits
	}{
		{"standing off", Limits{MaxQueued: 10}},
		{"standing on", Limits{MaxQueued: 10, StandingInterval: ms(100), StandingTarget: ms(5)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := New(bc.limits, Options{InitialSlots: 1})
			for b.Loop() {
				tk, ok := c.TryAcquire(DefaultWorkload)
				if !ok {
					b.Fatal("no free slot")
				}
				c.Release(tk)
			}
		})
	}
}
