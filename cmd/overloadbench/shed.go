package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The CPU-heavy statement: a five-way cross join of a ten-row table, 100 000 rows counted (the
// scenario reports what it costs alone). It is much cheaper than the information_schema cross
// join, so a phase of a few seconds sees many statements.
const (
	createHeavyTable = "CREATE TABLE main.n (i INT PRIMARY KEY)"
	fillHeavyTable   = "INSERT INTO main.n VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)"
	heavyStatement   = "SELECT COUNT(*) FROM main.n a, main.n b, main.n c, main.n d, main.n e"

	// Real overload needs the busy time of one window on one core to count: the default
	// threshold (1 s of CPU per 1 s window) can never be exceeded by a server on one core.
	pinnedBusyThreshold = "os_cpu_busy_time_threshold = 100000"

	shedMinRatio = 1
	shedMaxRatio = 3
	// CoDel's published constants (Nichols and Jacobson; Facebook's request queues use the same
	// two): a 100 ms interval and a 5 ms target, not fitted to this scenario.
	shedCodelIntervalMs  = 100
	shedCodelTargetMs    = 5
	shedLatencyCapacity  = 1 << 12
	adminLatencyCapacity = 1 << 12
	calibrationRuns      = 5
)

type shedResult struct {
	PinnedCPU    string  `json:"pinned_cpu"`
	Clients      int     `json:"clients"`
	Statement    string  `json:"statement"`
	SingleClient summary `json:"single_client_latency"`
	Rounds       int     `json:"rounds"`
	PhaseSeconds float64 `json:"phase_seconds"`
	// Modes[0] is the unprotected server (no admission control, no thresholds); the ratios
	// compare every mode with it.
	Modes []shedMode `json:"modes"`
}

type shedMode struct {
	Settings string  `json:"settings"`
	Goodput  measure `json:"goodput_per_s"`
	Latency  summary `json:"latency"`
	// Steady is the latency of the statements that started settleAfter or later into a phase.
	Steady        summary `json:"steady_latency"`
	Rejected      int64   `json:"rejected"`
	RejectedPerS  measure `json:"rejected_per_s"`
	RejectionRate measure `json:"rejection_rate"`
	// Refused are the errors 202 (no CPU slot: the standing queue's refusals).
	Refused       int64         `json:"refused"`
	RefusedPerS   measure       `json:"refused_per_s"`
	RefusedShare  measure       `json:"refused_share"`
	Failed        int64         `json:"failed"`
	Admin         summary       `json:"admin_select1"`
	AdminFailures int           `json:"admin_failures"`
	Overload      overloadParts `json:"overload"`
	// ServerBusy is the server's CPU seconds per second (1 = the whole pinned core).
	ServerBusy measure `json:"server_cpu_cores"`
	// P99Ratio and GoodputRatio compare with Modes[0].
	P99Ratio measure `json:"p99_ratio_to_unprotected"`
	// SteadyP99Ratio compares the steady-state p99s.
	SteadyP99Ratio measure `json:"steady_p99_ratio_to_unprotected"`
	GoodputRatio   measure `json:"goodput_ratio_to_unprotected"`
}

// shedSetting is one mode of the shed scenario: admission control on or off and its standing
// queue (server-wide, set before each of the mode's phases), and the sessions' thresholds.
type shedSetting struct {
	name      string
	admission string // admission_control
	// codelIntervalMs is queue_codel_interval_ms (0 = off); the target is shedCodelTargetMs.
	codelIntervalMs int
	min, max        float64
}

var shedSettings = []shedSetting{
	{"no admission, no thresholds", "off", 0, 0, 0},
	{fmt.Sprintf("no admission, min %v / max %v", shedMinRatio, shedMaxRatio), "off", 0, shedMinRatio, shedMaxRatio},
	{"admission, no thresholds", "on", 0, 0, 0},
	{fmt.Sprintf("admission, min %v / max %v", shedMinRatio, shedMaxRatio), "on", 0, shedMinRatio, shedMaxRatio},
	{fmt.Sprintf("admission + CoDel %d/%d ms, no thresholds", shedCodelIntervalMs, shedCodelTargetMs), "on", shedCodelIntervalMs, 0, 0},
}

func (b *bench) shed(ctx context.Context) (*shedResult, error) {
	var res *shedResult
	spec := serverSpec{pinCPU: b.opts.pinCPU, top: pinnedBusyThreshold}
	err := b.withServer(ctx, spec, func(s *benchServer, admin *adminSession) error {
		var err error
		res, err = b.runShed(ctx, s, admin)
		return err
	})
	return res, err
}

func (b *bench) runShed(ctx context.Context, s *benchServer, admin *adminSession) (*shedResult, error) {
	if err := admin.exec(ctx, createHeavyTable, fillHeavyTable); err != nil {
		return nil, err
	}
	n := b.opts.clients
	pool, err := openPool(s.addr, len(shedSettings)*n+1)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	single, err := b.timeAlone(ctx, pool, "shed", heavyStatement)
	if err != nil {
		return nil, err
	}
	modes := make([]*closedLoop, len(shedSettings))
	for i, st := range shedSettings {
		m, err := newClosedLoop(ctx, pool, st.name, heavyStatement, n, shedLatencyCapacity,
			fmt.Sprintf("SET min_os_cpu_wait_time_ratio_to_throw = %v", st.min),
			fmt.Sprintf("SET max_os_cpu_wait_time_ratio_to_throw = %v", st.max),
			"SET queue_max_wait_ms = 60000")
		if err != nil {
			return nil, err
		}
		defer m.close()
		m.admin = newLatencyRecorder(adminLatencyCapacity, 1)
		modes[i] = m
	}
	rounds := b.opts.roundsOr(3)
	for r := range rounds {
		// Every round runs every mode once, in an order rotated by the round, so a noisy
		// neighbour meets each mode at every position.
		for k := range modes {
			i := (r + k) % len(modes)
			st := shedSettings[i]
			if err := admin.exec(ctx, fmt.Sprintf("SET GLOBAL admission_control = '%s'", st.admission),
				fmt.Sprintf("SET GLOBAL queue_codel_target_ms = %d", shedCodelTargetMs),
				fmt.Sprintf("SET GLOBAL queue_codel_interval_ms = %d", st.codelIntervalMs)); err != nil {
				return nil, err
			}
			if err := modes[i].phase(ctx, b, roundLabel("shed", modes[i].name, r, rounds), b.opts.phase, s, admin); err != nil {
				return nil, err
			}
		}
	}
	res := &shedResult{
		PinnedCPU:    b.opts.pinCPU,
		Clients:      n,
		Statement:    heavyStatement,
		SingleClient: single,
		Rounds:       rounds,
		PhaseSeconds: b.opts.phase.Seconds(),
	}
	for i, m := range modes {
		res.Modes = append(res.Modes, m.shedMode(shedSettings[i].name))
	}
	base := res.Modes[0]
	for i := range res.Modes {
		res.Modes[i].P99Ratio = ratio(res.Modes[i].Latency.P99, base.Latency.P99)
		res.Modes[i].SteadyP99Ratio = ratio(res.Modes[i].Steady.P99, base.Steady.P99)
		res.Modes[i].GoodputRatio = ratio(float64(res.Modes[i].Goodput), float64(base.Goodput))
	}
	return res, nil
}

// timeAlone measures a statement alone on the server (no contention), so the table can say how
// many of them the core serves per second.
func (b *bench) timeAlone(ctx context.Context, pool *sql.DB, scenario, statement string) (summary, error) {
	b.progress.note("%s: timing %s alone (%d runs)", scenario, statement, calibrationRuns)
	conn, err := pool.Conn(ctx)
	if err != nil {
		return summary{}, fmt.Errorf("calibration session: %w", err)
	}
	defer conn.Close()
	samples := make([]time.Duration, 0, calibrationRuns)
	for range calibrationRuns {
		start := time.Now()
		if _, err := queryInt(ctx, conn, statement); err != nil {
			return summary{}, fmt.Errorf("calibration: %w", err)
		}
		samples = append(samples, time.Since(start))
	}
	return summarize(samples), nil
}

func (m *closedLoop) shedMode(settings string) shedMode {
	attempts := m.ok + m.rejected + m.refused + m.failed
	return shedMode{
		Settings:      settings,
		Goodput:       m.goodput(),
		Latency:       summarize(merged(m.latency...)),
		Steady:        summarize(merged(m.steady...)),
		Rejected:      m.rejected,
		RejectedPerS:  ratio(float64(m.rejected), m.elapsed.Seconds()),
		RejectionRate: ratio(float64(m.rejected), float64(attempts)),
		Refused:       m.refused,
		RefusedPerS:   ratio(float64(m.refused), m.elapsed.Seconds()),
		RefusedShare:  ratio(float64(m.refused), float64(attempts)),
		Failed:        m.failed,
		Admin:         summarize(merged(m.admin)),
		AdminFailures: m.adminFailures,
		Overload:      m.overload.mean(),
		ServerBusy:    m.serverBusy(),
	}
}
