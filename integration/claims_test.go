package integration

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of what README.md and docs/ promise and no other test checked.

// waitExit waits for the server process to end and returns how long it took.
func waitExit(t *testing.T, s *testServer, from time.Time, within time.Duration) time.Duration {
	t.Helper()
	select {
	case <-s.proc.Exited():
		return time.Since(from)
	case <-time.After(within):
		t.Fatalf("the server did not exit within %v", within)
		return 0
	}
}

// TestShutdownTimeoutBoundsTheWait: on SIGTERM a statement that runs on is waited for at most
// shutdown_timeout_s, then the server says so in its log and exits 0.
func TestShutdownTimeoutBoundsTheWait(t *testing.T) {
	s := startServer(t, serverOptions{top: "shutdown_timeout_s = 1\n"})
	admin := s.adminDB()
	go func() {
		_, _ = s.db().Exec("SELECT SLEEP(60)") // ends with the server
	}()
	eventually(t, 15*time.Second, "the long statement running", func() (bool, string) {
		n, _ := strconv.Atoi(gauge(t, admin, "Query")) // the asking statement counts too
		return n >= 2, strconv.Itoa(n)
	})
	sent := time.Now()
	if err := s.proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	took := waitExit(t, s, sent, 30*time.Second)
	if took < time.Second || took > 15*time.Second {
		t.Errorf("exit %v after SIGTERM with a statement running and shutdown_timeout_s = 1; want about 1 s", took)
	}
	if err := s.proc.ExitErr(); err != nil {
		t.Errorf("exit: %v, want code 0", err)
	}
	if log := s.log.String(); !strings.Contains(log, "1 statement(s) still running") {
		t.Errorf("the log does not say a statement was still running:\n%s", log)
	}
}

// TestSIGINTStopsTheServer: SIGINT stops the server like SIGTERM: exit code 0, "stopped".
func TestSIGINTStopsTheServer(t *testing.T) {
	s := startServer(t, serverOptions{})
	sent := time.Now()
	if err := s.proc.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, s, sent, 30*time.Second)
	if err := s.proc.ExitErr(); err != nil {
		t.Errorf("exit after SIGINT: %v, want code 0", err)
	}
	if log := s.log.String(); !strings.Contains(log, "signal=interrupt") || !strings.Contains(log, "msg=stopped") {
		t.Errorf("the log does not show a stop on SIGINT:\n%s", log)
	}
}

// TestDefaultConfigIsTheWorkingDirectorys: without --config the server reads ./config.toml.
func TestDefaultConfigIsTheWorkingDirectorys(t *testing.T) {
	s := startServer(t, serverOptions{defaultConfig: true, top: "max_connections = 321\n"})
	if got := serverSetting(t, s.adminDB(), "max_connections"); got != "321" {
		t.Errorf("max_connections = %s, want 321 from ./config.toml", got)
	}
	if strings.Contains(strings.Join(s.proc.Args(), " "), "--config") {
		t.Fatalf("the server was started with --config: %q", s.proc.Args())
	}
}

// TestLogFormatJSON: with --log-format json every log line is a JSON object.
func TestLogFormatJSON(t *testing.T) {
	s := startServer(t, serverOptions{args: []string{"--log-format", "json"}})
	mustExec(t, s.adminDB(), "SYSTEM RELOAD CONFIG")
	eventually(t, 15*time.Second, "the reload logged", func() (bool, string) {
		return strings.Contains(s.log.String(), "config reloaded"), s.log.String()
	})
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(s.log.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON (%v): %s", err, line)
		}
		msg, _ := rec["msg"].(string)
		msgs = append(msgs, msg)
	}
	if got := strings.Join(msgs, "|"); !strings.Contains(got, "overloadsql ready") || !strings.Contains(got, "config reloaded") {
		t.Errorf("JSON log messages: %s", got)
	}
}

// TestSetPersistOnlyLeavesTheRunningValue: SET PERSIST_ONLY saves the value for the next start
// or reload and changes nothing now.
func TestSetPersistOnlyLeavesTheRunningValue(t *testing.T) {
	s := startServer(t, serverOptions{})
	admin := s.adminDB()
	mustExec(t, admin, "SET PERSIST_ONLY max_connections = 77")
	if got := serverSetting(t, admin, "max_connections"); got != "1024" {
		t.Errorf("running max_connections = %s after SET PERSIST_ONLY, want 1024", got)
	}
	if got := globalValue(t, admin, "max_connections"); got != "1024" {
		t.Errorf("@@GLOBAL.max_connections = %s after SET PERSIST_ONLY, want 1024", got)
	}
	mustExec(t, admin, "SYSTEM RELOAD CONFIG")
	if got := serverSetting(t, admin, "max_connections"); got != "77" {
		t.Errorf("max_connections = %s after a reload, want the persisted 77", got)
	}
}

