package server

import (
	"log/slog"
	"testing"
	"time"

	"overloadsql/admission"
	"overloadsql/httpapi"
	"overloadsql/overload"
	"overloadsql/server/config"
	"overloadsql/server/memlimit"
	"overloadsql/server/userlock"
	"overloadsql/server/wire"
	"overloadsql/storage"
	"overloadsql/warnings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestEveryRowHasAPrometheusName checks that httpapi.Names (and so docs/metrics.md) covers every
// row the server can show in system.asynchronous_metrics, system.events and system.metrics, also
// the rows of sources this machine lacks.
func TestEveryRowHasAPrometheusName(t *testing.T) {
	s := &Server{registry: warnings.NewRegistry(), started: time.Now(), sessionAccounts: memlimit.NewAccounts(), userLocks: userlock.New()}
	s.cfg.Store(config.Default())
	s.sampler = overload.NewSampler(overload.Config{Logger: slog.New(slog.DiscardHandler)})
	defer s.sampler.Close()
	s.sampler.Sample()
	s.admission = admission.New(admissionLimits(config.Default()), admission.Options{})
	store, err := storage.Open("data", storage.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s.store = store
	state := httpState{s}
	for _, h := range state.Histograms() {
		found := false
		for _, n := range httpapi.HistogramNames {
			found = found || n.SQL == h.SQL
		}
		if !found {
			t.Errorf("histogram %s has no entry in httpapi.HistogramNames", h.SQL)
		}
	}

	rows := map[string][]string{"asynchronous_metrics": overload.MetricNames()}
	for _, m := range state.AsynchronousMetrics() {
		rows["asynchronous_metrics"] = append(rows["asynchronous_metrics"], m.Name)
	}
	for _, e := range state.Events() {
		rows["events"] = append(rows["events"], e.Name)
	}
	for _, g := range state.Gauges() {
		rows["metrics"] = append(rows["metrics"], g.Name)
	}
	for table, names := range rows {
		if len(names) == 0 {
			t.Errorf("system.%s: no rows", table)
		}
		for _, name := range names {
			if _, ok := httpapi.Lookup(table, name); !ok {
				t.Errorf("system.%s row %s has no entry in httpapi.Names: add one (and regenerate docs/metrics.md)", table, name)
			}
		}
	}
}

func TestReadiness(t *testing.T) {
	tests := []struct {
		name        string
		simulated   float64
		min, max    float64
		dryRun      bool
		open, limit int64
		stopping    bool
		want        bool
		reason      string
	}{
		{name: "idle", simulated: -1, min: 1, max: 2, limit: 10, want: true},
		{name: "overloaded but dropping is off", simulated: 5, limit: 10, want: true},
		{name: "under the min ratio", simulated: 1, min: 1, max: 2, limit: 10, want: true},
		{name: "over the min ratio", simulated: 1.2, min: 1, max: 2, limit: 10,
			reason: "CPU overloaded: OSCPUOverload 1.2 gives a connection drop probability of 0.19999999999999996 (min_os_cpu_wait_time_ratio_to_drop_connection 1, max_os_cpu_wait_time_ratio_to_drop_connection 2)"},
		{name: "dry run serves", simulated: 3, min: 1, max: 2, dryRun: true, limit: 10, want: true},
		{name: "max_connections", simulated: -1, open: 10, limit: 10,
			reason: "max_connections reached: 10 connections open, max_connections 10"},
		{name: "one below max_connections", simulated: -1, open: 9, limit: 10, want: true},
		{name: "shutting down", simulated: -1, limit: 10, stopping: true, reason: "shutting down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.MinDropRatio, cfg.MaxDropRatio, cfg.MaxConnections = tt.min, tt.max, int(tt.limit)
			if tt.dryRun {
				cfg.OverloadEnforcement = config.EnforcementDryRun
			}
			s := &Server{registry: warnings.NewRegistry(), gate: &wire.Gate{}}
			s.cfg.Store(cfg)
			s.sampler = overload.NewSampler(overload.Config{Logger: slog.New(slog.DiscardHandler)})
			sim := overload.NoSimulation()
			sim.Overload = tt.simulated
			s.sampler.Simulate(sim)
			s.gate.Open.Store(tt.open)
			s.stopping.Store(tt.stopping)
			ok, reason := s.readiness()
			if ok != tt.want || reason != tt.reason {
				t.Errorf("readiness() = %v %q, want %v %q", ok, reason, tt.want, tt.reason)
			}
		})
	}
}
