package integration

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// workloadsConfig has two workloads besides the built-in default; app's sessions run in
// reports, which runs one statement at a time and queues one more.
const workloadsConfig = `
[[users]]
name = "default"
admin = true

[[users]]
name = "app"
password = "secret"
workload = "reports"

[[workloads]]
name = "web"
weight = 3

[[workloads]]
name = "reports"
priority = 1
max_concurrent_statements = 1
max_queued_statements = 1
max_memory_usage = 1000000
`

// workloadRow reads one workload's columns from system.workloads ("" when it is not listed).
func workloadRow(t *testing.T, admin *sql.DB, name, columns string) string {
	t.Helper()
	rows := queryStrings(t, admin, "SELECT "+columns+" FROM system.workloads WHERE name = ?", name)
	if len(rows) == 0 {
		return ""
	}
	return rows[0]
}

func want1231(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("want error 1231, the statement ran")
	}
	me := mysqlError(t, err)
	if me.Number != 1231 || string(me.SQLState[:]) != "42000" {
		t.Fatalf("want error 1231 (42000), got %d (%s): %s", me.Number, me.SQLState, me.Message)
	}
	for _, p := range parts {
		if !strings.Contains(me.Message, p) {
			t.Errorf("error 1231 lacks %q: %s", p, me.Message)
		}
	}
}

func TestWorkloads(t *testing.T) {
	httpAddr := freePort(t)
	s := startServer(t, serverOptions{top: fmt.Sprintf("http_listen = %q\n%s", httpAddr, noStall), sections: workloadsConfig})
	admin := s.adminDB()
	got := queryStrings(t, admin, "SELECT name, priority, weight, max_concurrent_statements, max_queued_statements, max_memory_usage, removed FROM system.workloads")
	want := []string{"web\t0\t3\t0\t0\t0\t0", "reports\t1\t1\t1\t1\t1000000\t0", "default\t0\t1\t0\t0\t0\t0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("system.workloads:\n got %q\nwant %q", got, want)
	}

	// Unknown names fail with 1231, listing the workloads.
	_, err := session(t, s.db()).ExecContext(context.Background(), "SET workload = 'nope'")
	want1231(t, err, "'nope'", "the workloads are default, reports, web")
	_, err = session(t, s.db()).ExecContext(context.Background(), "SELECT /*+ SET_VAR(workload = 'nope') */ 1")
	want1231(t, err, "'nope' (SET_VAR hint)", "default, reports, web")

	// app's sessions run in reports: one at a time, one queued, the next refused.
	app := s.open("app", "secret", s.addr)
	defer app.Close()
	holder := holdSlot(t, app, 3)
	eventually(t, 10*time.Second, "reports running 1", func() (bool, string) {
		r := workloadRow(t, admin, "reports", "running, queued")
		return r == "1\t0", r
	})
	queued := make(chan error, 1)
	go func() {
		_, err := session(t, app, "SET queue_max_wait_ms = 20000").ExecContext(context.Background(), "SELECT 1")
		queued <- err
	}()
	eventually(t, 10*time.Second, "reports queued 1", func() (bool, string) {
		r := workloadRow(t, admin, "reports", "running, queued")
		return r == "1\t1", r
	})
	_, err = session(t, app).ExecContext(context.Background(), "SELECT 1")
	want202(t, err, "the queue of workload reports is full (its max_queued_statements = 1)", "Workload reports: running 1, queued 1")
	// The server's slots are free: another workload runs past the reports queue.
	appWeb := session(t, app)
	if _, err := appWeb.ExecContext(context.Background(), "SELECT /*+ SET_VAR(workload = 'web') */ 1"); err != nil {
		t.Errorf("app's statement hinted into web while reports is full: %v", err)
	}
	mustExec(t, appWeb, "SET workload = 'web'")
	if _, err := appWeb.ExecContext(context.Background(), "SELECT 1"); err != nil {
		t.Errorf("app's session in web: %v", err)
	}
	if r := workloadRow(t, admin, "web", "admitted"); r != "2" {
		t.Errorf("web admitted %s, want 2", r)
	}
	if err := holder(); err != nil {
		t.Fatal(err)
	}
	if err := <-queued; err != nil {
		t.Errorf("the queued reports statement: %v", err)
	}
	if r := workloadRow(t, admin, "reports", "running, queued, admitted, refused"); r != "0\t0\t2\t1" {
		t.Errorf("reports running, queued, admitted, refused: %s, want 0 0 2 1", r)
	}
	if r := workloadRow(t, admin, "reports", "queue_wait_us > 0, cpu_time_us >= 0"); r != "1\t1" {
		t.Errorf("reports queue wait and CPU time: %s", r)
	}

	// /metrics shows the workloads with a workload label.
	_, body := httpGet(t, "http://"+httpAddr+"/metrics", "", "")
	for _, line := range []string{`overloadsql_workload_admitted_statements_total{workload="web"} 2`,
		`overloadsql_workload_refused_statements_total{workload="reports"} 1`,
		`overloadsql_workload_max_memory_usage_bytes{workload="reports"} 1e+06`} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}

	// A reload that removes web: new statements cannot name it; a session that chose it goes
	// back to its user's workload.
	s.rewriteConfig(serverOptions{top: fmt.Sprintf("http_listen = %q\n%s", httpAddr, noStall),
		sections: strings.Replace(workloadsConfig, "[[workloads]]\nname = \"web\"\nweight = 3\n", "", 1)})
	eventually(t, 10*time.Second, "web removed by the reload", func() (bool, string) {
		r := workloadRow(t, admin, "web", "name")
		return r == "", r
	})
	_, err = session(t, app).ExecContext(context.Background(), "SELECT /*+ SET_VAR(workload = 'web') */ 1")
	want1231(t, err, "'web' (SET_VAR hint)", "the workloads are default, reports")
	if _, err := appWeb.ExecContext(context.Background(), "SELECT 1"); err != nil {
		t.Errorf("a session whose workload was removed: %v", err)
	}
	if r := workloadRow(t, admin, "reports", "admitted"); r != "3" {
		t.Errorf("reports admitted %s after the session's workload was removed, want 3", r)
	}
}

