package warnings

import "time"

// phase is where a tracker stands in its Schmitt trigger.
type phase int

const (
	idle    phase = iota // below warn, or raised and since cleared
	pending              // at or above warn since pendingSince, not yet for Duration
	raised               // the warning is raised
)

func (p phase) String() string {
	switch p {
	case idle:
		return "idle"
	case pending:
		return "pending"
	case raised:
		return "raised"
	}
	return "unknown phase"
}

// outcome tells the caller of step what to do with the warning.
type outcome int

const (
	quiet       outcome = iota // no warning, none to remove
	raiseNow                   // the hold time is complete: raise the warning
	stillRaised                // raised before and still raised: refresh it
	clearNow                   // the value fell to clear: remove the warning
)

// tracker is the hysteresis of one resource: a Schmitt trigger with a hold
// time (see the package comment). It holds no thresholds; each step is given
// the current ones, so a configuration change acts on the next sample.
type tracker struct {
	phase        phase
	pendingSince time.Time // first sample of the current run at or above warn
}

// step evaluates one known sample.
func (t *tracker) step(now time.Time, value float64, th Thresholds) outcome {
	switch t.phase {
	case raised:
		if value <= th.Clear {
			t.reset()
			return clearNow
		}
		return stillRaised
	case idle:
		if value < th.Warn {
			return quiet
		}
		t.phase, t.pendingSince = pending, now
	}
	// pending, possibly since this very sample
	if value < th.Warn {
		t.reset()
		return quiet
	}
	if now.Sub(t.pendingSince) >= th.Duration {
		t.phase = raised
		return raiseNow
	}
	return quiet
}

// unknown records a sample without a value: a pending run is broken,
// a raised warning stays.
func (t *tracker) unknown() {
	if t.phase == pending {
		t.reset()
	}
}

func (t *tracker) reset() {
	*t = tracker{}
}
