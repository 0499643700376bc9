package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The CPU-heavy statement: a five-way cross join of a ten-row table, 100 000 rows counted, about
// 0.1 s of one core here (measured by the scenario, which reports it). It is much cheaper than
// the information_schema cross join (1-2 s), so a phase of a few seconds sees many statements.
const (
	createHeavyTable = "CREATE TABLE main.n (i INT PRIMARY KEY)"
	fillHeavyTable   = "INSERT INTO main.n VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)"
	heavyStatement   = "SELECT COUNT(*) FROM main.n a, main.n b, main.n c, main.n d, main.n e"

	// Real overload needs the busy time of one window on one core to count: the default
	// threshold (1 s of CPU per 1 s window) can never be exceeded by a server on one core.
	pinnedBusyThreshold = "os_cpu_busy_time_threshold = 100000"

	shedMinRatio         = 1
	shedMaxRatio         = 3
	shedLatencyCapacity  = 1 << 12
	adminLatencyCapacity = 1 << 12
	calibrationRuns      = 5
)

type shedResult struct {
	PinnedCPU    string   `json:"pinned_cpu"`
	Clients      int      `json:"clients"`
	Statement    string   `json:"statement"`
	SingleClient summary  `json:"single_client_latency"`
	Rounds       int      `json:"rounds"`
	PhaseSeconds float64  `json:"phase_seconds"`
	Without      shedMode `json:"without_thresholds"`
	With         shedMode `json:"with_thresholds"`
	// P99Ratio is the p99 of successful statements with shedding over the p99 without.
	P99Ratio measure `json:"p99_ratio_with_to_without"`
}

type shedMode struct {
	Settings      string        `json:"settings"`
	Goodput       measure       `json:"goodput_per_s"`
	Latency       summary       `json:"latency"`
	Rejected      int64         `json:"rejected"`
	RejectedPerS  measure       `json:"rejected_per_s"`
	RejectionRate measure       `json:"rejection_rate"`
	Failed        int64         `json:"failed"`
	Admin         summary       `json:"admin_select1"`
	AdminFailures int           `json:"admin_failures"`
	Overload      overloadParts `json:"overload"`
	// ServerBusy is the server's CPU seconds per second (1 = the whole pinned core).
	ServerBusy measure `json:"server_cpu_cores"`
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
	pool, err := openPool(s.addr, 2*n+1)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	single, err := b.calibrate(ctx, pool)
	if err != nil {
		return nil, err
	}
	without, err := newClosedLoop(ctx, pool, "without thresholds", heavyStatement, n, shedLatencyCapacity,
		"SET max_os_cpu_wait_time_ratio_to_throw = 0")
	if err != nil {
		return nil, err
	}
	defer without.close()
	with, err := newClosedLoop(ctx, pool, "with thresholds", heavyStatement, n, shedLatencyCapacity,
		fmt.Sprintf("SET min_os_cpu_wait_time_ratio_to_throw = %v", shedMinRatio),
		fmt.Sprintf("SET max_os_cpu_wait_time_ratio_to_throw = %v", shedMaxRatio))
	if err != nil {
		return nil, err
	}
	defer with.close()
	modes := [2]*closedLoop{without, with}
	for _, m := range modes {
		m.admin = newLatencyRecorder(adminLatencyCapacity, 1)
	}
	rounds := b.opts.roundsOr(3)
	for r := range rounds {
		for _, i := range alternating(r) {
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
		Without:      without.shedMode("no thresholds (max 0)"),
		With:         with.shedMode(fmt.Sprintf("min %v / max %v", shedMinRatio, shedMaxRatio)),
	}
	res.P99Ratio = ratio(res.With.Latency.P99, res.Without.Latency.P99)
	return res, nil
}

// calibrate measures the heavy statement alone on the server (no contention), so the table can
// say how many of them the core serves per second.
func (b *bench) calibrate(ctx context.Context, pool *sql.DB) (summary, error) {
	b.progress.note("shed: timing the heavy statement alone (%d runs)", calibrationRuns)
	conn, err := pool.Conn(ctx)
	if err != nil {
		return summary{}, fmt.Errorf("calibration session: %w", err)
	}
	defer conn.Close()
	samples := make([]time.Duration, 0, calibrationRuns)
	for range calibrationRuns {
		start := time.Now()
		if _, err := queryInt(ctx, conn, heavyStatement); err != nil {
			return summary{}, fmt.Errorf("calibration: %w", err)
		}
		samples = append(samples, time.Since(start))
	}
	return summarize(samples), nil
}

func (m *closedLoop) shedMode(settings string) shedMode {
	attempts := m.ok + m.rejected + m.failed
	return shedMode{
		Settings:      settings,
		Goodput:       m.goodput(),
		Latency:       summarize(merged(m.latency...)),
		Rejected:      m.rejected,
		RejectedPerS:  ratio(float64(m.rejected), m.elapsed.Seconds()),
		RejectionRate: ratio(float64(m.rejected), float64(attempts)),
		Failed:        m.failed,
		Admin:         summarize(merged(m.admin)),
		AdminFailures: m.adminFailures,
		Overload:      m.overload.mean(),
		ServerBusy:    m.serverBusy(),
	}
}
