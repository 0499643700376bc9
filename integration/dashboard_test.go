package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromium runs headless Chromium on url with extra (a mode such as --dump-dom) and returns its
// standard output. Virtual time lets the page's timers and fetches run to completion.
func chromium(t *testing.T, url string, extra ...string) string {
	t.Helper()
	bin := need(t, "chromium")
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=10000", "--window-size=1300,1000", "--hide-scrollbars",
	}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
	}
	return string(out)
}

var (
	chartDiv  = regexp.MustCompile(`<div id="([a-z]+)" class="chart"([^>]*)>`)
	attribute = regexp.MustCompile(`data-([a-z]+)="([^"]*)"`)
)

// TestDashboardInChromium loads /dashboard in a real headless browser during a simulated
// overload and checks that the charts were drawn with data, the overload among them, and the
// warnings marked; it takes a screenshot (kept at $OVERLOADSQL_SCREENSHOT when set).
func TestDashboardInChromium(t *testing.T) {
	httpAddr := freePort(t)
	s := startServer(t, serverOptions{
		top: fmt.Sprintf("http_listen = %q\nmin_os_cpu_wait_time_ratio_to_drop_connection = 1\nmax_os_cpu_wait_time_ratio_to_drop_connection = 4\n", httpAddr),
		sections: "[resource_overload_warnings]\ncpu_overload_duration_seconds = 1\n\n" +
			"[[users]]\nname = \"default\"\nadmin = true\n\n[[users]]\nname = \"ops\"\nadmin = true\npassword = \"s3cret\"\n",
	})
	base := "http://" + httpAddr
	if code, _ := httpGet(t, base+"/dashboard", "", ""); code != 401 {
		t.Fatalf("/dashboard without credentials = %d, want 401", code)
	}
	if code, _ := httpGet(t, base+"/dashboard", "ops", "wrong"); code != 401 {
		t.Fatalf("/dashboard with a wrong password = %d, want 401", code)
	}

	// Traffic before and during the overload: statements (some rejected) and new connections
	// (some dropped).
	stop := dashboardTraffic(t, s)
	defer stop()
	eventually(t, 10*time.Second, "three frames of history", func() (bool, string) {
		got := queryStrings(t, s.adminDB(), "SELECT COUNT(*) FROM system.asynchronous_metric_log WHERE metric = 'Uptime'")
		n, _ := strconv.Atoi(got[0])
		return n >= 3, got[0]
	})
	admin := s.adminDB()
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 3")
	mustExec(t, admin, "SET GLOBAL simulated_cpu_busy_ratio = 0.95")
	eventually(t, 10*time.Second, "the CPU warning and rejections in the history", func() (bool, string) {
		w := queryStrings(t, admin, "SELECT resource FROM system.warning_log WHERE resource = 'cpu' AND event = 'raised'")
		r := queryStrings(t, admin, "SELECT SUM(value) FROM system.metric_log WHERE metric = 'ProfileEvent_OverloadRejectedQueries'")
		n, _ := strconv.ParseFloat(r[0], 64)
		return len(w) > 0 && n > 0, fmt.Sprint(w, r)
	})

	page := base + "/dashboard"
	dom := chromium(t, strings.Replace(page, "http://", "http://ops:s3cret@", 1), "--dump-dom")
	charts := map[string]map[string]string{} // chart → its data-* attributes
	for _, m := range chartDiv.FindAllStringSubmatch(dom, -1) {
		attrs := map[string]string{}
		for _, a := range attribute.FindAllStringSubmatch(m[2], -1) {
			attrs[a[1]] = a[2]
		}
		charts[m[1]] = attrs
	}
	for _, id := range []string{"overload", "cpu", "memory", "statements", "shedding", "running"} {
		c, ok := charts[id]
		if !ok {
			t.Errorf("chart %s was not drawn; page:\n%s", id, dom)
			continue
		}
		if points, _ := strconv.Atoi(c["points"]); points == 0 || c["series"] == "0" {
			t.Errorf("chart %s holds no data: %d points of %s series", id, points, c["series"])
		}
	}
	if c := charts["overload"]; c != nil && c["last"] != "3" {
		t.Errorf("the overload chart ends at %q, want the simulated 3", c["last"])
	}
	if c := charts["shedding"]; c != nil && c["last"] == "0" {
		t.Errorf("the rejections and drops chart ends at 0 during the overload")
	}
	if m := regexp.MustCompile(`data-warning-marks="(\d+)"`).FindStringSubmatch(dom); m == nil || m[1] == "0" {
		t.Errorf("no warning marks on the charts")
	}
	if !strings.Contains(dom, "cpu raised: High CPU usage") {
		t.Errorf("the CPU warning is not listed on the page")
	}

	shot := filepath.Join(t.TempDir(), "dashboard.png")
	chromium(t, strings.Replace(page, "http://", "http://ops:s3cret@", 1), "--screenshot="+shot)
	info, err := os.Stat(shot)
	if err != nil || info.Size() < 10_000 {
		t.Fatalf("screenshot: %v (%v bytes)", err, info)
	}
	if keep := os.Getenv("OVERLOADSQL_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// dashboardTraffic runs statements in a session that sheds at overload 1..5, and opens a new
// connection every 100 ms, until stopped (at most a minute).
func dashboardTraffic(t *testing.T, s *testServer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	var wg sync.WaitGroup
	db := s.db()
	wg.Add(2)
	go func() {
		defer wg.Done()
		conn, err := db.Conn(ctx)
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = conn.ExecContext(ctx, "SET min_os_cpu_wait_time_ratio_to_throw = 1, max_os_cpu_wait_time_ratio_to_throw = 5")
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for ctx.Err() == nil {
			var one int
			_ = conn.QueryRowContext(ctx, "SELECT 1").Scan(&one)
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for ctx.Err() == nil {
			fresh := s.open("default", "", s.addr)
			_ = fresh.PingContext(ctx)
			fresh.Close()
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// TestDashboardPasswordGuessingIsSlowedDown: failed basic auth on /dashboard counts like failed
// MySQL logins (connection_control_*): past the threshold, every answer to that address waits.
func TestDashboardPasswordGuessingIsSlowedDown(t *testing.T) {
	s, base := startHTTPServer(t, "connection_control_failed_connections_threshold = 2\n"+
		"connection_control_min_connection_delay = 1000\nconnection_control_max_connection_delay = 2000\n")
	for range 2 {
		if code, _ := httpGet(t, base+"/dashboard", "default", "guess"); code != 401 {
			t.Fatalf("wrong password: %d, want 401", code)
		}
	}
	start := time.Now()
	code, _ := httpGet(t, base+"/dashboard", "default", "guess")
	if waited := time.Since(start); code != 401 || waited < time.Second {
		t.Fatalf("third wrong password: %d after %v, want 401 after at least 1 s", code, waited)
	}
	if got := queryStrings(t, s.adminDB(), "SELECT value FROM system.events WHERE event = 'DelayedLogins'"); len(got) != 1 || got[0] == "0" {
		t.Errorf("DelayedLogins = %v, want the delayed answer counted", got)
	}
	// The right password still gets in (after the wait), and ends the delays of the address.
	if code, _ := httpGet(t, base+"/dashboard", "default", ""); code != 200 {
		t.Fatalf("right password: %d, want 200", code)
	}
	before := queryStrings(t, s.adminDB(), "SELECT value FROM system.events WHERE event = 'DelayedLogins'")
	if code, _ := httpGet(t, base+"/dashboard", "default", ""); code != 200 {
		t.Fatalf("right password again: %d, want 200", code)
	}
	if after := queryStrings(t, s.adminDB(), "SELECT value FROM system.events WHERE event = 'DelayedLogins'"); after[0] != before[0] {
		t.Errorf("a request after a success was delayed: DelayedLogins %v → %v", before, after)
	}
}
