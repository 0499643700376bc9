package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// adminSession is the operator's view of a server: a small pool on the admin listener, which is
// never subject to dropping, for SET GLOBAL and for reading the system tables.
type adminSession struct {
	db *sql.DB
}

func openAdmin(addr string) (*adminSession, error) {
	db, err := openPool(addr, 4)
	if err != nil {
		return nil, err
	}
	return &adminSession{db: db}, nil
}

func (a *adminSession) close() { a.db.Close() }

// exec runs statements in order, stopping at the first error.
func (a *adminSession) exec(ctx context.Context, statements ...string) error {
	for _, stmt := range statements {
		if _, err := a.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// metric reads one row of system.asynchronous_metrics; a metric without a row yet (before the
// first window has passed) is unknown.
func (a *adminSession) metric(ctx context.Context, name string) (measure, error) {
	query := fmt.Sprintf("SELECT value FROM system.asynchronous_metrics WHERE metric = '%s'", name)
	var v float64
	switch err := a.db.QueryRowContext(ctx, query).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		return measure(math.NaN()), nil
	case err != nil:
		return 0, fmt.Errorf("%s: %w", query, err)
	}
	return measure(v), nil
}

// cpuWarningRaised says whether system.warnings holds the CPU warning.
func (a *adminSession) cpuWarningRaised(ctx context.Context) (bool, error) {
	const query = "SELECT COUNT(*) FROM system.warnings WHERE message LIKE 'High CPU usage%'"
	var n int64
	if err := a.db.QueryRowContext(ctx, query).Scan(&n); err != nil {
		return false, fmt.Errorf("%s: %w", query, err)
	}
	return n > 0, nil
}

const adminProbeEvery = 100 * time.Millisecond

// adminProbe measures how quickly an operator gets an answer while a phase runs: SELECT 1 on
// the admin listener every adminProbeEvery, on a session of its own. A probe slower than the
// interval delays the next one, so a stall shows as one long sample.
type adminProbe struct {
	conn     *sql.Conn
	latency  *latencyRecorder
	failures int
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// startProbe starts probing. Stopping never interrupts a probe in flight (that would break the
// session); only ctx, the whole run's, does.
func (a *adminSession) startProbe(ctx context.Context, rec *latencyRecorder) (*adminProbe, error) {
	conn, err := a.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("admin probe session: %w", err)
	}
	stopped, stop := context.WithCancel(ctx)
	p := &adminProbe{conn: conn, latency: rec, stop: stop}
	p.done.Go(func() { p.run(ctx, stopped) })
	return p, nil
}

func (p *adminProbe) run(ctx, stopped context.Context) {
	every(stopped, adminProbeEvery, func() bool {
		start := time.Now()
		if _, err := queryInt(ctx, p.conn, "SELECT 1"); err != nil {
			p.failures++
			return true
		}
		p.latency.add(time.Since(start))
		return true
	})
}

// every calls tick once per interval until stopped is done or tick returns false.
func every(stopped context.Context, interval time.Duration, tick func() bool) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-stopped.Done():
			return
		case <-ticker.C:
		}
		if !tick() {
			return
		}
	}
}

// finish stops the probe, closes its session and returns how many probes failed.
func (p *adminProbe) finish() int {
	p.stop()
	p.done.Wait()
	p.conn.Close()
	return p.failures
}

// overloadParts is the mean of the server's own overload figures over a phase: the ratio the
// decisions use and its two parts, so a reader sees whether the server's own queue (Go) or a
// neighbour on its core (kernel) drove the shedding.
type overloadParts struct {
	Overload float64 `json:"mean_overload"`
	Kernel   float64 `json:"mean_kernel_run_queue_part"`
	Go       float64 `json:"mean_go_run_queue_part"`
	Queue    float64 `json:"mean_admission_queue_part"`
	Samples  int     `json:"samples"`
}

const overloadWatchEvery = 250 * time.Millisecond

// overloadWatch samples the overload metrics on the admin listener while a phase runs.
type overloadWatch struct {
	sums    overloadParts
	stop    context.CancelFunc
	done    sync.WaitGroup
	failure error
}

func (a *adminSession) watchOverload(ctx context.Context) *overloadWatch {
	stopped, stop := context.WithCancel(ctx)
	w := &overloadWatch{stop: stop}
	w.done.Go(func() { w.run(ctx, stopped, a) })
	return w
}

func (w *overloadWatch) run(ctx, stopped context.Context, a *adminSession) {
	every(stopped, overloadWatchEvery, func() bool {
		parts, err := a.overloadParts(ctx)
		if err != nil {
			w.failure = err
			return false
		}
		parts.Samples = 1
		w.sums.add(parts)
		return true
	})
}

// finish stops the watch and returns the sums of its samples.
func (w *overloadWatch) finish() (overloadParts, error) {
	w.stop()
	w.done.Wait()
	return w.sums, w.failure
}

// overloadParts reads the current overload and its parts from system.asynchronous_metrics.
func (a *adminSession) overloadParts(ctx context.Context) (overloadParts, error) {
	const query = "SELECT metric, value FROM system.asynchronous_metrics " +
		"WHERE metric IN ('OSCPUOverload', 'KernelRunQueueOverload', 'GoRunQueueOverload', 'AdmissionQueueOverload')"
	rows, err := a.db.QueryContext(ctx, query)
	if err != nil {
		return overloadParts{}, fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	var p overloadParts
	for rows.Next() {
		var name string
		var v float64
		if err := rows.Scan(&name, &v); err != nil {
			return overloadParts{}, fmt.Errorf("%s: %w", query, err)
		}
		switch name {
		case "OSCPUOverload":
			p.Overload = v
		case "KernelRunQueueOverload":
			p.Kernel = v
		case "GoRunQueueOverload":
			p.Go = v
		case "AdmissionQueueOverload":
			p.Queue = v
		}
	}
	if err := rows.Err(); err != nil {
		return overloadParts{}, fmt.Errorf("%s: %w", query, err)
	}
	return p, nil
}

func (p *overloadParts) add(q overloadParts) {
	p.Overload += q.Overload
	p.Kernel += q.Kernel
	p.Go += q.Go
	p.Queue += q.Queue
	p.Samples += q.Samples
}

// mean turns sums of samples into their means.
func (p overloadParts) mean() overloadParts {
	if p.Samples == 0 {
		return p
	}
	n := float64(p.Samples)
	return overloadParts{Overload: p.Overload / n, Kernel: p.Kernel / n, Go: p.Go / n, Queue: p.Queue / n, Samples: p.Samples}
}
