package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// measure is a number that may be unmeasurable (NaN: nothing to divide by, no event seen); it is
// null in JSON and "n/a" in the table, never a fake 0.
type measure float64

func (m measure) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(m)) || math.IsInf(float64(m), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(m))
}

func (m measure) known() bool { return !math.IsNaN(float64(m)) && !math.IsInf(float64(m), 0) }

// format prints m with the given decimals, or n/a.
func (m measure) format(decimals int) string {
	if !m.known() {
		return "n/a"
	}
	return strconv.FormatFloat(float64(m), 'f', decimals, 64)
}

// report is everything one invocation measured.
type report struct {
	Command       string          `json:"command"`
	Server        string          `json:"server_binary"`
	HostCPUs      int             `json:"host_cpus"`
	LoadAvgBefore string          `json:"loadavg_before"`
	LoadAvgAfter  string          `json:"loadavg_after"`
	Overhead      *overheadResult `json:"overhead,omitempty"`
	Shed          *shedResult     `json:"shed,omitempty"`
	Storm         *stormResult    `json:"storm,omitempty"`
	Reaction      *reactionResult `json:"reaction,omitempty"`
	Sleepers      *sleepersResult `json:"sleepers,omitempty"`
	Tenants       *tenantsResult  `json:"tenants,omitempty"`
	Targets       []targetCheck   `json:"targets"`
}

