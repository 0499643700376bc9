package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"overloadsql/overload"
	"overloadsql/warnings"

	"golang.org/x/net/netutil"
)

// State is the server's live state as the endpoints read it, on every request.
type State interface {
	// AsynchronousMetrics, Events and Gauges are the rows of system.asynchronous_metrics,
	// system.events and system.metrics.
	AsynchronousMetrics() []overload.Metric
	Events() []overload.Event
	Gauges() []overload.Metric
	// Workloads are the values of system.workloads, one per workload and column of
	// WorkloadNames.
	Workloads() []WorkloadValue
	// Histograms are the distributions of HistogramNames (absent ones are not exported).
	Histograms() []Histogram
	// Warnings are the rows of system.warnings.
	Warnings() []warnings.Warning
	// Readiness says whether a new connection to the MySQL listener would be accepted now, and
	// if not, why, in one line.
	Readiness() (ready bool, reason string)
}

// Limits of the listener. Every phase of a request has a deadline, so a slow or idle client
// holds a connection for a bounded time, and the number of connections is bounded.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 16 << 10
	maxConnections    = 64
	scrapeTimeout     = 10 * time.Second
)

// Options are what a Server serves.
type Options struct {
	State  State
	Logger *slog.Logger
	// Metrics and Warnings are the history behind /history and /dashboard, kept for Retention;
	// without them those endpoints are not served. Authenticate guards them.
	Metrics      MetricHistory
	Warnings     WarningHistory
	Retention    time.Duration
	Authenticate Authenticate
}

// Server is the HTTP listener.
type Server struct {
	listener net.Listener
	http     *http.Server
	logger   *slog.Logger
}

// Listen binds addr and prepares the endpoints; Serve serves them.
func Listen(addr string, o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	mux := http.NewServeMux()
	metrics, err := metricsHandler(o.State, o.Logger)
	if err != nil {
		return nil, fmt.Errorf("register metrics: %w", err)
	}
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /ping", ping)
	mux.Handle("GET /ready", ready{o.State})
	if o.Metrics != nil && o.Warnings != nil {
		page, err := dashboardPage()
		if err != nil {
			return nil, fmt.Errorf("dashboard: %w", err)
		}
		mux.Handle("GET /dashboard", admin(o.Authenticate, page))
		mux.Handle("GET /dashboard/", dashboardAssets())
		mux.Handle("GET /history", admin(o.Authenticate, historyHandler{
			metrics: o.Metrics, warnings: o.Warnings, retention: o.Retention, now: time.Now,
		}))
	}

	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (http_listen): %w", addr, err)
	}
	return &Server{
		listener: netutil.LimitListener(l, maxConnections),
		logger:   o.Logger,
		http: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: readHeaderTimeout,
			ReadTimeout:       readTimeout,
			WriteTimeout:      writeTimeout,
			IdleTimeout:       idleTimeout,
			MaxHeaderBytes:    maxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
		},
	}, nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// Handler is the request router, for benchmarks and tests that serve it themselves.
func (s *Server) Handler() http.Handler { return s.http.Handler }

// Serve serves until Shutdown; it returns nil then.
func (s *Server) Serve() error {
	if err := s.http.Serve(s.listener); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve http: %w", err)
	}
	return nil
}

// Shutdown stops accepting, lets requests in progress finish until ctx is done, then closes.
func (s *Server) Shutdown(ctx context.Context) error {
	defer s.listener.Close() // in case Serve never ran
	if err := s.http.Shutdown(ctx); err != nil {
		s.http.Close()
		return fmt.Errorf("shut down http: %w", err)
	}
	return nil
}

// Close closes the listener of a Server that never served.
func (s *Server) Close() error { return s.listener.Close() }

func ping(w http.ResponseWriter, _ *http.Request) {
	plain(w, http.StatusOK, "Ok.")
}

// ready answers load balancers: 200 while a new connection would be accepted, 503 with the
// reason otherwise.
type ready struct{ state State }

func (r ready) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if ok, reason := r.state.Readiness(); !ok {
		plain(w, http.StatusServiceUnavailable, reason)
		return
	}
	plain(w, http.StatusOK, "Ok.")
}

func plain(w http.ResponseWriter, status int, line string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(line + "\n"))
}
