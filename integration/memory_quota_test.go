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

	"github.com/go-sql-driver/mysql"
)

// quotaRefused reports whether err is the memory quota's error 241 naming which account
// ("for session" or "total").
func quotaRefused(err error, which string) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 241 && me.SQLState == [5]byte{'H', 'Y', '0', '0', '0'} &&
		strings.HasPrefix(me.Message, "Memory limit ("+which+") exceeded") && strings.HasSuffix(me.Message, "(MEMORY_LIMIT_EXCEEDED)")
}

// pollers runs ordinary statements on n sessions of their own until stop is called, and
// returns what failed. Each loop is bounded in count and time.
func pollers(t *testing.T, db *sql.DB, n int) (stop func() (statements int, failures []string)) {
	t.Helper()
	done := make(chan struct{})
	var mu sync.Mutex
	var failures []string
	count := 0
	var wg sync.WaitGroup
	for i := range n {
		c := session(t, db)
		wg.Add(1)
		go func() {
			defer wg.Done()
			deadline := time.Now().Add(5 * time.Minute)
			for j := 0; j < 100_000 && time.Now().Before(deadline); j++ {
				select {
				case <-done:
					return
				default:
				}
				var got string
				err := c.QueryRowContext(context.Background(), "SELECT CONCAT(1, ?)", strconv.Itoa(i)).Scan(&got)
				if err == nil {
					_, err = c.ExecContext(context.Background(), "SET @mine = REPEAT('p', 1000)")
				}
				mu.Lock()
				count++
				if err != nil && len(failures) < 20 {
					failures = append(failures, fmt.Sprintf("poller %d: %v", i, err))
				}
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	return func() (int, []string) {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return count, failures
	}
}

// One session cannot exhaust memory for everyone with user variables, nor can 17 sessions: with
// max_server_memory_usage = 512 MiB in a bounded address space, the session that fills its quota
// (25% of the limit) and the sessions that would fill the share of all sessions get error 241,
// while other sessions' statements succeed throughout (before: about 17 variables of 60 MB in
// one session took the heap over the limit, and every ordinary statement got 1041 until that
// session ended).
func TestMemoryQuotaRefusesOnlyTheOffendingSessions(t *testing.T) {
	s := startServer(t, serverOptions{addressSpace: memoryLimit, top: "max_server_memory_usage = 536870912\n"})
	db, admin := s.db(), s.adminDB()
	before1041 := event(t, admin, "MemoryLimitExceededQueries")
	stop := pollers(t, db, 4)
	const big = "SET @v%d = REPEAT('x', 60000000)"

	// One session, 17 variables of 60 MB: two fit in its quota of 128 MiB.
	// A pool of its own, closed after: closing a *sql.Conn only gives it back to its pool.
	oneDB := s.open("default", "", s.addr)
	one := session(t, oneDB)
	for i := 1; i <= 17; i++ {
		_, err := one.ExecContext(context.Background(), fmt.Sprintf(big, i))
		switch {
		case i <= 2 && err != nil:
			t.Errorf("variable %d of one session: %v, want it kept", i, err)
		case i > 2 && !quotaRefused(err, "for session"):
			t.Errorf("variable %d of one session: %v, want error 241 for the session", i, err)
		}
	}
	var kept int
	if err := one.QueryRowContext(context.Background(), "SELECT LENGTH(@v1) + LENGTH(@v2) + COALESCE(LENGTH(@v3), 0)").Scan(&kept); err != nil || kept != 120_000_000 {
		t.Errorf("the session's variables after the refusals: %d bytes, %v; want 120000000", kept, err)
	}
	one.Close()
	oneDB.Close()
	eventually(t, 30*time.Second, "the closed session's variables are released", func() (bool, string) {
		v := gauge(t, admin, "MemoryTrackingSessions")
		n, _ := strconv.Atoi(v)
		return n < 1<<20, v
	})

	// 17 sessions, one variable of 60 MB each: the first few fit, the others are refused by the
	// share of all sessions.
	var conns []*sql.Conn
	accepted, refused := 0, 0
	for i := range 17 {
		c := session(t, db)
		conns = append(conns, c)
		_, err := c.ExecContext(context.Background(), fmt.Sprintf(big, i))
		switch {
		case err == nil:
			accepted++
		case quotaRefused(err, "total"):
			refused++
		default:
			t.Errorf("session %d: %v, want success or error 241 for the total", i, err)
		}
	}
	if accepted < 2 || refused < 1 {
		t.Errorf("17 sessions: %d kept their variable, %d refused; want at least 2 and 1", accepted, refused)
	}
	// A refused session goes on with its ordinary work.
	var n int
	if err := conns[16].QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.collations").Scan(&n); err != nil || n == 0 {
		t.Errorf("a statement of a refused session: %d, %v", n, err)
	}
	// The share is full (a session was refused): a refused session can still prepare and set
	// small things, within the 64 KiB every session may keep.
	small := session(t, db)
	mustExec(t, small, "SET @small = REPEAT('s', 30000)")
	if _, err := small.ExecContext(context.Background(), "PREPARE p FROM 'SELECT ?'"); err != nil {
		t.Errorf("PREPARE of a small session on a full share: %v", err)
	}
	// An operator is held to its own quota only: a variable as big as the refused ones fits.
	operator := session(t, admin)
	mustExec(t, operator, "SET @operator = REPEAT('o', 60000000)")
	mustExec(t, operator, "SET @operator = NULL")
	// A session that frees its variable releases its share.
	before := gauge(t, admin, "MemoryTrackingSessions")
	mustExec(t, conns[0], "SET @v0 = NULL")
	if after := gauge(t, admin, "MemoryTrackingSessions"); atoi(t, before)-atoi(t, after) < 60_000_000 {
		t.Errorf("MemoryTrackingSessions %s before SET @v0 = NULL, %s after; want 60000000 less", before, after)
	}

	statements, failures := stop()
	if len(failures) > 0 {
		t.Errorf("%d ordinary statements, failures: %s", statements, strings.Join(failures, "; "))
	}
	if statements < 20 {
		t.Errorf("only %d ordinary statements ran meanwhile", statements)
	}
	if got := event(t, admin, "MemoryLimitExceededQueries"); got != before1041 {
		t.Errorf("MemoryLimitExceededQueries went from %d to %d: the heap crossed the limit", before1041, got)
	}
	if got := event(t, admin, "MemoryQuotaExceededQueries"); got != 15+refused {
		t.Errorf("MemoryQuotaExceededQueries = %d, want %d", got, 15+refused)
	}
	t.Logf("one session: 2 kept, 15 refused; 17 sessions: %d kept, %d refused; %d ordinary statements meanwhile", accepted, refused, statements)
	s.alive(t, "the quota refusals")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// max_memory_usage_for_session is reloadable: SET GLOBAL applies to open sessions at their next
// assignment, and the quota counts session variables and prepared statements too.
func TestMemoryQuotaSettingApplies(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_server_memory_usage = 1073741824\n"})
	admin := s.adminDB()
	c := session(t, s.db())
	mustExec(t, admin, "SET GLOBAL max_memory_usage_for_session = 100000")
	tries := 0
	eventually(t, 10*time.Second, "the lowered quota refuses a 200 KB variable", func() (bool, string) {
		// A new variable each time: one kept before the quota applied costs nothing to set again.
		tries++
		_, err := c.ExecContext(context.Background(), fmt.Sprintf("SET @a%d = REPEAT('x', 200000)", tries))
		return quotaRefused(err, "for session"), fmt.Sprint(err)
	})
	for i := 1; i < tries; i++ {
		mustExec(t, c, fmt.Sprintf("SET @a%d = NULL", i))
	}
	for _, q := range []string{
		"SET SESSION session_track_system_variables = REPEAT('x', 200000)",
		"PREPARE p FROM 'SELECT \"" + strings.Repeat("1", 60000) + "\"'",
	} {
		if _, err := c.ExecContext(context.Background(), q); !quotaRefused(err, "for session") {
			t.Errorf("%.60s...: %v, want error 241 for the session", q, err)
		}
	}
	mustExec(t, admin, "SET GLOBAL max_memory_usage_for_session = 0") // 25% of 1 GiB
	eventually(t, 10*time.Second, "the default quota takes the variable", func() (bool, string) {
		_, err := c.ExecContext(context.Background(), "SET @a = REPEAT('x', 200000)")
		return err == nil, fmt.Sprint(err)
	})
}
