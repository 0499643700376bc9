package admission

import "time"

// Tick is the Controller's periodic work, every tick while statements run or wait (Run):
//
//   - CPU accounting: the process's CPU time since the last tick that read it (l.CPU; 0 at a
//     tick that did not read it) is shared among the workloads by the time their statements
//     ran (account), for system.workloads and the fair share. When no tick is ever given the
//     CPU time, each running statement's share of the processors, at most one, stands for it.
//   - Stall limit: a statement that has held its slot for StallLimit stops counting against
//     the slot count, and the slot goes to the next waiter. While any statement runs stalled,
//     a waiter that has waited StallLimit starts too, stalled, if its workload's own bound
//     allows.
//   - Adaptation: the slot count moves by at most one (Adjust), when l is known (Procs > 0).
//   - Rank: which running workloads are outranked by another running one (Ticket.Outranked),
//     on the CPU use just accounted.
func (c *Controller) Tick(l Load) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.sinceEpoch()
	dt := now - c.lastTick
	if c.lastTick == 0 {
		dt = 0
	}
	cpu := -1.0 // not read at this tick
	switch {
	case l.CPU > 0:
		cpu = 0
		if c.lastCPU > 0 && l.CPU >= c.lastCPU {
			cpu = float64(l.CPU - c.lastCPU)
		}
		c.cpuKnown, c.lastCPU, c.sinceRead = true, l.CPU, 0
	case c.cpuKnown:
		c.sinceRead++
	case dt > 0:
		procs := max(l.Procs, 1)
		cpu = float64(dt) * float64(min(c.running+c.stalled, procs))
	default:
		cpu = 0
	}
	c.account(cpu, float64(dt))
	c.lastTick = now
	c.stall(now)
	if l.Procs > 0 {
		c.adjust(l)
	}
	c.rank() // the CPU use changed, and stalled waiters may have started
}

// CPUReadEvery is how often, in ticks, Run reads the process's CPU time (a system call) while
// statements run; Tick shares what was used in between by the time each workload ran.
const CPUReadEvery = 10

// wantsCPU says whether the next Tick should be given the process's CPU time: the first after
// Run woke, every CPUReadEvery-th, and any while no statement runs (what the last ones used
// is shared out before Run parks).
func (c *Controller) wantsCPU() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastCPU == 0 || c.sinceRead+1 >= CPUReadEvery || c.running+c.stalled == 0
}

// stall applies the stall limit at now. Called with mu held.
func (c *Controller) stall(now int64) {
	limit := int64(c.limits.StallLimit)
	if limit <= 0 {
		return
	}
	for t := c.holders.head; t != nil && now-t.granted >= limit; t = c.holders.head {
		c.holders.remove(t)
		c.running--
		t.stalled = true
		c.stalled++
		t.w.stalled++
		if t.borrowed { // it holds no slot now, borrowed or not
			t.borrowed = false
			t.w.borrowed--
		}
		c.stats.Stalled++
	}
	c.grant()
	if c.stalled == 0 {
		return
	}
	// Statements run past the stall limit, so the slot count no longer bounds how many share
	// the CPU: a waiter held longer than the limit would only be delayed behind them.
	for _, w := range c.order {
		for wt := w.queue.head; wt != nil && now-wt.at >= limit && !w.capped(); wt = w.queue.head {
			c.dequeue(wt)
			t := &Ticket{w: w, granted: now, stalled: true}
			c.stalled++
			w.running++
			w.stalled++
			w.admitted++
			c.stats.Stalled++
			wt.ticket, wt.state = t, granted
			close(wt.ready)
		}
	}
}

// StallLimit is the stall limit in force.
func (c *Controller) StallLimit() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limits.StallLimit
}
