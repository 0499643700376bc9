package warnings

import (
	"math"
	"testing"
	"time"
)

// TestTrackerPhases walks one tracker through every transition of the
// Schmitt trigger, one sample per second, with warn 0.9, clear 0.8 and a hold
// time of 2 s. NaN stands for a sample without a value.
func TestTrackerPhases(t *testing.T) {
	th := Thresholds{Warn: 0.9, Clear: 0.8, Duration: 2 * time.Second}
	steps := []struct {
		value float64
		phase phase
		out   outcome
	}{
		{0.5, idle, quiet},
		{0.9, pending, quiet},  // equal to warn counts
		{0.95, pending, quiet}, // 1 s held
		{0.89, idle, quiet},    // below warn: the run is broken
		{0.95, pending, quiet}, // a new run starts here
		{math.NaN(), idle, quiet},
		{0.95, pending, quiet},
		{0.99, pending, quiet},
		{0.91, raised, raiseNow}, // 2 s held
		{0.85, raised, stillRaised},
		{0.95, raised, stillRaised},
		{math.NaN(), raised, quiet},
		{0.8001, raised, stillRaised},
		{0.8, idle, clearNow}, // equal to clear clears
		{0.85, idle, quiet},
		{0.95, pending, quiet},
	}
	var tr tracker
	start := time.Unix(0, 0)
	for i, s := range steps {
		now := start.Add(time.Duration(i) * time.Second)
		out := quiet
		if math.IsNaN(s.value) {
			tr.unknown()
		} else {
			out = tr.step(now, s.value, th)
		}
		if tr.phase != s.phase || out != s.out {
			t.Fatalf("sample %d (value %v): phase %v, outcome %d; want phase %v, outcome %d",
				i, s.value, tr.phase, out, s.phase, s.out)
		}
	}
}

func TestTrackerZeroDurationRaisesOnFirstSample(t *testing.T) {
	var tr tracker
	th := Thresholds{Warn: 0.9, Clear: 0.8}
	if out := tr.step(time.Unix(0, 0), 0.9, th); out != raiseNow || tr.phase != raised {
		t.Fatalf("step = %d in phase %v, want raiseNow in phase raised", out, tr.phase)
	}
}

func TestTrackerClockGoingBackwardsDoesNotRaise(t *testing.T) {
	var tr tracker
	th := Thresholds{Warn: 0.9, Clear: 0.8, Duration: time.Second}
	start := time.Unix(100, 0)
	tr.step(start, 0.95, th)
	if out := tr.step(start.Add(-time.Hour), 0.95, th); out != quiet || tr.phase != pending {
		t.Fatalf("step = %d in phase %v, want quiet in phase pending", out, tr.phase)
	}
}
