package admission

import (
	"math"
	"sync/atomic"
	"time"
)

// DefaultWorkload is the workload of statements whose session names none, when the
// configuration does not define it itself.
const DefaultWorkload = "default"

// FairShareHalfLife is how fast a workload's CPU use is forgotten for the fair share: the use
// of a second ago counts half. Queues are ordered on the use of about the last second or two,
// like CockroachDB's tenant fairness, so a workload that was busy a minute ago is not held back
// now.
const FairShareHalfLife = time.Second

// Workload is one class of statements with a queue of its own ([[workloads]] in the config).
type Workload struct {
	Name string
	// Priority: a lower value is served first, whatever the CPU use (as in ClickHouse).
	Priority int
	// Weight is the workload's share of the CPU among the workloads of its priority; > 0.
	Weight float64
	// MaxConcurrent bounds the workload's statements that run at once, stalled ones
	// included (a hard bound, unlike the adaptive slot count); 0 = no bound of its own.
	MaxConcurrent int
	// MaxQueued bounds the workload's statements that wait at once; 0 = no bound of its own
	// (the server's max_queued_statements still holds).
	MaxQueued int
}

// WorkloadState is what the Controller shows of one workload.
type WorkloadState struct {
	Workload
	// Removed: a reload took the workload out of the configuration; it stays listed while
	// its statements finish. New statements cannot name it.
	Removed bool
	// Running holds the workload's statements that run (Stalled of them past the stall
	// limit); Queued those that wait.
	Running, Stalled, Queued int
	// Admitted counts the statements that got a slot (or ran stalled after waiting), Refused
	// those that got none (error 202), Overloaded those the CPU overload check rejected
	// (error 745, counted through NoteOverloaded).
	Admitted, Refused, Overloaded uint64
	// QueueWait is the cumulative wait of its statements for a slot, waits in progress
	// included.
	QueueWait time.Duration
	// CPU is the cumulative CPU time of its statements: the process's CPU time while they ran,
	// shared equally among the statements running at each tick.
	CPU time.Duration
	// RecentCPU is the CPU use the fair share compares (decayed by FairShareHalfLife), per
	// unit of weight.
	RecentCPU time.Duration
}

// workload is a Workload's live state. Guarded by the Controller's mutex.
type workload struct {
	spec    Workload
	removed bool
	queue   queue
	running int // tickets, stalled ones included
	stalled int
	// borrowed counts its holders that took a worse priority's slot (grant); not stalled.
	borrowed int
	// used is the decayed CPU time (ns) the fair share compares.
	used float64
	// ran is its share of the Controller's ran: each tick's length times the share of the
	// running statements that were its own.
	ran float64
	// waited and enqueued account the queue wait as the Controller's own do.
	waited                        int64
	enqueued                      int64
	cpu                           float64 // cumulative CPU time, ns
	admitted, refused, overloaded uint64
	// outranked: another workload with running statements ranks before this one (see rank);
	// its running statements read it without the Controller's mutex.
	outranked atomic.Bool
}

// capped says whether the workload runs as many statements as its own bound allows.
func (w *workload) capped() bool {
	return w.spec.MaxConcurrent > 0 && w.running >= w.spec.MaxConcurrent
}

// share is the workload's recent CPU use per unit of weight.
func (w *workload) share() float64 { return w.used / w.spec.Weight }

// normalized fills in defaults: weight 1.
func normalized(ws []Workload) []Workload {
	out := make([]Workload, 0, len(ws)+1)
	hasDefault := false
	for _, w := range ws {
		if w.Weight <= 0 || math.IsNaN(w.Weight) || math.IsInf(w.Weight, 0) {
			w.Weight = 1
		}
		hasDefault = hasDefault || w.Name == DefaultWorkload
		out = append(out, w)
	}
	if !hasDefault {
		out = append(out, Workload{Name: DefaultWorkload, Weight: 1})
	}
	return out
}

// setWorkloads replaces the configured workloads: new ones are added, changed ones take their
// new bounds at once, and removed ones stay until their statements have finished (their
// waiters still wait and are served). Called with mu held.
func (c *Controller) setWorkloads(specs []Workload) {
	specs = normalized(specs)
	next := make(map[string]*workload, len(specs))
	order := make([]*workload, 0, len(specs))
	for _, s := range specs {
		w := c.workloads[s.Name]
		if w == nil {
			w = &workload{}
		}
		w.spec, w.removed = s, false
		next[s.Name] = w
		order = append(order, w)
	}
	for _, w := range c.order {
		if next[w.spec.Name] == nil && (w.running > 0 || w.queue.len > 0) {
			w.removed = true
			next[w.spec.Name] = w
			order = append(order, w)
		}
	}
	c.workloads, c.order = next, order
	c.rank() // priorities and weights may have changed
}

