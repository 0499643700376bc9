package main

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// closedLoop is one mode of a side-by-side comparison: sessions that carry the mode's settings,
// each running one statement in a closed loop (the next one starts when the last one ends), and
// what they observed over all of the mode's phases.
type closedLoop struct {
	name      string
	statement string
	// backoff is the pause after an error, as a connection pool would retry.
	backoff time.Duration
	// think is the pause after each successful statement (0: the next starts at once).
	think time.Duration
	conns []*sql.Conn
	// latency holds the successful statements, one recorder per session; steady those of them
	// that started settleAfter or later into their phase.
	latency, steady []*latencyRecorder
	// admin holds the admin probe's latencies during the phases; nil: no probe (and no
	// overload watch).
	admin *latencyRecorder
	// overload sums the overload figures sampled during the phases.
	overload overloadParts

	// rejected counts errors 745, refused errors 202, failed everything else.
	ok, rejected, refused, failed int64
	elapsed                       time.Duration
	// serverCPU is the CPU time the server used during the phases.
	serverCPU     time.Duration
	adminFailures int
	// phaseRates is ok/s of each phase, to show how much a mode varied.
	phaseRates []measure
}

// newClosedLoop opens the mode's sessions on db and runs setup on each.
func newClosedLoop(ctx context.Context, db *sql.DB, name, statement string, sessionCount, latencyCapacity int, setup ...string) (*closedLoop, error) {
	conns, err := sessions(ctx, db, sessionCount, setup...)
	if err != nil {
		return nil, fmt.Errorf("%s sessions: %w", name, err)
	}
	return &closedLoop{
		name:      name,
		statement: statement,
		backoff:   50 * time.Millisecond,
		conns:     conns,
		latency:   newRecorders(sessionCount, latencyCapacity),
		steady:    newRecorders(sessionCount, latencyCapacity),
	}, nil
}

func (m *closedLoop) close() { closeAll(m.conns) }

// phase runs every session for d (statements in flight at the deadline finish and count) with
// the admin probe alongside when m.admin is set, and adds the outcome to the mode's totals.
func (m *closedLoop) phase(ctx context.Context, b *bench, label string, d time.Duration, s *benchServer, admin *adminSession) error {
	cpuBefore, err := s.cpu()
	if err != nil {
		return err
	}
	var counts outcomes
	b.progress.phase(label, &counts)
	var probe *adminProbe
	var watch *overloadWatch
	if m.admin != nil {
		if probe, err = admin.startProbe(ctx, m.admin); err != nil {
			return err
		}
		watch = admin.watchOverload(ctx)
	}
	begin := time.Now()
	deadline := begin.Add(d)
	elapsed := runWorkers(len(m.conns), func(i int) { m.work(ctx, i, begin, deadline, &counts) })
	if probe != nil {
		m.adminFailures += probe.finish()
		sums, err := watch.finish()
		if err != nil {
			return fmt.Errorf("overload watch: %w", err)
		}
		m.overload.add(sums)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cpuAfter, err := s.cpu()
	if err != nil {
		return err
	}
	m.serverCPU += cpuAfter - cpuBefore
	ok := counts.ok.Load()
	m.ok += ok
	m.rejected += counts.rejected.Load()
	m.refused += counts.refused.Load()
	m.failed += counts.failed.Load() + counts.dropped.Load()
	m.elapsed += elapsed
	m.phaseRates = append(m.phaseRates, ratio(float64(ok), elapsed.Seconds()))
	return nil
}

// settleAfter is the start of a phase whose statements the steady-state latency leaves out:
// every phase begins with all clients sending at once, a burst that a closed loop never sends
// again, and that a queue absorbs before it can tell a standing queue (CoDel's interval, 100 ms)
// and drain it.
const settleAfter = 500 * time.Millisecond

func (m *closedLoop) work(ctx context.Context, i int, begin, deadline time.Time, counts *outcomes) {
	conn, rec, steady := m.conns[i], m.latency[i], m.steady[i]
	for time.Now().Before(deadline) && ctx.Err() == nil {
		start := time.Now()
		_, err := queryInt(ctx, conn, m.statement)
		counts.record(err)
		if err == nil {
			rec.add(time.Since(start))
			if start.Sub(begin) >= settleAfter {
				steady.add(time.Since(start))
			}
			if m.think > 0 {
				pause(ctx, min(m.think, time.Until(deadline)))
			}
			continue
		}
		pause(ctx, min(m.backoff, time.Until(deadline)))
	}
}

// reset forgets everything observed so far (after a warm-up).
func (m *closedLoop) reset() {
	for _, r := range append(m.latency, m.steady...) {
		r.samples, r.seen = r.samples[:0], 0
	}
	m.ok, m.rejected, m.refused, m.failed, m.elapsed, m.serverCPU, m.adminFailures, m.phaseRates = 0, 0, 0, 0, 0, 0, 0, nil
	m.overload = overloadParts{}
}

// serverBusy is the server's CPU time per second of wall time during the mode's phases (1 = one
// core busy).
func (m *closedLoop) serverBusy() measure { return ratio(m.serverCPU.Seconds(), m.elapsed.Seconds()) }

// goodput is the mode's successful statements per second over all its phases.
func (m *closedLoop) goodput() measure { return ratio(float64(m.ok), m.elapsed.Seconds()) }

// runWorkers runs work(i) for every i in [0, n) concurrently and returns the wall time until
// the last one returned.
func runWorkers(n int, work func(i int)) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { work(i) })
	}
	wg.Wait()
	return time.Since(start)
}

// pause waits for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// alternating returns the order of two modes in round r: A B, then B A, and so on, so that a
// drift over time (a neighbour starting, caches warming) weighs on both modes alike.
func alternating(r int) [2]int {
	if r%2 == 0 {
		return [2]int{0, 1}
	}
	return [2]int{1, 0}
}

// roundLabel names a phase on the progress line.
func roundLabel(scenario, mode string, round, rounds int) string {
	return fmt.Sprintf("%s [%s] round %d/%d", scenario, mode, round+1, rounds)
}
