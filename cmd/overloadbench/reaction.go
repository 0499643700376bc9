package main

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"
	"time"
)

// The reaction scenario creates real contention (no simulation) on a server pinned to one core
// and times how long the protection takes to notice. The overload ratio covers a trailing window
// of asynchronous_metrics_update_period_s (1 s here), so the natural unit of the answer is that
// window: a reaction within 2 windows means the protection acts in the second after the onset.
const (
	reactionHeavyClients = 4
	reactionMinRatio     = 1
	reactionMaxRatio     = 1.5
	reactionWindow       = time.Second
	reactionWarnRatio    = 0.5
	reactionProbeEvery   = 20 * time.Millisecond
	reactionWarningPoll  = 50 * time.Millisecond
	reactionTimeout      = 10 * time.Second
	reactionQuietTimeout = 10 * time.Second
)

type reactionResult struct {
	PinnedCPU     string        `json:"pinned_cpu"`
	HeavyClients  int           `json:"heavy_clients"`
	WindowSeconds float64       `json:"window_seconds"`
	ProbeSettings string        `json:"probe_settings"`
	Warning       string        `json:"warning_settings"`
	Runs          []reactionRun `json:"runs"`
	// The medians are over the runs in which the event was observed after the onset.
	MedianRejectionMs measure `json:"median_first_rejection_ms"`
	MedianWarningMs   measure `json:"median_cpu_warning_ms"`
}

type reactionRun struct {
	// Quiet says the server showed overload 0 and no CPU warning just before the onset.
	Quiet bool `json:"quiet_before_onset"`
	// HostBusy is CPUBusyRatio (the CPU warning's value, host-wide) just before the onset.
	HostBusy measure `json:"host_cpu_busy_before_onset"`
	// FirstRejectionMs is the time from the onset to the probe's first error 745; null: none
	// within the timeout.
	FirstRejectionMs measure `json:"first_rejection_ms"`
	// CPUWarningMs is the time from the onset to the CPU warning in system.warnings; null: not
	// seen within the timeout, or already raised at the onset (WarningBeforeOnset).
	CPUWarningMs       measure `json:"cpu_warning_ms"`
	WarningBeforeOnset bool    `json:"warning_before_onset"`
	ProbeErrors        int64   `json:"probe_other_errors"`
}

func (b *bench) reaction(ctx context.Context) (*reactionResult, error) {
	var res *reactionResult
	spec := serverSpec{
		pinCPU: b.opts.pinCPU,
		top:    pinnedBusyThreshold + fmt.Sprintf("\nasynchronous_metrics_update_period_s = %d", int(reactionWindow.Seconds())),
		sections: fmt.Sprintf("[resource_overload_warnings]\ncpu_overload_warn_ratio = %v\ncpu_overload_clear_ratio = %v\ncpu_overload_duration_seconds = 1\n",
			reactionWarnRatio, reactionWarnRatio-0.1),
	}
	err := b.withServer(ctx, spec, func(s *benchServer, admin *adminSession) error {
		var err error
		res, err = b.runReaction(ctx, s, admin)
		return err
	})
	return res, err
}

func (b *bench) runReaction(ctx context.Context, s *benchServer, admin *adminSession) (*reactionResult, error) {
	if err := admin.exec(ctx, createHeavyTable, fillHeavyTable); err != nil {
		return nil, err
	}
	pool, err := openPool(s.addr, reactionHeavyClients+1)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	probe, err := sessions(ctx, pool, 1,
		fmt.Sprintf("SET min_os_cpu_wait_time_ratio_to_throw = %v", reactionMinRatio),
		fmt.Sprintf("SET max_os_cpu_wait_time_ratio_to_throw = %v", reactionMaxRatio))
	if err != nil {
		return nil, fmt.Errorf("probe session: %w", err)
	}
	defer closeAll(probe)
	heavy, err := sessions(ctx, pool, reactionHeavyClients)
	if err != nil {
		return nil, fmt.Errorf("heavy sessions: %w", err)
	}
	defer closeAll(heavy)

	runs := b.opts.roundsOr(3)
	res := &reactionResult{
		PinnedCPU:     b.opts.pinCPU,
		HeavyClients:  reactionHeavyClients,
		WindowSeconds: reactionWindow.Seconds(),
		ProbeSettings: fmt.Sprintf("min %v / max %v, SELECT 1 every %v", reactionMinRatio, reactionMaxRatio, reactionProbeEvery),
		Warning:       fmt.Sprintf("cpu_overload_warn_ratio %v, duration 1 s, polled every %v", reactionWarnRatio, reactionWarningPoll),
	}
	var rejections, warnings []float64
	for r := range runs {
		run, err := b.reactionRun(ctx, admin, probe[0], heavy, fmt.Sprintf("reaction run %d/%d", r+1, runs))
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, run)
		if !math.IsNaN(float64(run.FirstRejectionMs)) {
			rejections = append(rejections, float64(run.FirstRejectionMs))
		}
		if !math.IsNaN(float64(run.CPUWarningMs)) {
			warnings = append(warnings, float64(run.CPUWarningMs))
		}
	}
	res.MedianRejectionMs = median(rejections)
	res.MedianWarningMs = median(warnings)
	return res, nil
}

