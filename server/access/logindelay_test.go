package access

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func TestLoginDelays(t *testing.T) {
	settings := LoginDelaySettings{Threshold: 3, Min: 1500 * time.Millisecond, Max: 4 * time.Second}
	// Each step is one login from addr: ok or not, and the wait before its answer.
	type step struct {
		addr string
		ok   bool
		wait time.Duration
	}
	for _, tc := range []struct {
		name     string
		settings LoginDelaySettings
		steps    []step
	}{
		{"delays grow after the threshold, bounded", settings, []step{
			{"a", false, 0}, {"a", false, 0}, {"a", false, 0},
			{"a", false, 1500 * time.Millisecond}, // 1 s over the threshold, raised to min
			{"a", false, 2 * time.Second},
			{"a", false, 3 * time.Second},
			{"a", false, 4 * time.Second},
			{"a", false, 4 * time.Second}, // max
		}},
		{"a success is delayed too, then resets", settings, []step{
			{"a", false, 0}, {"a", false, 0}, {"a", false, 0},
			{"a", true, 1500 * time.Millisecond},
			{"a", false, 0},
		}},
		{"addresses are counted apart", settings, []step{
			{"a", false, 0}, {"a", false, 0}, {"a", false, 0},
			{"b", true, 0},
			{"a", false, 1500 * time.Millisecond},
		}},
		{"threshold 0 is off", LoginDelaySettings{Min: time.Second, Max: time.Second}, []step{
			{"a", false, 0}, {"a", false, 0}, {"a", false, 0}, {"a", false, 0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var slept []time.Duration
			d := NewLoginDelays(func() LoginDelaySettings { return tc.settings },
				func(w time.Duration) { slept = append(slept, w) }, &atomic.Uint64{})
			delayed := 0
			for i, s := range tc.steps {
				slept = nil
				d.wait(s.addr)
				d.record(s.addr, s.ok)
				var got time.Duration
				if len(slept) > 0 {
					got = slept[0]
					delayed++
				}
				if got != s.wait {
					t.Errorf("login %d from %s: waited %v, want %v", i+1, s.addr, got, s.wait)
				}
			}
			if got := d.delayed.Load(); got != uint64(delayed) {
				t.Errorf("DelayedLogins = %d, want %d", got, delayed)
			}
		})
	}
}

func TestLoginDelaysTableIsBounded(t *testing.T) {
	d := NewLoginDelays(func() LoginDelaySettings { return LoginDelaySettings{Threshold: 1} }, func(time.Duration) {}, &atomic.Uint64{})
	for i := range maxTrackedAddresses + 500 {
		d.record(fmt.Sprintf("10.0.%d.%d", i/256, i%256), false)
	}
	if n := len(d.failures); n != maxTrackedAddresses {
		t.Errorf("%d addresses tracked, want %d", n, maxTrackedAddresses)
	}
}