// TestRemovedWorkloadLetsItsStatementsFinish: a workload a reload removes stays listed, marked
// removed, while its statement runs, and the statement ends normally.
func TestRemovedWorkloadLetsItsStatementsFinish(t *testing.T) {
	s := startServer(t, serverOptions{top: noStall, sections: workloadsConfig})
	admin := s.adminDB()
	c := session(t, s.db(), "SET workload = 'web'")
	done := make(chan error, 1)
	go func() {
		var n int
		done <- c.QueryRowContext(context.Background(), "SELECT SLEEP(2)").Scan(&n)
	}()
	eventually(t, 10*time.Second, "web running 1", func() (bool, string) {
		r := workloadRow(t, admin, "web", "running")
		return r == "1", r
	})
	s.rewriteConfig(serverOptions{top: noStall, sections: strings.Replace(workloadsConfig, "name = \"web\"", "name = \"api\"", 1)})
	eventually(t, 10*time.Second, "web removed while it runs", func() (bool, string) {
		r := workloadRow(t, admin, "web", "removed, running")
		return r == "1\t1", r
	})
	if err := <-done; err != nil {
		t.Fatalf("the removed workload's statement: %v", err)
	}
	eventually(t, 10*time.Second, "web gone", func() (bool, string) {
		r := workloadRow(t, admin, "web", "name")
		return r == "", r
	})
}

func TestWorkloadConstraint(t *testing.T) {
	s := startServer(t, serverOptions{sections: workloadsConfig + "\n[constraints.workload]\nreadonly = true\n"})
	app := session(t, s.open("app", "secret", s.addr))
	_, err := app.ExecContext(context.Background(), "SET workload = 'web'")
	want1231(t, err, "constraints.workload.readonly")
	rows, err := app.QueryContext(context.Background(), "SELECT /*+ SET_VAR(workload = 'web') */ 1")
	if err != nil {
		t.Fatalf("a readonly workload's hint is ignored, not an error: %v", err)
	}
	rows.Close()
	if r := workloadRow(t, s.adminDB(), "web", "admitted"); r != "0" {
		t.Errorf("web admitted %s: the ignored hint moved the statement", r)
	}
	mustExec(t, session(t, s.db()), "SET workload = 'web'") // an admin is not bound
}

