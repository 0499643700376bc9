package access

import (
	"sync"
	"sync/atomic"
	"time"
)

// maxTrackedAddresses bounds the failed-login table; when it is full, a new address replaces
// an arbitrary tracked one.
const maxTrackedAddresses = 10_000

// LoginDelaySettings are connection_control's settings.
type LoginDelaySettings struct {
	Threshold int           // consecutive failures before answers are delayed; 0 = never
	Min, Max  time.Duration // bounds of the delay
}

// LoginDelays is MySQL's connection_control: after threshold consecutive failed logins from an
// address, every further login answer to that address waits (failures over the threshold)
// seconds, bounded to [min, max]; a successful login resets the address. The wait runs in the
// connection's own goroutine, so other clients are not held up. Lock order: mu is a leaf.
type LoginDelays struct {
	settings func() LoginDelaySettings
	sleep    func(time.Duration)
	delayed  *atomic.Uint64 // answers delayed (system.events DelayedLogins)

	mu       sync.Mutex
	failures map[string]int
}

// NewLoginDelays delays with sleep by settings() and counts each delayed answer in delayed.
func NewLoginDelays(settings func() LoginDelaySettings, sleep func(time.Duration), delayed *atomic.Uint64) *LoginDelays {
	return &LoginDelays{settings: settings, sleep: sleep, delayed: delayed, failures: map[string]int{}}
}

// delay is how long the next login answer to addr waits.
func (d *LoginDelays) delay(addr string) time.Duration {
	s := d.settings()
	if s.Threshold <= 0 {
		return 0
	}
	d.mu.Lock()
	n := d.failures[addr]
	d.mu.Unlock()
	if n < s.Threshold {
		return 0
	}
	return min(max(time.Duration(n-s.Threshold+1)*time.Second, s.Min), s.Max)
}

// wait delays the login answer to addr when the address is over the threshold.
func (d *LoginDelays) wait(addr string) {
	if w := d.delay(addr); w > 0 {
		d.delayed.Add(1)
		d.sleep(w)
	}
}

// record notes a login's outcome for addr.
func (d *LoginDelays) record(addr string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if ok {
		delete(d.failures, addr)
		return
	}
	if _, tracked := d.failures[addr]; !tracked && len(d.failures) >= maxTrackedAddresses {
		for a := range d.failures {
			delete(d.failures, a)
			break
		}
	}
	d.failures[addr]++
}
