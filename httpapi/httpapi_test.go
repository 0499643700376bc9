package httpapi

import (
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"overloadsql/overload"
	"overloadsql/warnings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

var update = flag.Bool("update", false, "rewrite docs/metrics.md from the Names table")

// fakeState is a server with fixed rows.
type fakeState struct {
	metrics   []overload.Metric
	events    []overload.Event
	gauges    []overload.Metric
	warnings  []warnings.Warning
	workloads []WorkloadValue
	hists     []Histogram
	ready     bool
	reason    string
}

func (f *fakeState) AsynchronousMetrics() []overload.Metric { return f.metrics }
func (f *fakeState) Events() []overload.Event               { return f.events }
func (f *fakeState) Gauges() []overload.Metric              { return f.gauges }
func (f *fakeState) Warnings() []warnings.Warning           { return f.warnings }
func (f *fakeState) Workloads() []WorkloadValue             { return f.workloads }
func (f *fakeState) Readiness() (bool, string)              { return f.ready, f.reason }
func (f *fakeState) Histograms() []Histogram                { return f.hists }

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestNamesAreUniqueAndConventional(t *testing.T) {
	rows := map[descKey]bool{}
	prom := map[string]bool{}
	for _, n := range Names {
		k := descKey{n.Table, n.SQL}
		if rows[k] {
			t.Errorf("system.%s %s is mapped twice", n.Table, n.SQL)
		}
		rows[k] = true
		if prom[n.Prometheus] {
			t.Errorf("%s is the name of two rows", n.Prometheus)
		}
		prom[n.Prometheus] = true
		if !strings.HasPrefix(n.Prometheus, prefix) || n.Prometheus != strings.ToLower(n.Prometheus) {
			t.Errorf("%s: want lower snake case with the %s prefix", n.Prometheus, prefix)
		}
		if counter := n.Table == tableEvents; counter != strings.HasSuffix(n.Prometheus, "_total") {
			t.Errorf("%s: counters, and only counters, end in _total", n.Prometheus)
		}
		if strings.Contains(n.SQL, "Microseconds") && n.Scale != microToSecond {
			t.Errorf("%s: microseconds must be exported as seconds", n.SQL)
		}
	}
}

func TestDerive(t *testing.T) {
	tests := []struct {
		table, sql, want string
		scale            float64
	}{
		// The rule cannot split runs of capitals (OS, CPU): that is what the table is for.
		{tableEvents, "OSCPUWaitMicroseconds", "overloadsql_oscpu_wait_seconds_total", microToSecond},
		{tableEvents, "PacketTooLargeConnections", "overloadsql_packet_too_large_connections_total", 1},
		{tableMetrics, "MySQLConnection", "overloadsql_my_sql_connection", 1},
		{tableAsynchronousMetrics, "PSICPUSomeAvg10", "overloadsql_psicpu_some_avg10", 1},
		{tableAsynchronousMetrics, "Uptime", "overloadsql_uptime", 1},
	}
	for _, tt := range tests {
		got := derive(tt.table, tt.sql)
		if got.Prometheus != tt.want || got.Scale != tt.scale {
			t.Errorf("derive(%s, %s) = %s x%g, want %s x%g", tt.table, tt.sql, got.Prometheus, got.Scale, tt.want, tt.scale)
		}
	}
}

// TestNamesDocument keeps docs/metrics.md equal to what the table generates.
func TestNamesDocument(t *testing.T) {
	const path = "../docs/metrics.md"
	want := NamesMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./httpapi -run TestNamesDocument -update", path)
	}
}

