package server

import (
	"context"
	"fmt"
	"time"

	"overloadsql/httpapi"
	"overloadsql/overload"
	"overloadsql/tables"
	"overloadsql/warnings"
)

// httpShutdownTimeout bounds how long requests in progress on http_listen get at shutdown.
const httpShutdownTimeout = 5 * time.Second

// httpState is the server as the HTTP endpoints see it.
type httpState struct{ s *Server }

var _ httpapi.State = httpState{}

func (h httpState) AsynchronousMetrics() []overload.Metric { return h.s.asynchronousMetrics() }
func (h httpState) Events() []overload.Event               { return h.s.events() }
func (h httpState) Warnings() []warnings.Warning           { return h.s.registry.List() }
func (h httpState) Readiness() (bool, string)              { return h.s.readiness() }
func (h httpState) Histograms() []httpapi.Histogram        { return h.s.histograms() }

func (h httpState) Gauges() []overload.Metric {
	gs := h.s.gauges()
	ms := make([]overload.Metric, len(gs))
	for i, g := range gs {
		ms[i] = overload.Metric{Name: g.Name, Value: float64(g.Value), Description: g.Description}
	}
	return ms
}

// Workloads are system.workloads' exported columns, per workload.
func (h httpState) Workloads() []httpapi.WorkloadValue {
	var vs []httpapi.WorkloadValue
	for _, w := range h.s.workloadRows() {
		for _, c := range []struct {
			sql string
			v   float64
		}{
			{"running", float64(w.Running)}, {"stalled", float64(w.Stalled)}, {"queued", float64(w.Queued)},
			{"admitted", float64(w.Admitted)}, {"refused", float64(w.Refused)}, {"overloaded", float64(w.Overloaded)},
			{"queue_wait_us", float64(w.QueueWaitMicros)}, {"cpu_time_us", float64(w.CPUTimeMicros)},
			{"weight", w.Weight}, {"priority", float64(w.Priority)}, {"max_memory_usage", float64(w.MaxMemoryUsage)},
		} {
			vs = append(vs, httpapi.WorkloadValue{Workload: w.Name, SQL: c.sql, Value: c.v})
		}
	}
	return vs
}

// gauges are the rows of system.metrics.
func (s *Server) gauges() []tables.Gauge {
	holder, waiting := s.writes.State()
	gauges := append(s.counters.gauges(s.registry.Len(), s.admission.State(), holder, waiting), s.sessionAccounts.Gauges()...)
	return append(gauges, tables.Gauge{Name: "UserLocks", Value: int64(s.userLocks.Names()),
		Description: "User-level lock names (GET_LOCK) the server keeps now: those held or waited for."})
}

// readiness says whether the main listener would accept a new connection now: not while the
// server shuts down, not at max_connections, and not while the CPU overload gives a drop
// probability above 0 (in dry_run mode connections are served, so the server stays ready).
func (s *Server) readiness() (bool, string) {
	if s.stopping.Load() {
		return false, "shutting down"
	}
	d := s.dropSettings()
	if open := s.gate.Open.Load(); open >= d.MaxConnections {
		return false, fmt.Sprintf("max_connections reached: %d connections open, max_connections %d", open, d.MaxConnections)
	}
	r := s.sampler.Overload()
	if p := overload.Probability(r, d.Min, d.Max); p > 0 && !d.DryRun {
		return false, "CPU overloaded: OSCPUOverload " + number(r) + " gives a connection drop probability of " + number(p) +
			" (min_os_cpu_wait_time_ratio_to_drop_connection " + number(d.Min) +
			", max_os_cpu_wait_time_ratio_to_drop_connection " + number(d.Max) + ")"
	}
	return true, ""
}

// serveHTTP serves http_listen until shutdown; a failure is logged, and the SQL side goes on.
func (s *Server) serveHTTP() {
	if err := s.http.Serve(); err != nil {
		s.logger.Error("http_listen stopped serving", "err", err)
	}
}

// shutdownHTTP lets requests in progress finish, at most httpShutdownTimeout.
func (s *Server) shutdownHTTP() error {
	ctx, cancel := context.WithTimeout(context.Background(), httpShutdownTimeout)
	defer cancel()
	return s.http.Shutdown(ctx)
}