// reactionRun waits for a quiet server, starts the heavy clients at the onset and watches the
// probe and system.warnings until both reacted or reactionTimeout passed.
func (b *bench) reactionRun(ctx context.Context, admin *adminSession, probe *sql.Conn, heavy []*sql.Conn, label string) (reactionRun, error) {
	b.progress.note("%s: waiting for overload 0 and no CPU warning", label)
	run, err := waitQuiet(ctx, admin)
	if err != nil {
		return run, err
	}
	run.FirstRejectionMs, run.CPUWarningMs = measure(math.NaN()), measure(math.NaN())

	var counts outcomes
	b.progress.phase(label+" (probe)", &counts)
	onset := time.Now()
	deadline := onset.Add(reactionTimeout)
	stopped, stop := context.WithCancel(ctx)
	defer stop()
	rejected := make(chan time.Duration, 1)
	var wg sync.WaitGroup
	for _, conn := range heavy {
		wg.Go(func() { runHeavy(ctx, stopped, conn, deadline) })
	}
	wg.Go(func() { probeUntilRejected(ctx, stopped, probe, onset, deadline, &counts, rejected) })

	warningSeen, probeDone := run.WarningBeforeOnset, false
	tick := time.NewTicker(reactionWarningPoll)
	defer tick.Stop()
	for !(warningSeen && probeDone) && time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case d := <-rejected:
			run.FirstRejectionMs, probeDone = measure(millis(d)), true
		case <-tick.C:
			if warningSeen {
				continue
			}
			raised, err := admin.cpuWarningRaised(ctx)
			if err != nil {
				stop()
				wg.Wait()
				return run, err
			}
			if raised {
				run.CPUWarningMs, warningSeen = measure(millis(time.Since(onset))), true
			}
		case <-ctx.Done():
		}
	}
	stop()
	wg.Wait()
	run.ProbeErrors = counts.failed.Load() + counts.refused.Load() + counts.dropped.Load()
	return run, ctx.Err()
}

// waitQuiet polls until the server shows overload 0 and no CPU warning (at most
// reactionQuietTimeout: on a busy host the warning may never clear) and returns the state then.
func waitQuiet(ctx context.Context, admin *adminSession) (reactionRun, error) {
	var run reactionRun
	deadline := time.Now().Add(reactionQuietTimeout)
	for {
		overload, err := admin.metric(ctx, "OSCPUOverload")
		if err != nil {
			return run, err
		}
		if run.HostBusy, err = admin.metric(ctx, "CPUBusyRatio"); err != nil {
			return run, err
		}
		if run.WarningBeforeOnset, err = admin.cpuWarningRaised(ctx); err != nil {
			return run, err
		}
		run.Quiet = overload.known() && overload == 0 && run.HostBusy.known() && !run.WarningBeforeOnset
		if run.Quiet || time.Now().After(deadline) {
			return run, nil
		}
		pause(ctx, 100*time.Millisecond)
	}
}

// runHeavy runs the heavy statement in a closed loop until stopped or the deadline; errors are
// of no interest here (the heavy sessions have no thresholds), only the load.
func runHeavy(ctx, stopped context.Context, conn *sql.Conn, deadline time.Time) {
	for stopped.Err() == nil && time.Now().Before(deadline) {
		if _, err := queryInt(ctx, conn, heavyStatement); err != nil {
			pause(stopped, 50*time.Millisecond)
		}
	}
}

// probeUntilRejected issues SELECT 1 every reactionProbeEvery and reports the time from the
// onset to the first error 745.
func probeUntilRejected(ctx, stopped context.Context, conn *sql.Conn, onset, deadline time.Time, counts *outcomes, rejected chan<- time.Duration) {
	tick := time.NewTicker(reactionProbeEvery)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		select {
		case <-stopped.Done():
			return
		case <-tick.C:
		}
		_, err := queryInt(ctx, conn, "SELECT 1")
		counts.record(err)
		if mysqlErrorNumber(err) == errServerOverloaded {
			rejected <- time.Since(onset)
			return
		}
	}
}
