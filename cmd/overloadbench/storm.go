package main

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The storm scenario keeps the overload simulated at 7 in both modes; only the drop thresholds
// change, so the modes differ in nothing but whether the gate drops.
const (
	stormWorkers           = 4
	stormSimulatedOverload = 7
	stormMinDropRatio      = 1
	stormMaxDropRatio      = 2
)

type stormResult struct {
	Workers           int       `json:"workers"`
	MaxAttempts       int       `json:"max_attempts_per_phase"`
	Rounds            int       `json:"rounds"`
	PhaseSeconds      float64   `json:"phase_seconds"`
	Dropped           stormMode `json:"dropped"`
	Accepted          stormMode `json:"accepted"`
	CPURatio          measure   `json:"cpu_ratio_dropped_to_accepted"`
	SimulatedOverload float64   `json:"simulated_overload"`
	DropThresholds    string    `json:"drop_thresholds"`
}

type stormMode struct {
	Attempts          int64   `json:"attempts"`
	AttemptsPerSecond measure `json:"attempts_per_s"`
	CPUMicros         measure `json:"server_cpu_us_per_attempt"`
	// Unexpected counts attempts that did not end as the mode intends (accepted while dropping,
	// dropped while accepting, or any other error).
	Unexpected    int64   `json:"unexpected"`
	Admin         summary `json:"admin_select1"`
	AdminFailures int     `json:"admin_failures"`
}

// stormPhaseMode is one side of the storm: the SET GLOBAL that switches it on and the outcome
// every attempt should have.
type stormPhaseMode struct {
	name     string
	settings string
	drops    bool

	attempts, unexpected int64
	elapsed, cpu         time.Duration
	admin                *latencyRecorder
	adminFailures        int
}

func (b *bench) storm(ctx context.Context) (*stormResult, error) {
	var res *stormResult
	err := b.withServer(ctx, serverSpec{}, func(s *benchServer, admin *adminSession) error {
		var err error
		res, err = b.runStorm(ctx, s, admin)
		return err
	})
	return res, err
}

func (b *bench) runStorm(ctx context.Context, s *benchServer, admin *adminSession) (*stormResult, error) {
	if err := admin.exec(ctx,
		fmt.Sprintf("SET GLOBAL simulated_os_cpu_overload = %v", stormSimulatedOverload),
		fmt.Sprintf("SET GLOBAL min_os_cpu_wait_time_ratio_to_drop_connection = %v", stormMinDropRatio)); err != nil {
		return nil, err
	}
	connector, err := mysql.NewConnector(clientConfig(s.addr))
	if err != nil {
		return nil, fmt.Errorf("connector: %w", err)
	}
	modes := [2]*stormPhaseMode{
		{name: "dropped", drops: true, admin: newLatencyRecorder(adminLatencyCapacity, 1),
			settings: fmt.Sprintf("SET GLOBAL max_os_cpu_wait_time_ratio_to_drop_connection = %v", stormMaxDropRatio)},
		{name: "accepted", admin: newLatencyRecorder(adminLatencyCapacity, 2),
			settings: "SET GLOBAL max_os_cpu_wait_time_ratio_to_drop_connection = 0"},
	}
	rounds := b.opts.roundsOr(3)
	for r := range rounds {
		for _, i := range alternating(r) {
			if err := b.stormPhase(ctx, s, admin, connector, modes[i], roundLabel("storm", modes[i].name, r, rounds)); err != nil {
				return nil, err
			}
		}
	}
	res := &stormResult{
		Workers:           stormWorkers,
		MaxAttempts:       b.opts.stormAttempts,
		Rounds:            rounds,
		PhaseSeconds:      b.opts.phase.Seconds(),
		Dropped:           modes[0].result(),
		Accepted:          modes[1].result(),
		SimulatedOverload: stormSimulatedOverload,
		DropThresholds:    fmt.Sprintf("min %v / max %v", stormMinDropRatio, stormMaxDropRatio),
	}
	res.CPURatio = ratio(float64(res.Dropped.CPUMicros), float64(res.Accepted.CPUMicros))
	return res, nil
}

// stormPhase switches the server to the mode, checks with one attempt that it took effect,
// then attempts connections on stormWorkers goroutines until the phase's time or attempt budget
// runs out, measuring the server's CPU time over the phase.
func (b *bench) stormPhase(ctx context.Context, s *benchServer, admin *adminSession, connector driver.Connector, m *stormPhaseMode, label string) error {
	if err := admin.exec(ctx, m.settings); err != nil {
		return err
	}
	if err := m.check(attemptConnection(ctx, connector)); err != nil {
		return fmt.Errorf("%s mode not in effect after %q: %w", m.name, m.settings, err)
	}
	var counts outcomes
	b.progress.phase(label, &counts)
	probe, err := admin.startProbe(ctx, m.admin)
	if err != nil {
		return err
	}
	cpuBefore, err := s.cpu()
	if err != nil {
		probe.finish()
		return err
	}
	var budget atomic.Int64
	budget.Store(int64(b.opts.stormAttempts))
	deadline := time.Now().Add(b.opts.phase)
	elapsed := runWorkers(stormWorkers, func(int) {
		for time.Now().Before(deadline) && budget.Add(-1) >= 0 && ctx.Err() == nil {
			counts.record(attemptConnection(ctx, connector))
		}
	})
	cpuAfter, err := s.cpu()
	m.adminFailures += probe.finish()
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.attempts += counts.attempts()
	if m.drops {
		m.unexpected += counts.attempts() - counts.dropped.Load()
	} else {
		m.unexpected += counts.attempts() - counts.ok.Load()
	}
	m.elapsed += elapsed
	m.cpu += cpuAfter - cpuBefore
	return nil
}

// check says whether one attempt ended as the mode intends.
func (m *stormPhaseMode) check(err error) error {
	switch {
	case m.drops && mysqlErrorNumber(err) == errTooManyConnection:
		return nil
	case !m.drops && err == nil:
		return nil
	case err == nil:
		return fmt.Errorf("connection accepted, want error %d", errTooManyConnection)
	default:
		return err
	}
}

func (m *stormPhaseMode) result() stormMode {
	return stormMode{
		Attempts:          m.attempts,
		AttemptsPerSecond: ratio(float64(m.attempts), m.elapsed.Seconds()),
		CPUMicros:         ratio(float64(m.cpu.Microseconds()), float64(m.attempts)),
		Unexpected:        m.unexpected,
		Admin:             summarize(merged(m.admin)),
		AdminFailures:     m.adminFailures,
	}
}

// attemptConnection opens one connection, pings and closes it; a dropped connection returns
// the server's error 1040 from the handshake.
func attemptConnection(ctx context.Context, connector driver.Connector) error {
	conn, err := connector.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.(driver.Pinger).Ping(ctx)
}
