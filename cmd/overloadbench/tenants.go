package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// The tenants scenario: two applications on one core. A runs tenantsHeavyClients closed-loop
// clients of the heavy statement, B tenantsLightClients of a light one (a four-way cross join,
// about a tenth of the heavy statement). Each runs in a workload of its own; the modes differ in
// the workloads' priorities, and "workloads off" puts both in the default workload (one FIFO
// queue), for contrast. A alone and B alone are measured in the same rounds.
const (
	tenantsHeavyClients = 12
	tenantsLightClients = 2
	lightStatement      = "SELECT COUNT(*) FROM main.n a, main.n b, main.n c, main.n d"
	// tenantsWorkloads: a and b share priority 0 with equal weights; b_first is b at a better
	// priority.
	tenantsWorkloads = `
[[workloads]]
name = "a"
weight = 1

[[workloads]]
name = "b"
weight = 1

[[workloads]]
name = "b_first"
priority = -1
weight = 1
`
)

// tenantsSetting is one mode: the workload of A's and of B's sessions ("" = not run).
type tenantsSetting struct {
	name, a, b string
}

var tenantsSettings = []tenantsSetting{
	{"A alone", "a", ""},
	{"B alone", "", "b"},
	{"equal weights", "a", "b"},
	{"B higher priority", "a", "b_first"},
	{"workloads off", "default", "default"},
}

type tenantsResult struct {
	PinnedCPU    string  `json:"pinned_cpu"`
	Heavy        string  `json:"heavy_statement"`
	Light        string  `json:"light_statement"`
	HeavyClients int     `json:"heavy_clients"`
	LightClients int     `json:"light_clients"`
	LightAlone   summary `json:"light_statement_alone"`
	// LightThinkMs is the pause of B's clients after each statement (--tenants-b-think; 0 =
	// closed loop, as the scenario specifies).
	LightThinkMs float64       `json:"light_think_ms"`
	Rounds       int           `json:"rounds"`
	PhaseSeconds float64       `json:"phase_seconds"`
	Modes        []tenantsMode `json:"modes"`
}

type tenantsMode struct {
	Settings string `json:"settings"`
	// A and B: goodput and steady-state latency (each phase's first 500 ms left out) of each
	// application, zero when the mode does not run it.
	AGoodput measure `json:"a_goodput_per_s"`
	ALatency summary `json:"a_steady_latency"`
	BGoodput measure `json:"b_goodput_per_s"`
	BLatency summary `json:"b_steady_latency"`
	Errors   int64   `json:"errors"`
	// BP99Ratio and BGoodputRatio compare B with B alone; ALeft is what the CPU left A (A
	// alone's goodput times the share of the server's CPU that B's statements did not use, at
	// the CPU per B statement of B alone), AGoodputRatio A's goodput over it.
	BP99Ratio     measure `json:"b_p99_ratio_to_alone"`
	BGoodputRatio measure `json:"b_goodput_ratio_to_alone"`
	ALeft         measure `json:"a_goodput_left_per_s"`
	AGoodputRatio measure `json:"a_goodput_ratio_to_left"`
	ServerBusy    measure `json:"server_cpu_cores"`
}

func (b *bench) tenants(ctx context.Context) (*tenantsResult, error) {
	var res *tenantsResult
	spec := serverSpec{pinCPU: b.opts.pinCPU, top: pinnedBusyThreshold, sections: tenantsWorkloads}
	err := b.withServer(ctx, spec, func(s *benchServer, admin *adminSession) error {
		var err error
		res, err = b.runTenants(ctx, s, admin)
		return err
	})
	return res, err
}

