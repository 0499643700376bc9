package admission

// standing is the Controller's CoDel view of its queue (see the package comment, "Standing
// queue"): whether the queue has stood, and what the current interval has seen so far. Guarded
// by the Controller's mutex.
type standing struct {
	on bool
	// end is when the current interval ends, ns since the epoch; 0: no interval started.
	end int64
	// minWait is the shortest wait of a statement that took a slot in the interval (0 for one
	// that found a free slot); -1: none took one yet.
	minWait int64
	// refused says whether a statement was refused for the standing queue in the interval.
	refused bool
}

// observeWait records that a statement took a slot after waiting wait ns. Called with mu held.
func (c *Controller) observeWait(wait int64) {
	if c.limits.StandingInterval <= 0 {
		return
	}
	c.advanceStanding(c.sinceEpoch())
	if s := &c.standing; s.minWait < 0 || wait < s.minWait {
		s.minWait = wait
	}
}

// standingQueue reports whether the queue stands now. Called with mu held.
func (c *Controller) standingQueue() bool {
	if c.limits.StandingInterval <= 0 {
		return false
	}
	c.advanceStanding(c.sinceEpoch())
	return c.standing.on
}

// advanceStanding closes the intervals that ended by now. An interval's verdict: the queue
// stands when the shortest wait it saw — of the statements that took a slot, and of the one
// still waiting at the head — exceeded the target; it keeps standing while the bound still
// refuses statements (the demand that made it stand is still there). An interval in which
// nothing took a slot and nobody waited says the queue is gone. Called with mu held.
func (c *Controller) advanceStanding(now int64) {
	s := &c.standing
	interval := int64(c.limits.StandingInterval)
	if s.end == 0 {
		*s = standing{end: now + interval, minWait: -1}
		return
	}
	if now < s.end {
		return
	}
	c.closeInterval(s.end)
	if now >= s.end+interval {
		// Whole intervals passed without an event: judge them by the head of the queue alone.
		s.minWait = -1
		c.closeInterval(now)
	}
	s.end = now + interval
	if s.on {
		c.shedExcess()
	}
}

// shedExcess refuses the oldest waiters while the standing queue holds more than one per slot:
// those that queued before it stood (a burst that did not drain), or before the slot count
// fell. Like CoDel it drops at the head: the oldest have waited longest for a statement that
// is least likely still wanted, and the newer ones then wait least. Called with mu held.
func (c *Controller) shedExcess() {
	for c.queued > c.slots {
		wt := c.oldest()
		c.dequeue(wt)
		c.stats.Standing++
		wt.w.refused++
		c.standing.refused = true
		wt.state = shed
		close(wt.ready)
		c.forget(wt.w)
	}
}

// closeInterval gives the verdict of the interval that ended at end and starts a new one.
func (c *Controller) closeInterval(end int64) {
	s := &c.standing
	shortest := s.minWait
	if wt := c.oldest(); wt != nil {
		if head := end - wt.at; shortest < 0 || head < shortest {
			shortest = head
		}
	}
	s.on = shortest > int64(c.limits.StandingTarget) || s.on && s.refused
	s.minWait, s.refused = -1, false
}

// oldest is the waiter that has waited longest, in any workload; nil when nobody waits. Called
// with mu held.
func (c *Controller) oldest() *waiter {
	var o *waiter
	for _, w := range c.order {
		if h := w.queue.head; h != nil && (o == nil || h.at < o.at) {
			o = h
		}
	}
	return o
}