// forget drops a removed workload once it has no statements left. Called with mu held.
func (c *Controller) forget(w *workload) {
	if !w.removed || w.running > 0 || w.queue.len > 0 {
		return
	}
	delete(c.workloads, w.spec.Name)
	for i, o := range c.order {
		if o == w {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}

// next picks the workload whose head waiter gets the next slot: among the workloads with
// waiters that are under their own bound, the lowest priority value; among those, the lowest
// recent CPU use per unit of weight (weighted fair share); then the one whose head has waited
// longest. Within a workload the order is arrival. nil when no waiter can take a slot. Called
// with mu held.
func (c *Controller) next() *workload {
	var best *workload
	for _, w := range c.order {
		if w.queue.len == 0 || w.capped() {
			continue
		}
		if best == nil || better(w, best) {
			best = w
		}
	}
	return best
}

// better says whether a's head waiter comes before b's: a ranks before b, or neither ranks
// before the other and a's head has waited longer.
func better(a, b *workload) bool {
	if ranksBefore(a, b) || ranksBefore(b, a) {
		return ranksBefore(a, b)
	}
	return a.queue.head.at < b.queue.head.at
}

// ranksBefore is the order of workloads for the CPU: a lower priority value first, whatever
// the CPU use; among equal priorities, the one that used less CPU per unit of weight recently
// (under its weighted fair share beside the other).
func ranksBefore(a, b *workload) bool {
	if a.spec.Priority != b.spec.Priority {
		return a.spec.Priority < b.spec.Priority
	}
	return a.share() < b.share()
}

// rank marks each workload that has running statements (stalled ones included) as outranked
// when another workload with running statements ranks before it: the first among them in
// ranksBefore's order outranks every one it ranks before, and nothing outranks the first (nor
// the ones tied with it). The running statements of an outranked workload give their processor
// up to the others when goroutines wait for one (Ticket.Outranked), so the order the queue
// keeps for slots also holds between statements that already have one. Called with mu held,
// whenever the set of workloads with running statements or their CPU use changes; O(workloads).
func (c *Controller) rank() {
	var first *workload
	for _, w := range c.order {
		if w.running > 0 && (first == nil || ranksBefore(w, first)) {
			first = w
		}
	}
	for _, w := range c.order {
		v := first != nil && w.running > 0 && ranksBefore(first, w)
		if w.outranked.Load() != v {
			w.outranked.Store(v)
		}
	}
}

// account decays every workload's recent CPU use by dt and notes each running workload's share
// of the tick (dt times the share of the running statements that are its own: the Go scheduler
// gives runnable goroutines equal turns). cpu >= 0 is the process's CPU time read at this tick,
// used since the last read: it is shared among the workloads in proportion to the shares they
// noted since then, which is each tick's CPU shared among that tick's running statements when
// the CPU was used evenly over the ticks in between (when no time passed, it goes to the
// statements running now). cpu < 0: not read at this tick. Called with mu held.
func (c *Controller) account(cpu, dt float64) {
	if dt > 0 {
		decay := math.Exp2(-dt / float64(FairShareHalfLife))
		for _, w := range c.order {
			w.used *= decay
		}
	}
	n := c.running + c.stalled
	if n > 0 && dt > 0 {
		c.ran += dt
		for _, w := range c.order {
			if w.running > 0 {
				w.ran += dt * float64(w.running) / float64(n)
			}
		}
	}
	if cpu < 0 {
		return
	}
	for _, w := range c.order {
		var share float64
		switch {
		case cpu <= 0:
		case c.ran > 0:
			share = cpu * w.ran / c.ran
		case n > 0: // no time passed since the last read: the statements running now
			share = cpu * float64(w.running) / float64(n)
		}
		w.used += share
		w.cpu += share
	}
	c.ran = 0
	for _, w := range c.order {
		w.ran = 0
	}
}

// Workloads returns the state of every workload, in the configuration's order (removed ones
// that still have statements last).
func (c *Controller) Workloads() []WorkloadState {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.sinceEpoch()
	out := make([]WorkloadState, 0, len(c.order))
	for _, w := range c.order {
		out = append(out, WorkloadState{
			Workload: w.spec, Removed: w.removed,
			Running: w.running, Stalled: w.stalled, Queued: w.queue.len,
			Admitted: w.admitted, Refused: w.refused, Overloaded: w.overloaded,
			QueueWait: time.Duration(w.waited + int64(w.queue.len)*now - w.enqueued),
			CPU:       time.Duration(w.cpu),
			RecentCPU: time.Duration(w.share()),
		})
	}
	return out
}

// Known reports whether name is a workload that new statements may name (configured, not
// removed).
func (c *Controller) Known(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.workloads[name]
	return w != nil && !w.removed
}

// NoteOverloaded counts a statement of the workload that the CPU overload check rejected
// (error 745) before it asked for a slot.
func (c *Controller) NoteOverloaded(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.workloads[name]; w != nil {
		w.overloaded++
	}
}