// TestStallLimitStartsTheNextStatement: with one slot, a statement that holds it past
// admission_stall_limit_ms stops counting, and the next one starts while it runs on.
func TestStallLimitStartsTheNextStatement(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_concurrent_statements = 1\nadmission_stall_limit_ms = 300\n"})
	admin := s.adminDB()
	holder := holdSlot(t, s.db(), 4)
	waitForGauges(t, admin, 1, 0)
	began := time.Now()
	if _, err := session(t, s.db(), "SET queue_max_wait_ms = 3000").ExecContext(context.Background(), "SELECT 1"); err != nil {
		t.Fatalf("the statement behind the stalled one: %v", err)
	}
	waited := time.Since(began)
	stalled := queryStrings(t, admin, "SELECT value FROM system.metrics WHERE metric = 'AdmissionStalledStatements'")
	t.Logf("SELECT 1 behind SLEEP(4) with a 300 ms stall limit: %v; stalled %v", waited, stalled)
	if waited > 3*time.Second {
		t.Errorf("SELECT 1 took %v behind a stalled statement, want well under its 3 s queue_max_wait_ms", waited)
	}
	if strings.Join(stalled, "") != "1" {
		t.Errorf("AdmissionStalledStatements = %v while SLEEP(4) runs past the limit, want 1", stalled)
	}
	if err := holder(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, admin, "SET GLOBAL admission_stall_limit_ms = 0")
	if r := queryStrings(t, admin, "SELECT value, changeable_without_restart FROM system.server_settings WHERE name = 'admission_stall_limit_ms'"); strings.Join(r, "") != "0\tYes" {
		t.Errorf("admission_stall_limit_ms after SET GLOBAL: %v", r)
	}
}

// TestFairShareBorrowsASlot: with one slot and a stall limit no statement reaches, a statement
// of a workload under its fair share starts beside a long statement of an equal-priority
// workload that is over its share, rather than wait for the slot (it would get 202 after its
// queue_max_wait_ms). The long statement keeps running.
func TestFairShareBorrowsASlot(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_concurrent_statements = 1\nadmission_stall_limit_ms = 600000\n",
		sections: "[[workloads]]\nname = \"batch\"\n\n[[workloads]]\nname = \"web\"\n"})
	admin := s.adminDB()
	ctx, cancel := context.WithCancel(context.Background())
	batch := session(t, s.db(), "SET workload = 'batch'")
	long := make(chan error, 1)
	go func() {
		var n int
		long <- batch.QueryRowContext(ctx, heavyQuery+", information_schema.columns c").Scan(&n)
	}()
	defer func() {
		cancel()
		<-long
	}()
	eventually(t, 20*time.Second, "batch running with CPU time used", func() (bool, string) {
		r := workloadRow(t, admin, "batch", "running, cpu_time_us > 200000")
		return r == "1\t1", r
	})
	web := session(t, s.db(), "SET workload = 'web'", "SET queue_max_wait_ms = 10000")
	if _, err := web.ExecContext(context.Background(), "SELECT 1"); err != nil {
		t.Fatalf("web's statement beside batch's long one: %v", err)
	}
	select {
	case err := <-long:
		t.Fatalf("batch's statement ended before web's ran, so nothing was shown: %v", err)
	default:
	}
	if r := workloadRow(t, admin, "web", "admitted, refused"); r != "1\t0" {
		t.Errorf("web admitted, refused: %s, want 1 0", r)
	}
	if r := workloadRow(t, admin, "batch", "running"); r != "1" {
		t.Errorf("batch running %s while its statement runs, want 1", r)
	}
}
