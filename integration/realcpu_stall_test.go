package integration

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests below are issue 25's: long CPU-bound statements on one core with the stall limit at
// its default. Each endless statement is a nine-way cross join of the ten-row table (10^9 rows,
// minutes of CPU), stopped by closing its connection.

const endlessQuery = "SELECT COUNT(*) FROM main.n a, main.n b, main.n c, main.n d, main.n e, main.n f, main.n g, main.n h, main.n i"

// endless runs k endless statements, each on its own connection, until stop; stop returns the
// errors other than the cancellation (a 202 would be one).
func endless(t *testing.T, db *sql.DB, k int, max time.Duration) (stop func() []error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), max)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range k {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			for ctx.Err() == nil {
				var n int64
				if err := c.QueryRowContext(ctx, endlessQuery).Scan(&n); err != nil && ctx.Err() == nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	return func() []error {
		cancel()
		wg.Wait()
		return errs
	}
}

func noErrors(t *testing.T, what string, errs []error) {
	t.Helper()
	for _, err := range errs {
		t.Errorf("%s: %v", what, err)
	}
}

// TestRealStallFourHeavyThenSelectOne: default config, one core, four endless statements, then
// SELECT 1 every 300 ms from the moment they were sent: each answers (or gets 745) in under a
// second, and neither they nor the heavy statements get 202.
func TestRealStallFourHeavyThenSelectOne(t *testing.T) {
	realCPU(t)
	need(t, "taskset")
	s := startServer(t, serverOptions{pin: "0"})
	createHeavyTable(t, s.db())
	stop := endless(t, s.db(), 4, 40*time.Second)
	probe := session(t, s.db())
	var slowest time.Duration
	answered, rejected := 0, 0
	for i := range 30 {
		began := time.Now()
		var one int
		err := probe.QueryRowContext(context.Background(), "SELECT 1").Scan(&one)
		took := time.Since(began)
		slowest = max(slowest, took)
		switch {
		case err == nil:
			answered++
		case mysqlError(t, err).Number == 745:
			rejected++
		default:
			t.Errorf("SELECT %d: %v", i, err)
		}
		if took >= time.Second {
			t.Errorf("SELECT 1 number %d took %v, want under 1 s", i, took)
		}
		time.Sleep(300 * time.Millisecond)
	}
	stalled := queryStrings(t, s.adminDB(), "SELECT value FROM system.metrics WHERE metric = 'AdmissionStalledStatements'")
	t.Logf("30 x SELECT 1 beside 4 endless statements: %d answered, %d got 745, slowest %v; stalled now %v", answered, rejected, slowest, stalled)
	noErrors(t, "an endless statement", stop())
	if strings.Join(stalled, "") != "4" {
		t.Errorf("AdmissionStalledStatements = %v with four endless statements, want 4", stalled)
	}
}

// TestRealClickHouseServerOverload is ClickHouse's test_server_overload (tests/integration), on
// one core with its busy threshold (300 ms per window) and admission at its defaults: four
// endless statements, then at most 60 tries 0.3 s apart. test_overload: SELECT 1 with min 1 /
// max 6 must get SERVER_OVERLOADED (745), and no other error. test_drop_connections: with the
// drop ratios at min 1 / max 6, a new connection must be dropped (1040), and nothing else fail.
func TestRealClickHouseServerOverload(t *testing.T) {
	realCPU(t)
	need(t, "taskset")
	const busy = "os_cpu_busy_time_threshold = 300000\n"
	t.Run("test_overload", func(t *testing.T) {
		s := startServer(t, serverOptions{top: busy, pin: "0"})
		createHeavyTable(t, s.db())
		stop := endless(t, s.db(), 4, 40*time.Second)
		defer func() { noErrors(t, "an endless statement", stop()) }()
		for i := range 60 {
			var one int
			err := s.db().QueryRowContext(context.Background(),
				"SELECT /*+ SET_VAR(min_os_cpu_wait_time_ratio_to_throw = 1) SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 6) */ 1").Scan(&one)
			if err != nil {
				if me := mysqlError(t, err); me.Number != 745 || !strings.Contains(me.Message, "(SERVER_OVERLOADED)") {
					t.Fatalf("try %d: only SERVER_OVERLOADED is expected, got %d: %s", i, me.Number, me.Message)
				}
				t.Logf("try %d: %s", i, err)
				return
			}
			time.Sleep(300 * time.Millisecond)
		}
		t.Error("expected to get the server overloaded error at least once")
	})
	t.Run("test_drop_connections", func(t *testing.T) {
		s := startServer(t, serverOptions{top: busy + "min_os_cpu_wait_time_ratio_to_drop_connection = 1\nmax_os_cpu_wait_time_ratio_to_drop_connection = 6\n", pin: "0"})
		createHeavyTable(t, s.db())
		stop := endless(t, s.db(), 4, 40*time.Second)
		defer func() { noErrors(t, "an endless statement", stop()) }()
		for i := range 60 {
			db := s.open("default", "", s.addr)
			var one int
			err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&one)
			db.Close()
			if err != nil {
				me := mysqlError(t, err)
				if me.Number != 1040 || !strings.Contains(me.Message, "CPU is overloaded, CPU is waiting for execution way more than executing") ||
					!strings.Contains(me.Message, "probability used to decide whether to drop the connection") {
					t.Fatalf("try %d: only a connection drop is expected, got %d: %s", i, me.Number, me.Message)
				}
				t.Logf("try %d: %s", i, err)
				return
			}
			time.Sleep(300 * time.Millisecond)
		}
		t.Error("expected to drop the connection due to the server being overloaded at least once")
	})
}

// TestRealStallSelfContention: k = 2, 3, 4 endless statements on one core with admission at its
// defaults all run for 15 s without an error, and OSCPUOverload reads k-1 within 15% of the
// truth (measured as in realcpu_admission_test.go) in each of three consecutive 5 s spans, not
// only while statements still queue.
func TestRealStallSelfContention(t *testing.T) {
	realCPU(t)
	need(t, "taskset")
	for _, k := range []int{2, 3, 4} {
		t.Run(fmt.Sprint("k=", k), func(t *testing.T) {
			s := startServer(t, serverOptions{top: admissionRealTop, pin: "0"})
			admin := s.adminDB()
			createHeavyTable(t, s.db())
			stop := endless(t, s.db(), k, 40*time.Second)
			time.Sleep(2 * time.Second)
			for span := range 3 {
				got, truth := truthByProcess(t, s, admin, k, 5*time.Second)
				within(t, fmt.Sprintf("%d endless statements, span %d", k, span+1), got, truth, tolerance)
			}
			parts := queryStrings(t, admin, "SELECT metric, round(value, 2) FROM system.asynchronous_metrics WHERE metric LIKE '%Overload' ORDER BY metric")
			t.Logf("parts now: %v", parts)
			errs := stop()
			noErrors(t, "an endless statement", errs)
			if n := queryStrings(t, admin, "SELECT value FROM system.events WHERE event = 'AdmissionRejectedQueries'"); strings.Join(n, "") != "0" {
				t.Errorf("AdmissionRejectedQueries = %v, want 0", n)
			}
		})
	}
}