// TestProtocolCommandsAreNeverRejected: with every statement rejected, COM_PING, COM_INIT_DB
// and COM_QUIT still work.
func TestProtocolCommandsAreNeverRejected(t *testing.T) {
	s := startServer(t, serverOptions{sections: "[settings]\nmin_os_cpu_wait_time_ratio_to_throw = 1\nmax_os_cpu_wait_time_ratio_to_throw = 2\n"})
	admin := s.adminDB()
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 10")
	db := s.db()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(context.Background(), "SELECT 1"); err == nil || mysqlError(t, err).Number != 745 {
		t.Fatalf("SELECT 1 at overload 10 with min 1 / max 2: %v, want 745", err)
	}
	for i := range 20 {
		if err := c.PingContext(context.Background()); err != nil {
			t.Fatalf("COM_PING %d under overload: %v", i, err)
		}
	}
	before, _ := strconv.Atoi(gauge(t, admin, "MySQLConnection"))
	c.Close()
	db.Close() // COM_QUIT
	eventually(t, 15*time.Second, "the connection closed by COM_QUIT released", func() (bool, string) {
		n, _ := strconv.Atoi(gauge(t, admin, "MySQLConnection"))
		return n == before-1, strconv.Itoa(n)
	})

	// COM_INIT_DB: the mariadb client's `use` sends it; SHOW TABLES (exempt) shows it worked, and
	// SELECT 1 in main is rejected as ordinary work.
	out, err := mariadbCLI(t, s.addr, "default", "use system\nSHOW TABLES;\nuse main\nSELECT 1;\n", "--force")
	if !strings.Contains(out, "server_settings") || !strings.Contains(out, "ERROR 745") || strings.Count(out, "ERROR") != 1 {
		t.Errorf("use system (COM_INIT_DB), SHOW TABLES, SELECT 1 under overload (%v):\n%s", err, out)
	}
}

// TestNonAdminsCannotChangeServerSettingsOrSimulate: SET GLOBAL / SET PERSIST of a server
// setting or a simulation variable by a non-admin fails with 1227 (42000) and changes nothing.
func TestNonAdminsCannotChangeServerSettingsOrSimulate(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app := s.open("app", "secret", s.addr)
	defer app.Close()
	for _, q := range []string{
		"SET GLOBAL max_connections = 5",
		"SET @@GLOBAL.max_os_cpu_wait_time_ratio_to_drop_connection = 5",
		"SET GLOBAL simulated_os_cpu_overload = 5",
		"SET GLOBAL simulated_memory_overload_ratio = 0.5",
		"SET PERSIST max_connections = 5",
		"SET PERSIST_ONLY max_connections = 5",
	} {
		_, err := app.Exec(q)
		if err == nil {
			t.Errorf("non-admin %s succeeded", q)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1227 || string(me.SQLState[:]) != "42000" {
			t.Errorf("non-admin %s: %d (%s) %s, want 1227 (42000)", q, me.Number, me.SQLState, me.Message)
		}
	}
	admin := s.adminDB()
	for name, want := range map[string]string{"max_connections": "1024", "max_os_cpu_wait_time_ratio_to_drop_connection": "0"} {
		if got := serverSetting(t, admin, name); got != want {
			t.Errorf("%s = %s after refused changes, want %s", name, got, want)
		}
	}
	for name, want := range map[string]string{"simulated_os_cpu_overload": "-1", "simulated_memory_overload_ratio": "-1"} {
		if got := globalValue(t, admin, name); got != want {
			t.Errorf("@@GLOBAL.%s = %s after refused changes, want %s", name, got, want)
		}
	}
}

// TestCounters: AcceptedConnections, FailedQuery, MySQLConnection, Uptime and, in dry_run,
// OverloadDryRunDroppedConnections count what they say.
func TestCounters(t *testing.T) {
	s := startServer(t, serverOptions{top: "overload_enforcement = \"dry_run\"\n" + dropOn})
	admin := s.adminDB()
	admin.SetMaxOpenConns(1)
	if n := event(t, admin, "AcceptedConnections"); n != 0 {
		t.Errorf("AcceptedConnections = %d before any connection to the main listener, want 0", n)
	}
	main := s.db()
	main.SetMaxIdleConns(3)
	var held []*sql.Conn
	for range 3 {
		c, err := main.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	if n := event(t, admin, "AcceptedConnections"); n != 3 {
		t.Errorf("AcceptedConnections = %d after 3 connections, want 3 (the admin listener does not count)", n)
	}
	eventually(t, 15*time.Second, "MySQLConnection counting both listeners", func() (bool, string) {
		g := gauge(t, admin, "MySQLConnection")
		return g == "4", g
	})

	failed := event(t, admin, "FailedQuery")
	if _, err := held[0].ExecContext(context.Background(), "SELECT * FROM main.no_such_table"); err == nil {
		t.Fatal("a query of a missing table succeeded")
	}
	eventually(t, 15*time.Second, "FailedQuery counting the failure", func() (bool, string) {
		n := event(t, admin, "FailedQuery")
		return n == failed+1, strconv.Itoa(n)
	})
	for _, c := range held {
		c.Close()
	}

	up := func() float64 {
		v, err := strconv.ParseFloat(queryStrings(t, admin, "SELECT value FROM system.asynchronous_metrics WHERE metric = 'Uptime'")[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := up()
	eventually(t, 15*time.Second, "Uptime growing", func() (bool, string) {
		v := up()
		return v > first, strconv.FormatFloat(v, 'f', 3, 64)
	})

	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 10") // over the drop max of 6
	if dropped := connectAttempts(t, s, 5); len(dropped) != 0 {
		t.Fatalf("dry_run dropped %d connections", len(dropped))
	}
	if n := event(t, admin, "OverloadDryRunDroppedConnections"); n != 5 {
		t.Errorf("OverloadDryRunDroppedConnections = %d after 5 would-be drops, want 5", n)
	}
	if n := event(t, admin, "OverloadDroppedConnections"); n != 0 {
		t.Errorf("OverloadDroppedConnections = %d in dry_run, want 0", n)
	}
}
