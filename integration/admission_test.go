package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// admissionGauges reads the admission rows of system.metrics on the admin listener.
func admissionGauges(t *testing.T, admin *sql.DB) (slots, running, queued int) {
	t.Helper()
	rows := queryStrings(t, admin, "SELECT metric, value FROM system.metrics WHERE metric LIKE 'Admission%' ORDER BY metric")
	got := map[string]int{}
	for _, r := range rows {
		name, value, _ := strings.Cut(r, "\t")
		n, err := strconv.Atoi(value)
		if err != nil {
			t.Fatalf("system.metrics %s = %q", name, value)
		}
		got[name] = n
	}
	if len(got) != 5 {
		t.Fatalf("admission rows of system.metrics: %q", rows)
	}
	return got["AdmissionSlots"], got["AdmissionRunningStatements"], got["AdmissionQueuedStatements"]
}

// waitForGauges polls until the running and queued statements are as given.
func waitForGauges(t *testing.T, admin *sql.DB, running, queued int) {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("%d running, %d queued", running, queued), func() (bool, string) {
		s, r, q := admissionGauges(t, admin)
		return r == running && q == queued, fmt.Sprintf("slots %d, running %d, queued %d", s, r, q)
	})
}

// holdSlot runs SELECT SLEEP(seconds) on its own connection; wait returns its error.
func holdSlot(t *testing.T, db *sql.DB, seconds float64) (wait func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		var n int
		done <- db.QueryRowContext(context.Background(), fmt.Sprintf("SELECT SLEEP(%g)", seconds)).Scan(&n)
	}()
	return func() error { return <-done }
}

// noStall turns the stall limit off, for the tests of the queue itself: their slot holders
// sleep for seconds, and with the stall limit on the next statement would start after 500 ms.
const noStall = "admission_stall_limit_ms = 0\n"

func want202(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("want error 202, the statement ran")
	}
	me := mysqlError(t, err)
	if me.Number != 202 || string(me.SQLState[:]) != "HY000" {
		t.Fatalf("want error 202 (HY000), got %d (%s): %s", me.Number, me.SQLState, me.Message)
	}
	for _, p := range parts {
		if !strings.Contains(me.Message, p) {
			t.Errorf("error 202 message lacks %q: %s", p, me.Message)
		}
	}
}

// TestSleepersDoNotHoldTheCPUHostage: 50 statements that sleep a second each, at once. With a
// fixed slot count of GOMAXPROCS they would take 50/GOMAXPROCS seconds (25 s on two cores, 50 s
// on one); the slots grow while all are taken and the Go scheduler has nothing runnable, so they
// all run together and finish in about a second. The bound, 10 s, leaves room for a loaded
// machine (50 connections, each with a handshake) and still fails a fixed count.
func TestSleepersDoNotHoldTheCPUHostage(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	db.SetMaxOpenConns(60)
	db.SetMaxIdleConns(60)
	conns := make([]*sql.Conn, 50)
	for i := range conns {
		conns[i] = session(t, db)
	}
	start := time.Now()
	errs := make(chan error, len(conns))
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int
			errs <- c.QueryRowContext(context.Background(), "SELECT SLEEP(1)").Scan(&n)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a sleeper failed: %v", err)
		}
	}
	slots, _, _ := admissionGauges(t, s.adminDB())
	t.Logf("50 x SELECT SLEEP(1): %v; AdmissionSlots now %d", elapsed.Round(time.Millisecond), slots)
	if elapsed > 10*time.Second {
		t.Errorf("50 x SELECT SLEEP(1) took %v, want < 10 s (the slots did not grow)", elapsed)
	}
	if slots < 25 {
		t.Errorf("AdmissionSlots = %d after 50 sleepers, want it grown past 25", slots)
	}
}

