package server

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"overloadsql/httpapi"
	"overloadsql/overload"
	"overloadsql/server/config"
	"overloadsql/server/memlimit"
	"overloadsql/server/userlock"
	"overloadsql/server/wire"
	"overloadsql/warnings"
)

// observedServer is a Server with what /metrics and the history read: a sampled snapshot,
// counters, two current warnings, and an hour of history.
func observedServer(b *testing.B) *Server {
	b.Helper()
	s := &Server{registry: warnings.NewRegistry(), started: time.Now(), gate: &wire.Gate{}, logger: slog.New(slog.DiscardHandler), sessionAccounts: memlimit.NewAccounts(), userLocks: userlock.New()}
	cfg := config.Default()
	s.cfg.Store(cfg)
	s.recorder = newRecorder(cfg.MetricLogRetention)
	s.sampler = overload.NewSampler(overload.Config{Logger: s.logger})
	b.Cleanup(s.sampler.Close)
	s.sampler.Sample()
	now := time.Now()
	s.registry.Raise(now, warnings.Warning{Key: "cpu", Resource: "cpu", Message: "High CPU usage", Value: 0.95})
	s.registry.Raise(now, warnings.Warning{Key: "simulation", Resource: "simulation", Message: "Overload simulation is active", Value: 1})
	return s
}

// BenchmarkScrape is one GET /metrics: every system table row, the Go and process collectors,
// encoded.
func BenchmarkScrape(b *testing.B) {
	s := observedServer(b)
	api, err := httpapi.Listen("127.0.0.1:0", httpapi.Options{State: httpState{s}, Logger: s.logger})
	if err != nil {
		b.Fatal(err)
	}
	defer api.Close()
	h := api.Handler()
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
		_, _ = io.Copy(io.Discard, rec.Body)
	}
}

// BenchmarkHistorySample is one frame of history: reading the three tables' rows and
// recording them, as the sampler does once per asynchronous_metrics_update_period_s.
func BenchmarkHistorySample(b *testing.B) {
	s := observedServer(b)
	at := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(time.Second)
		s.recordFrame(at)
	}
}
