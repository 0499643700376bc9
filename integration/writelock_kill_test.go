package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// KILL and the write lock. The documented way out of a stuck transaction is to KILL its
// connection; KILL must not wait for the lock itself, and a statement waiting for the lock
// must stop at KILL QUERY or KILL CONNECTION as in MySQL, without running later.

// kvTable creates main.kv with rows (1, 1) and (2, 1).
func kvTable(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []string{"CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 1), (2, 1)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func writeLockGauge(t *testing.T, db *sql.DB, metric string) string {
	t.Helper()
	return oneValue(t, db, "SELECT value FROM system.metrics WHERE metric = ?", metric)
}

// A KILL of the lock's holder, from another connection, ends its transaction at once (it
// waited for the write lock, held by the very transaction it was to end, and failed with 1205).
func TestWriteLockHolderCanBeKilled(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	for _, kill := range []string{"KILL", "KILL CONNECTION", "KILL QUERY"} {
		t.Run(kill, func(t *testing.T) {
			holder, admin := pinned(t, db), pinned(t, db)
			execOn(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
			holderID := intOn(t, holder, "SELECT CONNECTION_ID()")
			execOn(t, admin, "SET innodb_lock_wait_timeout = 2")
			if _, err := admin.ExecContext(context.Background(), kill+" "+strconv.Itoa(holderID)); err != nil {
				t.Fatalf("%s of the write lock's holder: %v", kill, err)
			}
			if kill == "KILL QUERY" {
				// The holder's transaction goes on (nothing ran); it ends it itself.
				if got := writeLockGauge(t, db, "WriteLockHolder"); got != strconv.Itoa(holderID) {
					t.Errorf("WriteLockHolder = %s after KILL QUERY of an idle holder, want %d", got, holderID)
				}
				execOn(t, holder, "ROLLBACK")
			}
			eventually(t, 10*time.Second, "the killed transaction releases the write lock", func() (bool, string) {
				got := writeLockGauge(t, db, "WriteLockHolder")
				return got == "0", "WriteLockHolder = " + got
			})
			if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "1" {
				t.Errorf("v = %s, want 1: the killed transaction's write must be rolled back", got)
			}
		})
	}
}

// A statement waiting for the write lock stops at KILL QUERY with 1317, as a running one does,
// and at KILL CONNECTION; a killed writer never runs later, when the lock comes free.
func TestWriteLockWaiterCanBeKilled(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder, admin := pinned(t, db), pinned(t, db)
	execOn(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	for _, kill := range []string{"KILL QUERY", "KILL CONNECTION"} {
		t.Run(kill, func(t *testing.T) {
			pool := s.open("default", "", s.addr)
			defer pool.Close()
			waiter := pinned(t, pool)
			waiterID := intOn(t, waiter, "SELECT CONNECTION_ID()")
			execOn(t, waiter, "SET innodb_lock_wait_timeout = 120")
			done := make(chan error, 1)
			go func() {
				_, err := waiter.ExecContext(context.Background(), "UPDATE kv SET v = v + 10 WHERE id = 2")
				done <- err
			}()
			eventually(t, 10*time.Second, "the writer waits for the lock", func() (bool, string) {
				got := writeLockGauge(t, db, "WriteLockWaitingStatements")
				return got == "1", "WriteLockWaitingStatements = " + got
			})
			execOn(t, admin, fmt.Sprintf("%s %d", kill, waiterID))
			select {
			case err := <-done:
				var me *mysql.MySQLError
				if kill == "KILL QUERY" && (!errors.As(err, &me) || me.Number != 1317 || string(me.SQLState[:]) != "70100") {
					t.Errorf("the waiting writer after KILL QUERY: %v, want 1317 (70100)", err)
				}
				if kill == "KILL CONNECTION" && err == nil {
					t.Error("the waiting writer succeeded after KILL CONNECTION")
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("the waiting writer still waits after %s", kill)
			}
			if got := writeLockGauge(t, db, "WriteLockWaitingStatements"); got != "0" {
				t.Errorf("WriteLockWaitingStatements = %s after %s of the only waiter, want 0", got, kill)
			}
			if kill == "KILL QUERY" {
				execOn(t, waiter, "SELECT 1") // the connection stays usable
			}
		})
	}
	execOn(t, holder, "COMMIT")
	eventually(t, 10*time.Second, "the write lock is free", func() (bool, string) {
		got := writeLockGauge(t, db, "WriteLockHolder")
		return got == "0", "WriteLockHolder = " + got
	})
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 2"); got != "1" {
		t.Errorf("v = %s, want 1: a killed writer's UPDATE ran when the lock came free", got)
	}
}

// Queries written with a WITH clause or in parentheses are reads: they neither wait for the
// write lock (they did, and failed with 1205 behind a writer) nor take it, which kept every
// writer out for as long as a reporting transaction stayed open.
func TestWriteLockLetsEveryQueryThrough(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder, reader := pinned(t, db), pinned(t, db)
	execOn(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	holderID := strconv.Itoa(intOn(t, holder, "SELECT CONNECTION_ID()"))
	execOn(t, reader, "SET innodb_lock_wait_timeout = 1")
	for _, begin := range []string{"", "BEGIN"} {
		if begin != "" {
			execOn(t, reader, begin)
		}
		for _, q := range []string{
			"WITH x AS (SELECT v FROM kv WHERE id = 1) SELECT v FROM x",
			"WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3), x AS (SELECT v FROM kv) SELECT MAX(n) * 0 + MIN(v) FROM r, x",
			"(SELECT v FROM kv WHERE id = 1) UNION (SELECT v FROM kv WHERE id = 1)",
		} {
			if got := intOn(t, reader, q); got != 1 {
				t.Errorf("%s%s: %d, want 1 (the committed value)", begin, q, got)
			}
			if got := writeLockGauge(t, db, "WriteLockHolder"); got != holderID {
				t.Errorf("after %s: WriteLockHolder = %s, want the writer %s", q, got, holderID)
			}
		}
	}
	execOn(t, reader, "COMMIT")
	execOn(t, holder, "COMMIT")
}