func TestQueueTimeoutAndFullQueue(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_concurrent_statements = 1\nmax_queued_statements = 1\n" + noStall})
	admin := s.adminDB()
	db := s.db()
	if slots, _, _ := admissionGauges(t, admin); slots != 1 {
		t.Fatalf("AdmissionSlots = %d with max_concurrent_statements = 1", slots)
	}
	holder := holdSlot(t, db, 4)
	waitForGauges(t, admin, 1, 0)

	// The deadline: queue_max_wait_ms, from the session or a SET_VAR hint.
	short := session(t, db, "SET queue_max_wait_ms = 200")
	began := time.Now()
	_, err := short.ExecContext(context.Background(), "SELECT 1")
	want202(t, err, "queue_max_wait_ms = 200", "Running: 1 on 1 CPU slots (max_concurrent_statements = 1)", "queued: 0 (max_queued_statements = 1)")
	if waited := time.Since(began); waited < 200*time.Millisecond {
		t.Errorf("error 202 after %v, before queue_max_wait_ms = 200 passed", waited)
	}
	_, err = session(t, db).ExecContext(context.Background(), "SELECT /*+ SET_VAR(queue_max_wait_ms = 0) */ 1")
	want202(t, err, "queue_max_wait_ms = 0 does not wait")
	// Prepared statements take the same path (COM_STMT_EXECUTE).
	var one int
	err = short.QueryRowContext(context.Background(), "SELECT ?", 1).Scan(&one)
	want202(t, err, "queue_max_wait_ms = 200")

	// The queue: one statement waits, the next finds it full.
	waiting := make(chan error, 1)
	go func() {
		_, err := session(t, db, "SET queue_max_wait_ms = 20000").ExecContext(context.Background(), "SELECT 1")
		waiting <- err
	}()
	waitForGauges(t, admin, 1, 1)
	_, err = session(t, db).ExecContext(context.Background(), "SELECT 1")
	want202(t, err, "the queue is full", "queued: 1 (max_queued_statements = 1)")

	// Admin sessions and exempt statements never wait.
	if rows := queryStrings(t, admin, "SELECT 1"); len(rows) != 1 {
		t.Errorf("admin SELECT 1: %q", rows)
	}
	exempt := session(t, db, "SET queue_max_wait_ms = 0")
	for _, q := range []string{"SHOW VARIABLES LIKE 'queue_max_wait_ms'", "SELECT * FROM system.metrics", "SELECT @@queue_max_wait_ms"} {
		if _, err := exempt.ExecContext(context.Background(), q); err != nil {
			t.Errorf("exempt %q while every slot is taken: %v", q, err)
		}
	}
	if _, r, q := admissionGauges(t, admin); r != 1 || q != 1 {
		t.Errorf("the admin's and the exempt statements took or waited for a slot: running %d, queued %d", r, q)
	}

	if err := holder(); err != nil {
		t.Fatalf("the slot holder: %v", err)
	}
	if err := <-waiting; err != nil {
		t.Errorf("the queued statement: %v", err)
	}
	events := queryStrings(t, admin, "SELECT event, value FROM system.events WHERE event IN ('AdmissionRejectedQueries', 'AdmissionQueueWaitMicroseconds') ORDER BY event")
	if len(events) != 2 || events[1] != "AdmissionRejectedQueries\t4" {
		t.Errorf("system.events: %q, want AdmissionRejectedQueries 4", events)
	}
	if wait, _ := strconv.Atoi(strings.TrimPrefix(events[0], "AdmissionQueueWaitMicroseconds\t")); wait < 200_000 {
		t.Errorf("AdmissionQueueWaitMicroseconds = %d, want at least the 200 ms timeout", wait)
	}
}

