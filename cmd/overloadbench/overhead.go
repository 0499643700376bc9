package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"overloadsql/internal/serverproc"
)

// The overhead scenario runs the decision on every statement without ever rejecting: the
// simulated overload is above 0 (so the full path runs: clamp, probability, random draw) and far
// below the enabled sessions' min (so the probability is 0).
const (
	overheadSimulatedOverload = 0.5
	overheadMinRatio          = 1000
	overheadMaxRatio          = 2000
	overheadLatencyCapacity   = 1 << 17 // per session, over all phases of a mode
)

type overheadResult struct {
	Check        string     `json:"check"`
	Connections  int        `json:"connections"`
	Rounds       int        `json:"rounds"`
	PhaseSeconds float64    `json:"phase_seconds"`
	Disabled     throughput `json:"disabled"`
	Enabled      throughput `json:"enabled"`
	// Ratio is enabled q/s over disabled q/s, all rounds together.
	Ratio measure `json:"ratio_enabled_to_disabled"`
	// RoundRatios are the same ratio per round (each round ran both modes back to back);
	// MedianRoundRatio is their median, which a neighbour's burst during one phase moves far
	// less than the pooled ratio, so the target is checked on it.
	RoundRatios      []measure `json:"round_ratios"`
	MedianRoundRatio measure   `json:"median_round_ratio"`
	// Scrape is set when /metrics was scraped throughout (--scrape-metrics).
	Scrape *scrapeResult `json:"scrape,omitempty"`
}

type throughput struct {
	QPS      measure `json:"qps"`
	Latency  summary `json:"latency"`
	Rejected int64   `json:"rejected"`
	Failed   int64   `json:"failed"`
	// ServerBusy is the server's CPU seconds per second (1 = one core).
	ServerBusy measure `json:"server_cpu_cores"`
}

func (b *bench) overhead(ctx context.Context) (*overheadResult, error) {
	var res *overheadResult
	spec := serverSpec{}
	var httpAddr string
	if b.opts.scrape > 0 {
		var err error
		if httpAddr, err = serverproc.FreeLoopbackAddr(); err != nil {
			return nil, err
		}
		spec.top = fmt.Sprintf("http_listen = %q\n", httpAddr)
	}
	err := b.withServer(ctx, spec, func(s *benchServer, admin *adminSession) error {
		if httpAddr == "" {
			var err error
			res, err = b.runOverhead(ctx, s, admin)
			return err
		}
		sc := newScraper(httpAddr, b.opts.scrape)
		scrapeCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc.run(scrapeCtx)
		}()
		var err error
		res, err = b.runOverhead(ctx, s, admin)
		stop()
		<-done
		if err != nil {
			return err
		}
		res.Scrape, err = sc.result()
		return err
	})
	return res, err
}

func (b *bench) runOverhead(ctx context.Context, s *benchServer, admin *adminSession) (*overheadResult, error) {
	if err := admin.exec(ctx, fmt.Sprintf("SET GLOBAL simulated_os_cpu_overload = %v", overheadSimulatedOverload)); err != nil {
		return nil, err
	}
	if err := waitForMetric(ctx, admin, "OSCPUOverload", overheadSimulatedOverload); err != nil {
		return nil, err
	}
	n := b.opts.clients
	pool, err := openPool(s.addr, 2*n)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	disabled, err := newClosedLoop(ctx, pool, "disabled", "SELECT 1", n, overheadLatencyCapacity,
		"SET min_os_cpu_wait_time_ratio_to_throw = 0", "SET max_os_cpu_wait_time_ratio_to_throw = 0")
	if err != nil {
		return nil, err
	}
	defer disabled.close()
	enabled, err := newClosedLoop(ctx, pool, "enabled", "SELECT 1", n, overheadLatencyCapacity,
		fmt.Sprintf("SET min_os_cpu_wait_time_ratio_to_throw = %v", overheadMinRatio),
		fmt.Sprintf("SET max_os_cpu_wait_time_ratio_to_throw = %v", overheadMaxRatio))
	if err != nil {
		return nil, err
	}
	defer enabled.close()
	modes := [2]*closedLoop{disabled, enabled}

	for _, m := range modes {
		if err := m.phase(ctx, b, "overhead ["+m.name+"] warm-up", time.Second, s, admin); err != nil {
			return nil, err
		}
		m.reset()
	}
	rounds := b.opts.roundsOr(6)
	for r := range rounds {
		for _, i := range alternating(r) {
			if err := modes[i].phase(ctx, b, roundLabel("overhead", modes[i].name, r, rounds), b.opts.phase, s, admin); err != nil {
				return nil, err
			}
		}
	}
	roundRatios := make([]measure, rounds)
	var known []float64
	for r := range rounds {
		roundRatios[r] = ratio(float64(enabled.phaseRates[r]), float64(disabled.phaseRates[r]))
		if roundRatios[r].known() {
			known = append(known, float64(roundRatios[r]))
		}
	}
	return &overheadResult{
		Check: fmt.Sprintf("SET GLOBAL simulated_os_cpu_overload = %v; enabled sessions min %v / max %v (decision runs, probability 0)",
			overheadSimulatedOverload, overheadMinRatio, overheadMaxRatio),
		Connections:      n,
		Rounds:           rounds,
		PhaseSeconds:     b.opts.phase.Seconds(),
		Disabled:         disabled.throughput(),
		Enabled:          enabled.throughput(),
		Ratio:            ratio(float64(enabled.goodput()), float64(disabled.goodput())),
		RoundRatios:      roundRatios,
		MedianRoundRatio: median(known),
	}, nil
}

func (m *closedLoop) throughput() throughput {
	return throughput{
		QPS:        m.goodput(),
		Latency:    summarize(merged(m.latency...)),
		Rejected:   m.rejected,
		Failed:     m.failed,
		ServerBusy: m.serverBusy(),
	}
}

// waitForMetric polls system.asynchronous_metrics until name shows want (the simulated value
// reaches the metrics on the next sample).
func waitForMetric(ctx context.Context, admin *adminSession, name string, want float64) error {
	const timeout = 10 * time.Second
	deadline := time.Now().Add(timeout)
	for {
		got, err := admin.metric(ctx, name)
		if err != nil {
			return err
		}
		if got.known() && math.Abs(float64(got)-want) < 1e-9 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is %v, not %v, after %v", name, got, want, timeout)
		}
		pause(ctx, 50*time.Millisecond)
	}
}
