package server

import (
	"sync"
	"time"
)

// maxTrackedAddresses bounds the failed-login table; when it is full, a new address replaces
// an arbitrary tracked one.
const maxTrackedAddresses = 10_000

// loginDelaySettings are connection_control's settings.
type loginDelaySettings struct {
	threshold int           // consecutive failures before answers are delayed; 0 = never
	min, max  time.Duration // bounds of the delay
}

// loginDelays is MySQL's connection_control: after threshold consecutive failed logins from an
// address, every further login answer to that address waits (failures over the threshold)
// seconds, bounded to [min, max]; a successful login resets the address. The wait runs in the
// connection's own goroutine, so other clients are not held up. Lock order: mu is a leaf.
type loginDelays struct {
	settings func() loginDelaySettings
	sleep    func(time.Duration)
	counters *counters

	mu       sync.Mutex
	failures map[string]int
}

func newLoginDelays(settings func() loginDelaySettings, sleep func(time.Duration), c *counters) *loginDelays {
	return &loginDelays{settings: settings, sleep: sleep, counters: c, failures: map[string]int{}}
}

// delay is how long the next login answer to addr waits.
func (d *loginDelays) delay(addr string) time.Duration {
	s := d.settings()
	if s.threshold <= 0 {
		return 0
	}
	d.mu.Lock()
	n := d.failures[addr]
	d.mu.Unlock()
	if n < s.threshold {
		return 0
	}
	return min(max(time.Duration(n-s.threshold+1)*time.Second, s.min), s.max)
}

// wait delays the login answer to addr when the address is over the threshold.
func (d *loginDelays) wait(addr string) {
	if w := d.delay(addr); w > 0 {
		d.counters.delayedLogins.Add(1)
		d.sleep(w)
	}
}

// record notes a login's outcome for addr.
func (d *loginDelays) record(addr string, ok bool) {
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