// TestDisconnectWhileQueuedFreesThePlace: a client that gives up while its statement waits for
// a slot leaves the queue at once, so its place goes to the next statement. The periodic check
// for a client that left covers running statements only, so nothing but the queue's own watch of
// the socket can free the place before the slot's holder ends.
func TestDisconnectWhileQueuedFreesThePlace(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_concurrent_statements = 1\nmax_queued_statements = 1\n" + noStall})
	admin := s.adminDB()
	db := s.db()
	// The holder ends long after the eventually below gives up: a place that only the end of the
	// wait would free (no watch of the socket while queued) fails the test.
	holder := holdSlot(t, db, 8)
	waitForGauges(t, admin, 1, 0)

	ctx, cancel := context.WithCancel(context.Background())
	leaving := session(t, db, "SET queue_max_wait_ms = 30000")
	left := make(chan error, 1)
	go func() {
		_, err := leaving.ExecContext(ctx, "SELECT 1")
		left <- err
	}()
	waitForGauges(t, admin, 1, 1)
	cancel() // the driver closes the connection
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("the leaving client: %v", err)
	}
	eventually(t, 4*time.Second, "the place freed", func() (bool, string) {
		_, r, q := admissionGauges(t, admin)
		return q == 0, fmt.Sprintf("running %d, queued %d", r, q)
	})
	// The freed place takes the next statement (not error 202 for a full queue).
	next := make(chan error, 1)
	go func() {
		_, err := session(t, db, "SET queue_max_wait_ms = 30000").ExecContext(context.Background(), "SELECT 1")
		next <- err
	}()
	waitForGauges(t, admin, 1, 1)
	if err := holder(); err != nil {
		t.Fatal(err)
	}
	if err := <-next; err != nil {
		t.Errorf("the statement that took the freed place: %v", err)
	}
	waitForGauges(t, admin, 0, 0)
}

func TestAdmissionSettings(t *testing.T) {
	s := startServer(t, serverOptions{top: noStall, sections: appUsers + `
[settings]
queue_max_wait_ms = 1000

[constraints.queue_max_wait_ms]
max = 1000
`})
	admin := s.adminDB()
	mustExec(t, admin, "SET GLOBAL max_concurrent_statements = 1")
	if slots, _, _ := admissionGauges(t, admin); slots != 1 {
		t.Errorf("AdmissionSlots = %d after SET GLOBAL max_concurrent_statements = 1", slots)
	}
	rows := queryStrings(t, admin, "SELECT name, value, changeable_without_restart FROM system.server_settings WHERE name IN ('max_concurrent_statements', 'max_queued_statements') ORDER BY name")
	if want := []string{"max_concurrent_statements\t1\tYes", "max_queued_statements\t1000\tYes"}; strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Errorf("system.server_settings: %q, want %q", rows, want)
	}
	app := session(t, s.open("app", "secret", s.addr))
	_, err := app.ExecContext(context.Background(), "SET queue_max_wait_ms = 5000")
	if err == nil || mysqlError(t, err).Number != 1231 || !strings.Contains(err.Error(), "constraints.queue_max_wait_ms") {
		t.Errorf("SET queue_max_wait_ms over the constraint: %v, want 1231 naming the constraint", err)
	}
	_, err = session(t, s.db()).ExecContext(context.Background(), "SET queue_max_wait_ms = 3600001")
	if err == nil || mysqlError(t, err).Number != 1231 {
		t.Errorf("SET queue_max_wait_ms over an hour: %v, want 1231", err)
	}
	mustExec(t, app, "SET queue_max_wait_ms = 800")

	// admission_control = off: every statement runs at once, past the one slot.
	holder := holdSlot(t, s.db(), 2)
	waitForGauges(t, admin, 1, 0)
	noWait := session(t, s.db(), "SET queue_max_wait_ms = 0")
	_, err = noWait.ExecContext(context.Background(), "SELECT 1")
	want202(t, err, "queue_max_wait_ms = 0")
	mustExec(t, admin, "SET GLOBAL admission_control = 'off'")
	if _, err := noWait.ExecContext(context.Background(), "SELECT 1"); err != nil {
		t.Errorf("admission_control = off: %v", err)
	}
	if err := holder(); err != nil {
		t.Fatal(err)
	}
}

