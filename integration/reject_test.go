package integration

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// rejectText is the message of error 745 with the numbers left open.
var rejectText = regexp.MustCompile(`^CPU is overloaded, CPU is waiting for execution way more than executing, ratio of wait time \(OSCPUWaitMicroseconds metric\) to busy time \(OSCPUVirtualTimeMicroseconds metric\) is ([0-9.e+-]+)\. Min ratio for error \(min_os_cpu_wait_time_ratio_to_throw setting\) ([0-9.e+-]+), max ratio for error \(max_os_cpu_wait_time_ratio_to_throw setting\) ([0-9.e+-]+), probability used to decide whether to discard the query ([0-9.e+-]+)\. Consider reducing the number of queries or increase backoff between retries\. \(SERVER_OVERLOADED\)$`)

// selectOne runs SELECT 1 n times and returns the rejection messages.
func selectOne(t *testing.T, c *sql.Conn, n int) (rejected []string) {
	t.Helper()
	for range n {
		var one int
		err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one)
		if err == nil {
			continue
		}
		me := mysqlError(t, err)
		if me.Number != 745 || string(me.SQLState[:]) != "HY000" {
			t.Fatalf("SELECT 1: error %d (%s) %s, want 745 (HY000)", me.Number, me.SQLState, me.Message)
		}
		rejected = append(rejected, me.Message)
	}
	return rejected
}

func TestRejectWithSimulatedOverload(t *testing.T) {
	s := startServer(t, serverOptions{})
	admin := s.adminDB()
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 4")

	c := session(t, s.db(), "SET min_os_cpu_wait_time_ratio_to_throw = 2", "SET @@max_os_cpu_wait_time_ratio_to_throw = 6")
	rejected := selectOne(t, c, 400)
	if n := len(rejected); n < 140 || n > 260 {
		t.Errorf("rejected %d of 400 at overload 4, min 2, max 6; want 140..260 (p = 0.5)", n)
	}
	for _, msg := range rejected {
		m := rejectText.FindStringSubmatch(msg)
		if m == nil || m[1] != "4" || m[2] != "2" || m[3] != "6" || m[4] != "0.5" {
			t.Fatalf("message does not match the 745 message with ratio 4, min 2, max 6, probability 0.5:\n%s", msg)
		}
	}

	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 7")
	if n := len(selectOne(t, c, 50)); n != 50 {
		t.Errorf("at overload 7 (>= max 6): %d of 50 rejected, want all", n)
	}

	// An operator can still look and fix things from the same session.
	for _, q := range []string{
		"SHOW PROCESSLIST",
		"SET max_os_cpu_wait_time_ratio_to_throw = 6",
		"SELECT * FROM system.events",
		"select message from SYSTEM.warnings",
		"SELECT @@max_os_cpu_wait_time_ratio_to_throw",
		"/* probe */ SHOW VARIABLES LIKE 'max_os%'",
	} {
		rows, err := c.QueryContext(context.Background(), q)
		if err != nil {
			t.Errorf("%s under overload: %v", q, err)
			continue
		}
		rows.Close()
	}

	// A session without thresholds is never rejected.
	other := session(t, s.db())
	if n := len(selectOne(t, other, 100)); n != 0 {
		t.Errorf("session without thresholds: %d rejected, want 0", n)
	}

	// A server-side prepared statement is rejected too.
	var one int
	err := c.QueryRowContext(context.Background(), "SELECT ?", 1).Scan(&one)
	if err == nil {
		t.Error("prepared statement served at overload 7")
	} else if me := mysqlError(t, err); me.Number != 745 {
		t.Errorf("prepared statement: error %d, want 745", me.Number)
	}

	// A per-statement hint switches protection on for one statement.
	err = other.QueryRowContext(context.Background(), "SELECT /*+ SET_VAR(min_os_cpu_wait_time_ratio_to_throw = 1) SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 1.5) */ 1").Scan(&one)
	if err == nil {
		t.Error("SET_VAR hint with max 1.5 at overload 7 did not reject")
	} else if me := mysqlError(t, err); me.Number != 745 || !strings.Contains(me.Message, "(max_os_cpu_wait_time_ratio_to_throw setting) 1.5") {
		t.Errorf("hinted statement: %d %s", me.Number, me.Message)
	}

	got := queryStrings(t, admin, "SELECT value FROM system.events WHERE event = 'OverloadRejectedQueries'")
	if want := fmt.Sprint(len(rejected) + 50 + 2); got[0] != want {
		t.Errorf("OverloadRejectedQueries = %s, want %s", got[0], want)
	}

	out, _ := mariadbCLI(t, s.addr, "default",
		"SET min_os_cpu_wait_time_ratio_to_throw = 2; SET max_os_cpu_wait_time_ratio_to_throw = 6; SELECT 1;\n")
	if !strings.Contains(out, "ERROR 745 (HY000)") || !strings.Contains(out, "(SERVER_OVERLOADED)") {
		t.Errorf("mariadb CLI output lacks ERROR 745 (HY000):\n%s", out)
	}
}

