package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"overloadsql/httpapi"
)

func TestPingAndReady(t *testing.T) {
	s, base := startHTTPServer(t, "min_os_cpu_wait_time_ratio_to_drop_connection = 1\nmax_os_cpu_wait_time_ratio_to_drop_connection = 2\n")
	if code, body := httpGet(t, base+"/ping", "", ""); code != 200 || body != "Ok.\n" {
		t.Fatalf("/ping = %d %q", code, body)
	}
	if code, body := httpGet(t, base+"/ready", "", ""); code != 200 || body != "Ok.\n" {
		t.Fatalf("/ready while idle = %d %q", code, body)
	}
	admin := s.adminDB()
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 3")
	code, body := httpGet(t, base+"/ready", "", "")
	if code != 503 || !strings.HasPrefix(body, "CPU overloaded: OSCPUOverload 3 gives a connection drop probability of 1 ") ||
		strings.Count(body, "\n") != 1 {
		t.Fatalf("/ready while overloaded = %d %q, want 503 with a one-line reason", code, body)
	}
	// What /ready announced is what a client meets.
	if n := len(connectAttempts(t, s, 5)); n != 5 {
		t.Errorf("/ready said 503 but %d of 5 connections were dropped", n)
	}
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = -1")
	if code, _ := httpGet(t, base+"/ready", "", ""); code != 200 {
		t.Fatalf("/ready after the overload = %d, want 200", code)
	}

	mustExec(t, admin, "SET GLOBAL max_connections = 1")
	held := s.open("default", "", s.addr)
	defer held.Close()
	held.SetMaxOpenConns(1)
	if err := held.Ping(); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, base+"/ready", "", ""); code != 503 || !strings.HasPrefix(body, "max_connections reached") {
		t.Fatalf("/ready at max_connections = %d %q", code, body)
	}
}

// TestMetricsPassPromtool checks /metrics with Prometheus's own linter and that every row of the
// three tables is there under its mapped name.
func TestMetricsPassPromtool(t *testing.T) {
	promtool := need(t, "promtool")
	s, base := startHTTPServer(t, "")
	admin := s.adminDB()
	mustExec(t, admin, "SET GLOBAL simulated_cpu_busy_ratio = 0.5") // a warning, for the warning series
	eventually(t, 10*time.Second, "the simulation warning", func() (bool, string) {
		got := queryStrings(t, admin, "SELECT resource FROM system.warnings")
		return len(got) > 0, strings.Join(got, ",")
	})
	code, body := httpGet(t, base+"/metrics", "", "")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}

	exported := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		if name, _, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, "#") {
			exported[name] = true
		}
	}
	for _, table := range []string{"asynchronous_metrics", "events", "metrics"} {
		col := "metric"
		if table == "events" {
			col = "event"
		}
		for _, row := range queryStrings(t, admin, "SELECT "+col+" FROM system."+table) {
			name, ok := httpapi.Lookup(table, row)
			if !ok {
				t.Errorf("system.%s %s has no entry in the name table", table, row)
			}
			if !exported[name.Prometheus] {
				t.Errorf("system.%s %s is not on /metrics as %s", table, row, name.Prometheus)
			}
		}
	}
	for _, want := range []string{`overloadsql_warning{resource="simulation"}`, "go_goroutines", "process_cpu_seconds_total"} {
		if !exported[want] {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// prometheus is a Prometheus server started for one test.
type prometheusServer struct{ base string }

// startPrometheus runs a real Prometheus that scrapes target (host:port) every second, with its
// storage in a temporary directory.
func startPrometheus(t *testing.T, target string) prometheusServer {
	t.Helper()
	bin := need(t, "prometheus")
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: overloadsql
    static_configs:
      - targets: [%q]
`, target)
	path := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	startTool(t, "prometheus", bin, "--config.file="+path, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	p := prometheusServer{base: "http://" + addr}
	eventually(t, 30*time.Second, "prometheus ready", func() (bool, string) {
		resp, err := http.Get(p.base + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})
	return p
}

// query runs an instant query and returns the value of each series by the given label
// ("" = the only series).
func (p prometheusServer) query(t *testing.T, q, label string) map[string]float64 {
	t.Helper()
	code, body := httpGet(t, p.base+"/api/v1/query?query="+url.QueryEscape(q), "", "")
	if code != 200 {
		t.Fatalf("query %s: %d %s", q, code, body)
	}
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, body)
	}
	out := map[string]float64{}
	for _, s := range r.Data.Result {
		text, _ := s.Value[1].(string)
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("query %s: value %v", q, s.Value[1])
		}
		out[s.Metric[label]] = v
	}
	return out
}

// TestPrometheusScrapesOverload: a real Prometheus scrapes a running server; an overload
// simulated on the server is read back through Prometheus's HTTP API.
func TestPrometheusScrapesOverload(t *testing.T) {
	s, base := startHTTPServer(t, "")
	prom := startPrometheus(t, strings.TrimPrefix(base, "http://"))
	eventually(t, 30*time.Second, "the target is up", func() (bool, string) {
		up := prom.query(t, `up{job="overloadsql"}`, "")
		return up[""] == 1, fmt.Sprint(up)
	})
	mustExec(t, s.adminDB(), "SET GLOBAL simulated_os_cpu_overload = 3")
	eventually(t, 30*time.Second, "Prometheus sees the overload", func() (bool, string) {
		got := prom.query(t, "overloadsql_os_cpu_overload_ratio", "")
		return got[""] == 3, fmt.Sprint(got)
	})
	eventually(t, 30*time.Second, "Prometheus sees the simulation warning", func() (bool, string) {
		got := prom.query(t, "overloadsql_warning", "resource")
		return got["simulation"] == 1, fmt.Sprint(got)
	})
	// A counter: Prometheus computes a rate from it.
	db := s.db()
	for range 20 {
		mustExec(t, db, "SELECT 1")
	}
	eventually(t, 30*time.Second, "Prometheus counts the statements", func() (bool, string) {
		got := prom.query(t, "overloadsql_queries_total", "")
		return got[""] >= 20, fmt.Sprint(got)
	})
}