// TestStandingQueueRefusesAtOnce: with queue_codel_interval_ms on, a queue whose shortest wait
// stayed over queue_codel_target_ms for a whole interval keeps one waiting statement per slot:
// of two statements already waiting the older is refused, and a newcomer is refused at once,
// whatever its queue_max_wait_ms; turned off, a newcomer waits again. The intervals close as
// the test reads system.metrics. The interval (1 s) outlasts the second waiter's connection
// and SET on a loaded machine: a queue that stood before it arrived would refuse it at once.
func TestStandingQueueRefusesAtOnce(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_concurrent_statements = 1\nqueue_codel_interval_ms = 1000\n" + noStall})
	admin := s.adminDB()
	db := s.db()
	rows := queryStrings(t, admin, "SELECT name, value, changeable_without_restart FROM system.server_settings WHERE name LIKE 'queue_codel%' ORDER BY name")
	if want := []string{"queue_codel_interval_ms\t1000\tYes", "queue_codel_target_ms\t5\tYes"}; strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Errorf("system.server_settings: %q, want %q", rows, want)
	}

	// The slot holder sleeps until the test cancels it (its client disconnects).
	holderCtx, stopHolder := context.WithCancel(context.Background())
	defer stopHolder()
	holder := make(chan error, 1)
	go func() {
		var n int
		holder <- db.QueryRowContext(holderCtx, "SELECT SLEEP(60)").Scan(&n)
	}()
	waitForGauges(t, admin, 1, 0)
	wait := func() <-chan error {
		done := make(chan error, 1)
		c := session(t, db, "SET queue_max_wait_ms = 60000")
		go func() {
			_, err := c.ExecContext(context.Background(), "SELECT 1")
			done <- err
		}()
		return done
	}
	older := wait()
	waitForGauges(t, admin, 1, 1)
	newer := wait()
	waitForGauges(t, admin, 1, 2)

	var olderErr error
	eventually(t, 20*time.Second, "the older waiter refused", func() (bool, string) {
		_, r, q := admissionGauges(t, admin)
		select {
		case olderErr = <-older:
			return true, ""
		default:
			return false, fmt.Sprintf("running %d, queued %d", r, q)
		}
	})
	want202(t, olderErr, "the queue is standing (the shortest wait for a CPU slot stayed over queue_codel_target_ms = 5 for queue_codel_interval_ms = 1000)",
		"Running: 1 on 1 CPU slots", "queue_codel_interval_ms = 0 lets statements wait up to queue_max_wait_ms.")
	waitForGauges(t, admin, 1, 1)
	standing := "SELECT value FROM system.metrics WHERE metric = 'AdmissionQueueStanding'"
	if got := queryStrings(t, admin, standing); strings.Join(got, "|") != "1" {
		t.Errorf("AdmissionQueueStanding = %q while the queue stands, want 1", got)
	}
	_, err := session(t, db, "SET queue_max_wait_ms = 60000").ExecContext(context.Background(), "SELECT 1")
	want202(t, err, "the queue is standing", "queued: 1")

	mustExec(t, admin, "SET GLOBAL queue_codel_interval_ms = 0")
	if got := queryStrings(t, admin, standing); strings.Join(got, "|") != "0" {
		t.Errorf("AdmissionQueueStanding = %q with queue_codel_interval_ms = 0, want 0", got)
	}
	_, err = session(t, db, "SET queue_max_wait_ms = 50").ExecContext(context.Background(), "SELECT 1")
	want202(t, err, "no CPU slot came free within queue_max_wait_ms = 50", "queued: 1")

	stopHolder()
	if err := <-holder; err == nil {
		t.Error("the slot holder's SLEEP(60) ended without error when its client went away")
	}
	if err := <-newer; err != nil {
		t.Errorf("the newer queued statement: %v", err)
	}
}
