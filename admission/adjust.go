package admission

import (
	"context"
	"fmt"
	"runtime/metrics"
	"time"
)

// Load is the Go scheduler's state at one instant.
type Load struct {
	Runnable int // goroutines ready to run but not running
	Running  int // goroutines running on a processor
	Procs    int // processors (GOMAXPROCS); 0 = unknown
	// CPU is the process's cumulative CPU time (user and system); 0 = unknown.
	CPU time.Duration
}

// Scheduler reads the Go scheduler's Load.
type Scheduler interface {
	Load() (Load, error)
}

// runQueueReader is a Scheduler that can also read the Load without the CPU time (cheaper):
// Run reads the CPU time then only every CPUReadEvery ticks.
type runQueueReader interface {
	RunQueue() (Load, error)
}

// Adjust moves the slot count by at most one after a look at the scheduler (see the package
// comment): one less on a backlog, one more when saturated without one.
func (c *Controller) Adjust(l Load) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.adjust(l)
}

// adjust is Adjust with mu held.
func (c *Controller) adjust(l Load) {
	procs := max(l.Procs, 1)
	// The goroutine that samples displaced at most one other: that one is not a backlog.
	backlog := l.Runnable - 1
	switch {
	case backlog >= procs:
		if c.slots > 1 && c.running <= c.slots {
			c.slots--
		}
	case backlog <= 0 && c.running >= c.slots:
		if c.slots < c.limits.ceiling() {
			c.slots++
			c.grant()
		}
	}
}

// Run calls Tick every tick while statements run or wait, and parks when a tick finds the
// server idle (the next statement's arrival wakes it), until ctx ends. Between ticks arrivals
// cost nothing: only a parked Run is woken. A failing Scheduler stops the adaptation (the count
// stays where it is) but not the stall limit; the error is returned once through report.
func (c *Controller) Run(ctx context.Context, s Scheduler, tick time.Duration, report func(error)) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	failed := false
	for {
		if c.park(ctx) {
			return
		}
		ticker.Reset(tick)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if !failed {
				if err := c.tick(s); err != nil {
					report(err)
					failed = true
				}
			}
			if failed {
				c.Tick(Load{})
			}
		}
	}
}

// tick is one of Run's ticks: a look at s (with the CPU time when wantsCPU says so) and Tick.
// On s's error it does nothing.
func (c *Controller) tick(s Scheduler) error {
	var l Load
	var err error
	if q, ok := s.(runQueueReader); ok && !c.wantsCPU() {
		l, err = q.RunQueue()
	} else {
		l, err = s.Load()
	}
	if err != nil {
		return err
	}
	c.Tick(l)
	return nil
}

// park waits for work while no statement runs or waits; it reports whether ctx ended. parked
// is set before the state is looked at, so a statement that arrives meanwhile either is seen
// here or sees parked and signals.
func (c *Controller) park(ctx context.Context) (done bool) {
	c.parked.Store(true)
	c.mu.Lock()
	busy := c.running > 0 || c.stalled > 0 || c.queued > 0
	if !busy {
		// The next Tick starts the CPU accounting afresh: nothing ran while parked.
		c.lastTick, c.lastCPU, c.sinceRead = 0, 0, 0
		c.account(0, 0)
	}
	c.mu.Unlock()
	if busy {
		c.parked.Store(false)
		return false
	}
	select {
	case <-ctx.Done():
		return true
	case <-c.wake:
		return false
	}
}

// Names of the runtime metrics GoScheduler reads.
const (
	runnableMetric = "/sched/goroutines/runnable:goroutines"
	procsMetric    = "/sched/gomaxprocs:threads"
	runningMetric  = "/sched/goroutines/running:goroutines"
)

// GoScheduler reads the Load of this process's Go scheduler from runtime/metrics (a lock of
// the scheduler and a walk over the processors, well under a microsecond), and the process's
// CPU time from getrusage. It is not safe for concurrent use: one Run owns it.
type GoScheduler struct {
	samples []metrics.Sample
}

// NewGoScheduler returns a GoScheduler.
func NewGoScheduler() *GoScheduler {
	return &GoScheduler{samples: []metrics.Sample{{Name: runnableMetric}, {Name: procsMetric}, {Name: runningMetric}}}
}

// Load implements Scheduler.
func (g *GoScheduler) Load() (Load, error) {
	l, err := g.RunQueue()
	if err != nil {
		return Load{}, err
	}
	l.CPU = processCPU()
	return l, nil
}

// RunQueue is Load without the process's CPU time (CPU is 0): the runnable and running
// goroutines and the processors only, which runtime/metrics reads without a system call.
func (g *GoScheduler) RunQueue() (Load, error) {
	metrics.Read(g.samples)
	for _, s := range g.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return Load{}, fmt.Errorf("runtime/metrics %s is not supported by this Go runtime", s.Name)
		}
	}
	return Load{Runnable: int(g.samples[0].Value.Uint64()), Procs: int(g.samples[1].Value.Uint64()),
		Running: int(g.samples[2].Value.Uint64())}, nil
}
