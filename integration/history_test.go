package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// overloadLogged is ClickHouse's own check of its overload feature, on the history table.
const overloadLogged = "SELECT 1 FROM system.asynchronous_metric_log WHERE metric = 'OSCPUOverload' AND value >= 1"

// TestHistoryTablesRecordSimulatedOverload: a simulated overload shows in
// system.asynchronous_metric_log, its warning in system.warning_log (raised, then cleared), and
// the statements in system.metric_log.
func TestHistoryTablesRecordSimulatedOverload(t *testing.T) {
	s := startServer(t, serverOptions{})
	admin := s.adminDB()
	if got := queryStrings(t, admin, overloadLogged); len(got) != 0 {
		t.Fatalf("an idle server logged an overload: %v", got)
	}
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 3")
	db := s.db()
	for range 5 {
		mustExec(t, db, "SELECT 1")
	}
	eventually(t, 10*time.Second, "the overload in system.asynchronous_metric_log", func() (bool, string) {
		got := queryStrings(t, admin, overloadLogged)
		return len(got) > 0, strings.Join(got, ",")
	})
	// One row per metric per period: two rows of one metric are a period apart.
	times := queryStrings(t, admin, "SELECT event_time FROM system.asynchronous_metric_log WHERE metric = 'Uptime' ORDER BY event_time")
	if len(times) < 2 {
		t.Fatalf("Uptime rows: %v", times)
	}
	a, _ := time.Parse("2006-01-02 15:04:05.999999", times[len(times)-2])
	b, _ := time.Parse("2006-01-02 15:04:05.999999", times[len(times)-1])
	// Never closer than a period less half a sample interval (the recorder's rule); later is
	// allowed by a wide margin, since a loaded machine may run a sample late.
	if gap := b.Sub(a); gap < 900*time.Millisecond || gap > 5*time.Second {
		t.Errorf("two rows of one metric %v apart, want one period (1 s)", gap)
	}
	eventually(t, 10*time.Second, "the statements in system.metric_log", func() (bool, string) {
		got := queryStrings(t, admin, "SELECT SUM(value) FROM system.metric_log WHERE metric = 'ProfileEvent_Query'")
		n, err := strconv.ParseFloat(got[0], 64)
		return err == nil && n >= 5, strings.Join(got, ",")
	})
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = -1")
	eventually(t, 10*time.Second, "the simulation warning raised and cleared in system.warning_log", func() (bool, string) {
		got := queryStrings(t, admin, "SELECT event FROM system.warning_log WHERE resource = 'simulation' AND event <> 'updated' ORDER BY event_time")
		return strings.Join(got, ",") == "raised,cleared", strings.Join(got, ",")
	})
	if _, err := admin.Exec("INSERT INTO system.warning_log VALUES (NOW(), 'x', 'raised', 'm', 1)"); err == nil {
		t.Error("system.warning_log accepted an INSERT")
	}
}

// TestRealOverloadIsLoggedInHistory is ClickHouse's check adapted: once a real CPU overload
// (three CPU-heavy statements on a server pinned to one core) is measured, it shows in
// system.asynchronous_metric_log.
func TestRealOverloadIsLoggedInHistory(t *testing.T) {
	realCPU(t)
	need(t, "taskset")
	s := startServer(t, serverOptions{top: realTop, pin: "0"})
	admin := s.adminDB()
	stop := heavyLoad(t, s.db(), 3, 60*time.Second)
	defer stop()
	eventually(t, 30*time.Second, "a real overload of at least 1", func() (bool, string) {
		v := metric(t, admin, "OSCPUOverload")
		return v >= 1, strconv.FormatFloat(v, 'g', 4, 64)
	})
	// The window that measured it is logged when it closes: poll for the row, do not sleep.
	eventually(t, 10*time.Second, "a row with OSCPUOverload >= 1 in system.asynchronous_metric_log", func() (bool, string) {
		got := queryStrings(t, admin, overloadLogged)
		return len(got) > 0, strconv.Itoa(len(got)) + " rows"
	})
	t.Logf("rows with OSCPUOverload >= 1: %d", len(queryStrings(t, admin, overloadLogged)))
}
