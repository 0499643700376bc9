package server

import (
	"strings"
	"time"

	"overloadsql/history"
	"overloadsql/overload"
	"overloadsql/warnings"
)

// Prefixes of the names of system.metric_log, as in ClickHouse's metric_log.
const (
	profileEventPrefix  = "ProfileEvent_"
	currentMetricPrefix = "CurrentMetric_"
)

// recorder writes the server's figures into the history once per
// asynchronous_metrics_update_period_s. Only the sampler's goroutine calls record.
type recorder struct {
	metrics  *history.Metrics
	warnings *history.Warnings
	last     time.Time
	values   []history.Value // reused frame buffer
	// event and gauge names with their prefix, built once per name
	eventNames, gaugeNames map[string]string
}

func newRecorder(retention time.Duration) *recorder {
	return &recorder{
		metrics:    history.NewMetrics(retention),
		warnings:   history.NewWarnings(retention),
		values:     make([]history.Value, 0, history.MaxNames),
		eventNames: make(map[string]string),
		gaugeNames: make(map[string]string),
	}
}

// observeWarning is the registry's observer: every change of a shown warning goes to
// system.warning_log.
func (r *recorder) observeWarning(at time.Time, c warnings.Change, w warnings.Warning) {
	e := history.Updated
	switch c {
	case warnings.Raised:
		e = history.Raised
	case warnings.Cleared:
		e = history.Cleared
	}
	r.warnings.Add(history.WarningEvent{At: at, Key: w.Key, Resource: w.Resource, Event: e, Message: w.Message, Value: w.Value})
}

// due reports whether a frame is due at now: one per period, with half a sample interval of
// tolerance so timer jitter does not skip a period.
func (r *recorder) due(now time.Time, period, interval time.Duration) bool {
	return r.last.IsZero() || now.Sub(r.last) >= period-interval/2
}

// prefixed returns prefix+name from names, built on first use.
func prefixed(names map[string]string, prefix, name string) string {
	full, ok := names[name]
	if !ok {
		full = prefix + name
		names[name] = full
	}
	return full
}

// recordHistory records a frame when one is due.
func (s *Server) recordHistory(snap *overload.Snapshot) {
	cfg := s.cfg.Load()
	r := s.recorder
	if !r.due(snap.Time, cfg.AsynchronousMetricsUpdatePeriod, cfg.OverloadSampleInterval) {
		return
	}
	r.last = snap.Time
	s.recordFrame(snap.Time)
}

func (s *Server) recordFrame(at time.Time) {
	r := s.recorder
	vs := r.values[:0]
	for _, m := range s.asynchronousMetrics() {
		vs = append(vs, history.Value{Name: m.Name, Value: m.Value})
	}
	for _, e := range s.events() {
		vs = append(vs, history.Value{Name: prefixed(r.eventNames, profileEventPrefix, e.Name), Value: float64(e.Value), Counter: true})
	}
	for _, g := range s.gauges() {
		vs = append(vs, history.Value{Name: prefixed(r.gaugeNames, currentMetricPrefix, g.Name), Value: float64(g.Value)})
	}
	r.values = vs
	for _, name := range r.metrics.Record(at, vs) {
		s.logger.Warn("history is full of names; this one is not recorded", "metric", name, "max", history.MaxNames)
	}
}

// asynchronousMetricLog and metricLog are the rows of the two history tables.
func (s *Server) asynchronousMetricLog() []history.Point {
	return s.recorder.metrics.Points(time.Now(), func(name string) bool { return !isMetricLogName(name) })
}

func (s *Server) metricLog() []history.Point {
	return s.recorder.metrics.Points(time.Now(), isMetricLogName)
}

func isMetricLogName(name string) bool {
	return strings.HasPrefix(name, profileEventPrefix) || strings.HasPrefix(name, currentMetricPrefix)
}

func (s *Server) warningLog() []history.WarningEvent {
	return s.recorder.warnings.Events(time.Now(), s.cfg.Load().MetricLogRetention)
}