func TestCollectorExportsLiveRows(t *testing.T) {
	state := &fakeState{
		metrics: []overload.Metric{{Name: "OSCPUOverload", Value: 2.5, Description: "ratio"}, {Name: "PSICPUSomeAvg10", Value: 40}},
		events:  []overload.Event{{Name: "OSCPUWaitMicroseconds", Value: 1_500_000}, {Name: "Query", Value: 7}, {Name: "BrandNewThing", Value: 3}},
		gauges:  []overload.Metric{{Name: "Query", Value: 2}},
		workloads: []WorkloadValue{{Workload: "web", SQL: "queued", Value: 3}, {Workload: "etl", SQL: "queued", Value: 1},
			{Workload: "web", SQL: "cpu_time_us", Value: 2_500_000}, {Workload: "web", SQL: "name"}},
		warnings: []warnings.Warning{
			{Key: "cpu", Resource: "cpu"},
			{Key: "unavailable:a", Resource: "overload"},
			{Key: "unavailable:b", Resource: "overload"},
		},
	}
	c := newCollector(state, discard())
	want := `
# HELP overloadsql_os_cpu_overload_ratio ratio (system.asynchronous_metrics OSCPUOverload)
# TYPE overloadsql_os_cpu_overload_ratio gauge
overloadsql_os_cpu_overload_ratio 2.5
# HELP overloadsql_psi_cpu_some_avg10_ratio system.asynchronous_metrics PSICPUSomeAvg10
# TYPE overloadsql_psi_cpu_some_avg10_ratio gauge
overloadsql_psi_cpu_some_avg10_ratio 0.4
# HELP overloadsql_os_cpu_wait_seconds_total system.events OSCPUWaitMicroseconds
# TYPE overloadsql_os_cpu_wait_seconds_total counter
overloadsql_os_cpu_wait_seconds_total 1.5
# HELP overloadsql_queries_total system.events Query
# TYPE overloadsql_queries_total counter
overloadsql_queries_total 7
# HELP overloadsql_brand_new_thing_total system.events BrandNewThing
# TYPE overloadsql_brand_new_thing_total counter
overloadsql_brand_new_thing_total 3
# HELP overloadsql_running_queries system.metrics Query
# TYPE overloadsql_running_queries gauge
overloadsql_running_queries 2
# HELP overloadsql_workload_queued_statements system.workloads queued of each workload.
# TYPE overloadsql_workload_queued_statements gauge
overloadsql_workload_queued_statements{workload="etl"} 1
overloadsql_workload_queued_statements{workload="web"} 3
# HELP overloadsql_workload_cpu_seconds_total system.workloads cpu_time_us of each workload.
# TYPE overloadsql_workload_cpu_seconds_total counter
overloadsql_workload_cpu_seconds_total{workload="web"} 2.5
# HELP overloadsql_warning 1 for every resource with a warning in system.warnings.
# TYPE overloadsql_warning gauge
overloadsql_warning{resource="cpu"} 1
overloadsql_warning{resource="overload"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	// The collector keeps nothing: the next scrape shows the state of then.
	state.metrics[0].Value = 0.5
	state.warnings = nil
	if got := testutil.ToFloat64(onlyMetric(c, "overloadsql_os_cpu_overload_ratio")); got != 0.5 {
		t.Errorf("second scrape: overload = %v, want 0.5", got)
	}
	if n := testutil.CollectAndCount(c, warningMetric); n != 0 {
		t.Errorf("second scrape: %d warning series, want 0", n)
	}
}

// Histograms of HistogramNames are exported with their buckets; an unknown one is not.
func TestCollectorExportsHistograms(t *testing.T) {
	state := &fakeState{hists: []Histogram{
		{SQL: "StorageWALFsync", Description: "syncs", Count: 5, Sum: 0.012, Bounds: []float64{0.001, 0.01}, Buckets: []uint64{3, 4}},
		{SQL: "NotListed", Count: 1, Sum: 1, Bounds: []float64{1}, Buckets: []uint64{1}},
	}}
	c := newCollector(state, discard())
	want := `
# HELP overloadsql_storage_wal_fsync_duration_seconds syncs
# TYPE overloadsql_storage_wal_fsync_duration_seconds histogram
overloadsql_storage_wal_fsync_duration_seconds_bucket{le="0.001"} 3
overloadsql_storage_wal_fsync_duration_seconds_bucket{le="0.01"} 4
overloadsql_storage_wal_fsync_duration_seconds_bucket{le="+Inf"} 5
overloadsql_storage_wal_fsync_duration_seconds_sum 0.012
overloadsql_storage_wal_fsync_duration_seconds_count 5
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "overloadsql_storage_wal_fsync_duration_seconds"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(c); n != 1 {
		t.Errorf("%d series, want 1: a histogram without a name is not exported", n)
	}
}

// onlyMetric is a collector of c's one series called name.
func onlyMetric(c prometheus.Collector, name string) prometheus.Collector {
	return filtered{c, name}
}

type filtered struct {
	c    prometheus.Collector
	name string
}

func (f filtered) Describe(chan<- *prometheus.Desc) {}
func (f filtered) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric)
	go func() { f.c.Collect(all); close(all) }()
	for m := range all {
		if strings.Contains(m.Desc().String(), `"`+f.name+`"`) {
			ch <- m
		}
	}
}

// TestEveryNameLints runs the Prometheus linter over a scrape that holds every mapped row.
func TestEveryNameLints(t *testing.T) {
	state := &fakeState{}
	for _, n := range Names {
		switch n.Table {
		case tableAsynchronousMetrics:
			state.metrics = append(state.metrics, overload.Metric{Name: n.SQL, Value: 1, Description: "d"})
		case tableEvents:
			state.events = append(state.events, overload.Event{Name: n.SQL, Value: 1, Description: "d"})
		case tableMetrics:
			state.gauges = append(state.gauges, overload.Metric{Name: n.SQL, Value: 1, Description: "d"})
		}
	}
	state.warnings = []warnings.Warning{{Key: "cpu", Resource: "cpu"}}
	problems, err := testutil.CollectAndLint(newCollector(state, discard()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestEndpoints(t *testing.T) {
	state := &fakeState{ready: true, metrics: []overload.Metric{{Name: "OSCPUOverload", Value: 1}}}
	srv, err := Listen("127.0.0.1:0", Options{State: state, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.http.Handler)
	defer ts.Close()
	defer srv.Close()

	tests := []struct {
		name, method, path string
		ready              bool
		reason             string
		status             int
		body               string // substring
	}{
		{"ping", "GET", "/ping", true, "", 200, "Ok.\n"},
		{"ping while not ready", "GET", "/ping", false, "x", 200, "Ok.\n"},
		{"ready", "GET", "/ready", true, "", 200, "Ok.\n"},
		{"not ready", "GET", "/ready", false, "CPU overloaded: because", 503, "CPU overloaded: because\n"},
		{"metrics", "GET", "/metrics", true, "", 200, "overloadsql_os_cpu_overload_ratio 1\n"},
		{"HEAD of ready", "HEAD", "/ready", false, "r", 503, ""},
		{"POST is not allowed", "POST", "/ready", true, "", 405, ""},
		{"unknown path", "GET", "/nope", true, "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state.ready, state.reason = tt.ready, tt.reason
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, nil)
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.body) {
				t.Errorf("%s %s = %d %q, want %d with %q", tt.method, tt.path, resp.StatusCode, body, tt.status, tt.body)
			}
		})
	}
}

func TestServerLimits(t *testing.T) {
	srv, err := Listen("127.0.0.1:0", Options{State: &fakeState{}, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	h := srv.http
	if h.ReadHeaderTimeout <= 0 || h.ReadTimeout <= 0 || h.WriteTimeout <= 0 || h.IdleTimeout <= 0 || h.MaxHeaderBytes <= 0 {
		t.Errorf("every phase needs a limit: %+v", h)
	}
}