// targetCheck is one of the project's goals for the protection, with what this run measured.
type targetCheck struct {
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

// targets compares the results with the goals of the project (issue 7).
func targets(r *report) []targetCheck {
	var checks []targetCheck
	add := func(scenario, target string, value measure, decimals int, unit string, met bool) {
		checks = append(checks, targetCheck{scenario, target, value.format(decimals) + unit, value.known() && met})
	}
	if o := r.Overhead; o != nil {
		add("overhead", "q/s enabled / disabled >= 0.98 (median of rounds)", o.MedianRoundRatio, 3, "", o.MedianRoundRatio >= 0.98)
	}
	if s := r.Shed; s != nil {
		for _, m := range s.Modes[1:] {
			// The target is the steady state (issue 25); the whole phase is shown beside it.
			checks = append(checks, targetCheck{"shed", m.Settings + ": p99 <= 0.5 x unprotected p99, steady state (phases' first 500 ms left out)",
				m.SteadyP99Ratio.format(2) + " (whole phase " + m.P99Ratio.format(2) + ")", m.SteadyP99Ratio.known() && m.SteadyP99Ratio <= 0.5})
			admin := measure(m.Admin.P99)
			add("shed", m.Settings+": admin SELECT 1 p99 < 50 ms", admin, 1, " ms", m.Admin.Count > 0 && admin < 50)
		}
		for _, m := range s.Modes[2:] {
			add("shed", m.Settings+": goodput >= 0.9 x unprotected", m.GoodputRatio, 2, "", m.GoodputRatio >= 0.9)
			add("shed", m.Settings+": server CPU >= 0.95 core", m.ServerBusy, 2, "", m.ServerBusy >= 0.95)
		}
	}
	if s := r.Storm; s != nil {
		add("storm", "CPU per dropped / per accepted < 0.2", s.CPURatio, 3, "", s.CPURatio < 0.2)
		admin := measure(s.Dropped.Admin.P99)
		add("storm", "admin SELECT 1 p99 (dropping) < 50 ms", admin, 1, " ms", s.Dropped.Admin.Count > 0 && admin < 50)
	}
	if sl := r.Sleepers; sl != nil && len(sl.Modes) == len(sleepersSettings) {
		off, adaptive := sl.Modes[0], sl.Modes[1]
		share := ratio(float64(adaptive.SleeperRate), float64(off.SleeperRate))
		add("sleepers", "sleepers' rate, adaptive slots / admission off >= 0.9", share, 2, "", share >= 0.9)
	}
	if t := r.Tenants; t != nil && len(t.Modes) == len(tenantsSettings) {
		equal, first := t.Modes[2], t.Modes[3]
		add("tenants", "equal weights: B p99 <= 3 x B alone", equal.BP99Ratio, 2, "", equal.BP99Ratio <= 3)
		add("tenants", "equal weights: B goodput >= 0.9 x B alone", equal.BGoodputRatio, 2, "", equal.BGoodputRatio >= 0.9)
		add("tenants", "equal weights: A goodput >= 0.85 x what the CPU left it", equal.AGoodputRatio, 2, "", equal.AGoodputRatio >= 0.85)
		add("tenants", "B higher priority: B p99 <= 1.5 x B alone", first.BP99Ratio, 2, "", first.BP99Ratio <= 1.5)
		add("tenants", "B higher priority: A goodput >= 0.85 x what the CPU left it", first.AGoodputRatio, 2, "", first.AGoodputRatio >= 0.85)
	}
	if re := r.Reaction; re != nil {
		windows := measure(float64(re.MedianRejectionMs) / 1000 / re.WindowSeconds)
		add("reaction", "median first 745 <= 2 windows after onset", windows, 2, " windows", windows <= 2)
	}
	return checks
}

func writeJSON(w io.Writer, r *report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// writeTable prints the report for a person: one block per scenario, then the targets.
func writeTable(w io.Writer, r *report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\nserver %s, %d host CPUs, load average before %s, after %s\n",
		r.Command, r.Server, r.HostCPUs, r.LoadAvgBefore, r.LoadAvgAfter)
	if r.Overhead != nil {
		writeOverhead(tw, r.Overhead)
	}
	if r.Shed != nil {
		writeShed(tw, r.Shed)
	}
	if r.Storm != nil {
		writeStorm(tw, r.Storm)
	}
	if r.Reaction != nil {
		writeReaction(tw, r.Reaction)
	}
	if r.Sleepers != nil {
		writeSleepers(tw, r.Sleepers)
	}
	if r.Tenants != nil {
		writeTenants(tw, r.Tenants)
	}
	fmt.Fprintf(tw, "\nTARGETS\nscenario\ttarget\tmeasured\tresult\n")
	for _, c := range r.Targets {
		result := "MISSED"
		if c.Met {
			result = "met"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Scenario, c.Target, c.Measured, result)
	}
	return tw.Flush()
}

func writeOverhead(w io.Writer, o *overheadResult) {
	fmt.Fprintf(w, "\nOVERHEAD  SELECT 1, %d connections, unpinned server, %d rounds x %.0f s per mode (alternating)\n",
		o.Connections, o.Rounds, o.PhaseSeconds)
	fmt.Fprintf(w, "  check exercised by: %s\n", o.Check)
	if sc := o.Scrape; sc != nil {
		fmt.Fprintf(w, "  /metrics scraped every %v throughout: %d scrapes, %d failed, %.2f ms each on average (wall)\n",
			time.Duration(sc.IntervalSeconds*float64(time.Second)), sc.Scrapes, sc.Failed, sc.MeanMillis)
	}
	fmt.Fprintf(w, "mode\tq/s\tp50 ms\tp99 ms\tstatements\t745\tother errors\tserver CPU cores\n")
	for _, m := range []struct {
		name string
		t    throughput
	}{{"disabled", o.Disabled}, {"enabled", o.Enabled}} {
		fmt.Fprintf(w, "%s\t%s\t%.3f\t%.3f\t%d\t%d\t%d\t%s\n",
			m.name, m.t.QPS.format(0), m.t.Latency.P50, m.t.Latency.P99, m.t.Latency.Count, m.t.Rejected, m.t.Failed,
			m.t.ServerBusy.format(2))
	}
	fmt.Fprintf(w, "ratio enabled/disabled q/s: %s pooled, %s median of rounds (per round: %s)\n",
		o.Ratio.format(3), o.MedianRoundRatio.format(3), formatList(o.RoundRatios, 3))
}

func writeShed(w io.Writer, s *shedResult) {
	fmt.Fprintf(w, "\nSHED  %d closed-loop clients, server pinned to CPU %q, %d rounds x %.0f s per mode (rotating), 50 ms back-off after an error\n",
		s.Clients, s.PinnedCPU, s.Rounds, s.PhaseSeconds)
	fmt.Fprintf(w, "  statement: %s\n  alone: p50 %.1f ms (%s/s on one core)\n",
		s.Statement, s.SingleClient.P50, ratio(1000, s.SingleClient.P50).format(1))
	fmt.Fprintf(w, "  p99 steady: the phases' first 500 ms left out (the target's figure); p99 whole: every statement\n")
	fmt.Fprintf(w, "mode\tgoodput/s\tp50 ms\tp99 ms steady\tp99 ms whole\tok\t745/s\t745 share\t202/s\t202 share\tother errors\tadmin p50 ms\tadmin p99 ms\tserver CPU cores\toverload (kernel + Go + queue)\tp99 steady / unprotected\tp99 whole / unprotected\tgoodput / unprotected\n")
	for _, m := range s.Modes {
		fmt.Fprintf(w, "%s\t%s\t%.1f\t%.1f\t%.1f\t%d\t%s\t%s%%\t%s\t%s%%\t%d\t%.1f\t%.1f\t%s\t%.2f (%.2f + %.2f + %.2f)\t%s\t%s\t%s\n",
			m.Settings, m.Goodput.format(2), m.Latency.P50, m.Steady.P99, m.Latency.P99, m.Latency.Count, m.RejectedPerS.format(1),
			(100 * m.RejectionRate).format(1), m.RefusedPerS.format(1), (100 * m.RefusedShare).format(1), m.Failed, m.Admin.P50, m.Admin.P99, m.ServerBusy.format(2),
			m.Overload.Overload, m.Overload.Kernel, m.Overload.Go, m.Overload.Queue, m.SteadyP99Ratio.format(2), m.P99Ratio.format(2), m.GoodputRatio.format(2))
	}
}

func writeStorm(w io.Writer, s *stormResult) {
	fmt.Fprintf(w, "\nSTORM  %d goroutines connecting, unpinned server, simulated overload %v, %d rounds x %.0f s (at most %d attempts) per mode\n",
		s.Workers, s.SimulatedOverload, s.Rounds, s.PhaseSeconds, s.MaxAttempts)
	fmt.Fprintf(w, "mode\tattempts/s\tserver CPU us/attempt\tattempts\tunexpected\tadmin p50 ms\tadmin p99 ms\n")
	for _, m := range []struct {
		name string
		m    stormMode
	}{{"dropped (" + s.DropThresholds + ")", s.Dropped}, {"accepted (drop off)", s.Accepted}} {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%.1f\t%.1f\n",
			m.name, m.m.AttemptsPerSecond.format(0), m.m.CPUMicros.format(1), m.m.Attempts, m.m.Unexpected, m.m.Admin.P50, m.m.Admin.P99)
	}
	fmt.Fprintf(w, "CPU per attempt dropped / accepted: %s\n", s.CPURatio.format(3))
}