func TestDryRunServesAndCounts(t *testing.T) {
	s := startServer(t, serverOptions{top: `overload_enforcement = "dry_run"`})
	mustExec(t, s.adminDB(), "SET GLOBAL simulated_os_cpu_overload = 7")
	c := session(t, s.db(), "SET min_os_cpu_wait_time_ratio_to_throw = 2", "SET max_os_cpu_wait_time_ratio_to_throw = 6")
	if n := len(selectOne(t, c, 30)); n != 0 {
		t.Errorf("dry_run rejected %d statements, want 0", n)
	}
	got := queryStrings(t, s.db(), "SELECT value FROM system.events WHERE event = 'OverloadDryRunRejectedQueries'")
	if got[0] != "30" {
		t.Errorf("OverloadDryRunRejectedQueries = %s, want 30", got[0])
	}
}

func TestSessionSettingValidationAndConstraints(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers + `
[settings]
max_os_cpu_wait_time_ratio_to_throw = 5

[constraints.max_os_cpu_wait_time_ratio_to_throw]
min = 1
max = 10
[constraints.min_os_cpu_wait_time_ratio_to_throw]
readonly = true
`})
	app := session(t, s.open("app", "secret", s.addr), "SET max_os_cpu_wait_time_ratio_to_throw = 5")
	read := func() string {
		var v string
		if err := app.QueryRowContext(context.Background(), "SELECT @@max_os_cpu_wait_time_ratio_to_throw").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, bad := range []string{"-1", "'abc'", "0.5", "11"} {
		_, err := app.ExecContext(context.Background(), "SET max_os_cpu_wait_time_ratio_to_throw = "+bad)
		if err == nil {
			t.Errorf("SET max_os_cpu_wait_time_ratio_to_throw = %s accepted", bad)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1231 {
			t.Errorf("SET max_os_cpu_wait_time_ratio_to_throw = %s: error %d (%s), want 1231", bad, me.Number, me.Message)
		}
		if v := read(); v != "5" {
			t.Errorf("after the rejected SET = %s the value is %s, want 5 unchanged", bad, v)
		}
	}
	_, err := app.ExecContext(context.Background(), "SET max_os_cpu_wait_time_ratio_to_throw = 0.5")
	if err == nil || !strings.Contains(err.Error(), "constraints.max_os_cpu_wait_time_ratio_to_throw") {
		t.Errorf("constraint violation error does not name the constraint: %v", err)
	}
	if _, err := app.ExecContext(context.Background(), "SET min_os_cpu_wait_time_ratio_to_throw = 1"); err == nil {
		t.Error("readonly constraint: SET accepted")
	}
	rows := queryStrings(t, s.open("app", "secret", s.addr), "SELECT name, min, max, readonly FROM system.settings ORDER BY name")
	want := []string{"max_os_cpu_wait_time_ratio_to_throw\t1\t10\t0", "min_os_cpu_wait_time_ratio_to_throw\tNULL\tNULL\t1", "queue_max_wait_ms\tNULL\tNULL\t0"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("system.settings constraints = %q, want %q", rows, want)
	}
	// Admins are not bound by constraints.
	session(t, s.db(), "SET max_os_cpu_wait_time_ratio_to_throw = 0", "SET min_os_cpu_wait_time_ratio_to_throw = 3")
}
