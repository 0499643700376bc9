package integration

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// identify opens a new connection to addr and returns the listen address of the server that
// answered it ("" and the error when the connection failed).
func identify(t *testing.T, s *testServer, addr string) (string, error) {
	t.Helper()
	db := s.open("default", "", addr)
	defer db.Close()
	var listen string
	err := db.QueryRow("SELECT value FROM system.server_settings WHERE name = 'listen'").Scan(&listen)
	return listen, err
}

// TestHAProxyRoutesAroundOverload runs docs/haproxy.cfg with two servers: when one is overloaded,
// its /ready says 503, and within 3 s every new connection through HAProxy lands on the other;
// once the overload ends, the first takes connections again.
func TestHAProxyRoutesAroundOverload(t *testing.T) {
	bin := need(t, "haproxy")
	const drop = "min_os_cpu_wait_time_ratio_to_drop_connection = 1\nmax_os_cpu_wait_time_ratio_to_drop_connection = 2\n"
	a, baseA := startHTTPServer(t, drop)
	b, baseB := startHTTPServer(t, drop)

	recipe, err := os.ReadFile("../docs/haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	front := freePort(t)
	cfg := string(recipe)
	for _, r := range []struct{ old, new string }{
		{"bind 127.0.0.1:3306", "bind " + front},
		{"127.0.0.1:9004 check port 9363", a.addr + " check port " + portOf(baseA)},
		{"127.0.0.1:9104 check port 9463", b.addr + " check port " + portOf(baseB)},
	} {
		if strings.Count(cfg, r.old) != 1 {
			t.Fatalf("docs/haproxy.cfg no longer has %q once", r.old)
		}
		cfg = strings.Replace(cfg, r.old, r.new, 1)
	}
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	startTool(t, "haproxy", bin, "-db", "-f", path)

	// Both servers take connections.
	seen := map[string]int{}
	eventually(t, 20*time.Second, "connections through HAProxy reach both servers", func() (bool, string) {
		if who, err := identify(t, a, front); err == nil {
			seen[who]++
		}
		return seen[a.addr] > 0 && seen[b.addr] > 0, fmt.Sprint(seen)
	})

	mustExec(t, a.adminDB(), "SET GLOBAL simulated_os_cpu_overload = 3")
	onset := time.Now()
	if code, _ := httpGet(t, baseA+"/ready", "", ""); code != 503 {
		t.Fatalf("/ready of the overloaded server = %d, want 503", code)
	}
	// Connections until 3 s after the onset may still meet the overloaded server (and its
	// 1040); from then on, every one must land on the other.
	var lastOnA time.Duration
	for time.Since(onset) < 3*time.Second {
		if who, err := identify(t, a, front); err != nil || who == a.addr {
			lastOnA = time.Since(onset)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := range 40 {
		who, err := identify(t, a, front)
		if err != nil || who != b.addr {
			t.Fatalf("connection %d through HAProxy 3 s after the overload: server %q, err %v; want %s", i, who, err, b.addr)
		}
	}
	t.Logf("last connection that met the overloaded server: %v after the onset", lastOnA.Round(time.Millisecond))

	mustExec(t, a.adminDB(), "SET GLOBAL simulated_os_cpu_overload = -1")
	back := time.Now()
	eventually(t, 20*time.Second, "the first server takes connections again", func() (bool, string) {
		who, err := identify(t, a, front)
		return err == nil && who == a.addr, fmt.Sprint(who, err)
	})
	t.Logf("first connection on the recovered server: %v after the overload ended", time.Since(back).Round(time.Millisecond))
}

func portOf(base string) string {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	return port
}