func writeReaction(w io.Writer, re *reactionResult) {
	fmt.Fprintf(w, "\nREACTION  %d heavy clients start at the onset, server pinned to CPU %q, window %.0f s\n",
		re.HeavyClients, re.PinnedCPU, re.WindowSeconds)
	fmt.Fprintf(w, "  probe: %s; warning: %s\n", re.ProbeSettings, re.Warning)
	fmt.Fprintf(w, "run\tquiet before\thost busy before\tfirst 745 ms\twindows\tCPU warning ms\twindows\n")
	for i, run := range re.Runs {
		warning := run.CPUWarningMs.format(0)
		if run.WarningBeforeOnset {
			warning = "raised before onset"
		}
		fmt.Fprintf(w, "%d\t%v\t%s\t%s\t%s\t%s\t%s\n", i+1, run.Quiet, run.HostBusy.format(2),
			run.FirstRejectionMs.format(0), inWindows(run.FirstRejectionMs, re.WindowSeconds),
			warning, inWindows(run.CPUWarningMs, re.WindowSeconds))
	}
	fmt.Fprintf(w, "median\t\t\t%s\t%s\t%s\t%s\n",
		re.MedianRejectionMs.format(0), inWindows(re.MedianRejectionMs, re.WindowSeconds),
		re.MedianWarningMs.format(0), inWindows(re.MedianWarningMs, re.WindowSeconds))
}

func inWindows(ms measure, windowSeconds float64) string {
	return measure(float64(ms) / 1000 / windowSeconds).format(2)
}

func formatList(values []measure, decimals int) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = v.format(decimals)
	}
	return strings.Join(parts, " ")
}

func writeSleepers(w io.Writer, s *sleepersResult) {
	fmt.Fprintf(w, "\nSLEEPERS  %d CPU-heavy and %d sleeping clients (%s), server pinned to CPU %q, %d rounds x %.0f s per mode (rotating)\n",
		s.HeavyClients, s.SleeperClients, sleeperStatement, s.PinnedCPU, s.Rounds, s.PhaseSeconds)
	fmt.Fprintf(w, "mode\tsleepers/s\tideal/s\tsleeper p50 ms\tsleeper p99 ms\theavy/s\theavy p50 ms\theavy p99 ms\terrors\n")
	for _, m := range s.Modes {
		fmt.Fprintf(w, "%s\t%s\t%.0f\t%.1f\t%.1f\t%s\t%.1f\t%.1f\t%d\n",
			m.Settings, m.SleeperRate.format(1), m.SleeperIdeal, m.SleeperLatency.P50, m.SleeperLatency.P99,
			m.HeavyRate.format(1), m.HeavyLatency.P50, m.HeavyLatency.P99, m.Failed)
	}
}