func (b *bench) runTenants(ctx context.Context, s *benchServer, admin *adminSession) (*tenantsResult, error) {
	if err := admin.exec(ctx, createHeavyTable, fillHeavyTable); err != nil {
		return nil, err
	}
	pool, err := openPool(s.addr, len(tenantsSettings)*(tenantsHeavyClients+tenantsLightClients)+1)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	light, err := b.timeAlone(ctx, pool, "tenants", lightStatement)
	if err != nil {
		return nil, err
	}
	type pair struct{ a, b *closedLoop }
	modes := make([]pair, len(tenantsSettings))
	for i, st := range tenantsSettings {
		open := func(workload, statement string, n int) (*closedLoop, error) {
			if workload == "" {
				return nil, nil
			}
			return newClosedLoop(ctx, pool, st.name, statement, n, shedLatencyCapacity,
				fmt.Sprintf("SET workload = '%s'", workload), "SET queue_max_wait_ms = 60000")
		}
		a, err := open(st.a, heavyStatement, tenantsHeavyClients)
		if err != nil {
			return nil, err
		}
		if a != nil {
			defer a.close()
		}
		bl, err := open(st.b, lightStatement, tenantsLightClients)
		if err != nil {
			return nil, err
		}
		if bl != nil {
			bl.think = b.opts.tenantsBThink
			defer bl.close()
		}
		modes[i] = pair{a, bl}
	}
	rounds := b.opts.roundsOr(3)
	cpu := make([]time.Duration, len(modes))
	for r := range rounds {
		for k := range modes {
			i := (r + k) % len(modes)
			label := roundLabel("tenants", tenantsSettings[i].name, r, rounds)
			before, err := s.cpu()
			if err != nil {
				return nil, err
			}
			if err := runTogether(ctx, b, label, s, admin, modes[i].a, modes[i].b); err != nil {
				return nil, err
			}
			after, err := s.cpu()
			if err != nil {
				return nil, err
			}
			cpu[i] += after - before
		}
	}
	res := &tenantsResult{PinnedCPU: b.opts.pinCPU, Heavy: heavyStatement, Light: lightStatement,
		HeavyClients: tenantsHeavyClients, LightClients: tenantsLightClients, LightAlone: light,
		LightThinkMs: float64(b.opts.tenantsBThink) / float64(time.Millisecond),
		Rounds:       rounds, PhaseSeconds: b.opts.phase.Seconds()}
	for i, p := range modes {
		m := tenantsMode{Settings: tenantsSettings[i].name, AGoodput: measure(0), BGoodput: measure(0)}
		var elapsed time.Duration
		for _, l := range []*closedLoop{p.a, p.b} {
			if l != nil {
				m.Errors += l.rejected + l.refused + l.failed
				elapsed = max(elapsed, l.elapsed)
			}
		}
		if p.a != nil {
			m.AGoodput, m.ALatency = p.a.goodput(), summarize(merged(p.a.steady...))
		}
		if p.b != nil {
			m.BGoodput, m.BLatency = p.b.goodput(), summarize(merged(p.b.steady...))
		}
		m.ServerBusy = ratio(cpu[i].Seconds(), elapsed.Seconds())
		res.Modes = append(res.Modes, m)
	}
	aAlone, bAlone := res.Modes[0], res.Modes[1]
	// The server's CPU per B statement, from B alone.
	bCPU := ratio(float64(bAlone.ServerBusy), float64(bAlone.BGoodput))
	for i := range res.Modes {
		m := &res.Modes[i]
		if m.BLatency.Count > 0 {
			m.BP99Ratio = ratio(m.BLatency.P99, bAlone.BLatency.P99)
			m.BGoodputRatio = ratio(float64(m.BGoodput), float64(bAlone.BGoodput))
		}
		if m.ALatency.Count > 0 {
			m.ALeft = measure(float64(aAlone.AGoodput) * max(0, 1-float64(m.BGoodput)*float64(bCPU)/float64(m.ServerBusy)))
			m.AGoodputRatio = ratio(float64(m.AGoodput), float64(m.ALeft))
		}
	}
	return res, nil
}

// runTogether runs one phase of the two closed loops at once (nil: not in this mode).
func runTogether(ctx context.Context, b *bench, label string, s *benchServer, admin *adminSession, loops ...*closedLoop) error {
	errs := make(chan error, len(loops))
	n := 0
	for _, l := range loops {
		if l == nil {
			continue
		}
		n++
		go func() { errs <- l.phase(ctx, b, label, b.opts.phase, s, admin) }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func writeTenants(w io.Writer, t *tenantsResult) {
	think := "closed loop"
	if t.LightThinkMs > 0 {
		think = fmt.Sprintf("each pausing %.0f ms after a statement (--tenants-b-think; the scenario specifies a closed loop)", t.LightThinkMs)
	}
	fmt.Fprintf(w, "\nTENANTS  A: %d clients of the heavy statement, B: %d clients of %s (alone p50 %.1f ms), %s; server pinned to CPU %q, %d rounds x %.0f s per mode (rotating); latencies steady state (each phase's first 500 ms left out)\n",
		t.HeavyClients, t.LightClients, t.Light, t.LightAlone.P50, think, t.PinnedCPU, t.Rounds, t.PhaseSeconds)
	fmt.Fprintf(w, "mode\tA goodput/s\tA p99 ms\tB goodput/s\tB p50 ms\tB p99 ms\terrors\tserver CPU cores\tB p99 / alone\tB goodput / alone\tA left/s\tA goodput / left\n")
	for _, m := range t.Modes {
		fmt.Fprintf(w, "%s\t%s\t%.1f\t%s\t%.1f\t%.1f\t%d\t%s\t%s\t%s\t%s\t%s\n",
			m.Settings, m.AGoodput.format(1), m.ALatency.P99, m.BGoodput.format(1), m.BLatency.P50, m.BLatency.P99, m.Errors,
			m.ServerBusy.format(2), m.BP99Ratio.format(2), m.BGoodputRatio.format(2), m.ALeft.format(1), m.AGoodputRatio.format(2))
	}
}
