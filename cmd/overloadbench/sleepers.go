package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// The sleepers scenario mixes CPU-heavy clients with clients whose statements only sleep, on a
// server pinned to one core. Sleeping statements hold a CPU slot without using the CPU; a fixed
// slot count would let them queue behind each other (and behind the heavy statements) although
// the core has room. Three modes, alternated on one server: admission off (every statement runs
// at once), admission with adaptive slots, and admission with a fixed single slot
// (max_concurrent_statements = 1, what a cap at GOMAXPROCS would do here).
const (
	sleeperStatement = "SELECT SLEEP(0.1)"
	sleeperClients   = 16
	sleeperHeavy     = 2
	sleeperSeconds   = 0.1
)

type sleepersResult struct {
	PinnedCPU      string         `json:"pinned_cpu"`
	HeavyClients   int            `json:"heavy_clients"`
	SleeperClients int            `json:"sleeper_clients"`
	Rounds         int            `json:"rounds"`
	PhaseSeconds   float64        `json:"phase_seconds"`
	Modes          []sleepersMode `json:"modes"`
}

type sleepersMode struct {
	Settings string `json:"settings"`
	// SleeperRate is sleeper statements per second; SleeperIdeal what the clients would do if
	// every sleep started at once (clients / sleep).
	SleeperRate    measure `json:"sleeper_per_s"`
	SleeperIdeal   float64 `json:"sleeper_ideal_per_s"`
	SleeperLatency summary `json:"sleeper_latency"`
	HeavyRate      measure `json:"heavy_per_s"`
	HeavyLatency   summary `json:"heavy_latency"`
	Failed         int64   `json:"failed"`
}

type sleepersSetting struct {
	name, admission string
	maxSlots        int
}

var sleepersSettings = []sleepersSetting{
	{"admission off", "off", 0},
	{"admission, adaptive slots", "on", 0},
	{"admission, fixed 1 slot", "on", 1},
}

func (b *bench) sleepers(ctx context.Context) (*sleepersResult, error) {
	var res *sleepersResult
	spec := serverSpec{pinCPU: b.opts.pinCPU, top: pinnedBusyThreshold}
	err := b.withServer(ctx, spec, func(s *benchServer, admin *adminSession) error {
		var err error
		res, err = b.runSleepers(ctx, s, admin)
		return err
	})
	return res, err
}

// sleepersTotals accumulates one mode over its phases.
type sleepersTotals struct {
	sleeperOK, heavyOK, failed int64
	elapsed                    time.Duration
	sleeperLat, heavyLat       *latencyRecorder
}

func (b *bench) runSleepers(ctx context.Context, s *benchServer, admin *adminSession) (*sleepersResult, error) {
	if err := admin.exec(ctx, createHeavyTable, fillHeavyTable); err != nil {
		return nil, err
	}
	pool, err := openPool(s.addr, sleeperClients+sleeperHeavy+1)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	conns, err := sessions(ctx, pool, sleeperClients+sleeperHeavy, "SET queue_max_wait_ms = 60000")
	if err != nil {
		return nil, err
	}
	defer closeAll(conns)
	totals := make([]sleepersTotals, len(sleepersSettings))
	for i := range totals {
		totals[i].sleeperLat = newLatencyRecorder(shedLatencyCapacity, uint64(2*i+1))
		totals[i].heavyLat = newLatencyRecorder(shedLatencyCapacity, uint64(2*i+2))
	}
	rounds := b.opts.roundsOr(3)
	for r := range rounds {
		for k := range sleepersSettings {
			i := (r + k) % len(sleepersSettings)
			st := sleepersSettings[i]
			if err := admin.exec(ctx,
				fmt.Sprintf("SET GLOBAL admission_control = '%s'", st.admission),
				fmt.Sprintf("SET GLOBAL max_concurrent_statements = %d", st.maxSlots)); err != nil {
				return nil, err
			}
			var counts outcomes
			b.progress.phase(roundLabel("sleepers", st.name, r, rounds), &counts)
			var sleeperOK, heavyOK atomic.Int64
			deadline := time.Now().Add(b.opts.phase)
			t := &totals[i]
			elapsed := runWorkers(len(conns), func(w int) {
				heavy := w < sleeperHeavy
				stmt, ok, rec := sleeperStatement, &sleeperOK, t.sleeperLat
				if heavy {
					stmt, ok, rec = heavyStatement, &heavyOK, t.heavyLat
				}
				for time.Now().Before(deadline) && ctx.Err() == nil {
					began := time.Now()
					_, err := queryInt(ctx, conns[w], stmt)
					counts.record(err)
					if err == nil {
						ok.Add(1)
						rec.add(time.Since(began))
					}
				}
			})
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t.sleeperOK += sleeperOK.Load()
			t.heavyOK += heavyOK.Load()
			t.failed += counts.attempts() - counts.ok.Load()
			t.elapsed += elapsed
		}
	}
	if err := admin.exec(ctx, "SET GLOBAL admission_control = 'on'", "SET GLOBAL max_concurrent_statements = 0"); err != nil {
		return nil, err
	}
	res := &sleepersResult{
		PinnedCPU: b.opts.pinCPU, HeavyClients: sleeperHeavy, SleeperClients: sleeperClients,
		Rounds: rounds, PhaseSeconds: b.opts.phase.Seconds(),
	}
	for i, t := range totals {
		secs := t.elapsed.Seconds()
		res.Modes = append(res.Modes, sleepersMode{
			Settings:       sleepersSettings[i].name,
			SleeperRate:    ratio(float64(t.sleeperOK), secs),
			SleeperIdeal:   sleeperClients / sleeperSeconds,
			SleeperLatency: summarize(merged(t.sleeperLat)),
			HeavyRate:      ratio(float64(t.heavyOK), secs),
			HeavyLatency:   summarize(merged(t.heavyLat)),
			Failed:         t.failed,
		})
	}
	return res, nil
}
