package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// A KILL of the lock's holder, from another connection, ends its transaction at once (it
// waited for the write lock, held by the very transaction it was to end, and failed with 1205).
func TestWriteLockHolderCanBeKilled(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	for _, kill := range []string{"KILL", "KILL CONNECTION", "KILL QUERY"} {
		t.Run(kill, func(t *testing.T) {
			holder, admin := session(t, db), session(t, db)
			mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
			holderID := intOn(t, holder, "SELECT CONNECTION_ID()")
			mustExec(t, admin, "SET innodb_lock_wait_timeout = 2")
			if _, err := admin.ExecContext(context.Background(), kill+" "+strconv.Itoa(holderID)); err != nil {
				t.Fatalf("%s of the write lock's holder: %v", kill, err)
			}
			if kill == "KILL QUERY" {
				// The holder's transaction goes on (nothing ran); it ends it itself.
				if got := gauge(t, db, "WriteLockHolder"); got != strconv.Itoa(holderID) {
					t.Errorf("WriteLockHolder = %s after KILL QUERY of an idle holder, want %d", got, holderID)
				}
				mustExec(t, holder, "ROLLBACK")
			}
			eventually(t, 10*time.Second, "the killed transaction releases the write lock", func() (bool, string) {
				got := gauge(t, db, "WriteLockHolder")
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
	holder, admin := session(t, db), session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	for _, kill := range []string{"KILL QUERY", "KILL CONNECTION"} {
		t.Run(kill, func(t *testing.T) {
			pool := s.open("default", "", s.addr)
			defer pool.Close()
			waiter := session(t, pool)
			waiterID := intOn(t, waiter, "SELECT CONNECTION_ID()")
			mustExec(t, waiter, "SET innodb_lock_wait_timeout = 120")
			done := waitingWrite(t, db, waiter, "UPDATE kv SET v = v + 10 WHERE id = 2")
			mustExec(t, admin, fmt.Sprintf("%s %d", kill, waiterID))
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
			// KILL CONNECTION closes the socket while the statement leaves the wait: the
			// client can see the close first.
			eventually(t, 10*time.Second, "no statement waits for the write lock after "+kill+" of the only waiter", func() (bool, string) {
				got := gauge(t, db, "WriteLockWaitingStatements")
				return got == "0", "WriteLockWaitingStatements = " + got
			})
			if kill == "KILL QUERY" {
				mustExec(t, waiter, "SELECT 1") // the connection stays usable
			}
		})
	}
	mustExec(t, holder, "COMMIT")
	eventually(t, 10*time.Second, "the write lock is free", func() (bool, string) {
		got := gauge(t, db, "WriteLockHolder")
		return got == "0", "WriteLockHolder = " + got
	})
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 2"); got != "1" {
		t.Errorf("v = %s, want 1: a killed writer's UPDATE ran when the lock came free", got)
	}
}

// A client that gives up while its statement waits for the write lock leaves the wait at once:
// the waiter is gone from system.metrics while the holder still holds the lock, and its UPDATE
// never runs when the lock comes free. Only the wait's own watch of the socket can do it: the
// periodic check for a client that left covers running statements.
func TestWriteLockWaiterLeavesWhenItsClientDoes(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder := session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	pool := s.open("default", "", s.addr)
	defer pool.Close()
	waiter := session(t, pool)
	mustExec(t, waiter, "SET innodb_lock_wait_timeout = 120")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := waiter.ExecContext(ctx, "UPDATE kv SET v = v + 10 WHERE id = 2")
		done <- err
	}()
	eventually(t, 10*time.Second, "the statement waits for the write lock", func() (bool, string) {
		got := gauge(t, db, "WriteLockWaitingStatements")
		return got == "1", "WriteLockWaitingStatements = " + got
	})
	cancel() // the driver closes the connection
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the waiting writer: %v", err)
	}
	eventually(t, 10*time.Second, "the waiter leaves", func() (bool, string) {
		got := gauge(t, db, "WriteLockWaitingStatements")
		return got == "0", "WriteLockWaitingStatements = " + got
	})
	mustExec(t, holder, "COMMIT")
	wantNoWriteLockHolder(t, db, "after the holder's COMMIT")
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 2"); got != "1" {
		t.Errorf("v = %s, want 1: the UPDATE of a client that left ran when the lock came free", got)
	}
}

// Queries written with a WITH clause or in parentheses are reads: they neither wait for the
// write lock (they did, and failed with 1205 behind a writer) nor take it, which kept every
// writer out for as long as a reporting transaction stayed open.
func TestWriteLockLetsEveryQueryThrough(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder, reader := session(t, db), session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	holderID := strconv.Itoa(intOn(t, holder, "SELECT CONNECTION_ID()"))
	mustExec(t, reader, "SET innodb_lock_wait_timeout = 1")
	for _, begin := range []string{"", "BEGIN"} {
		if begin != "" {
			mustExec(t, reader, begin)
		}
		for _, q := range []string{
			"WITH x AS (SELECT v FROM kv WHERE id = 1) SELECT v FROM x",
			"WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3), x AS (SELECT v FROM kv) SELECT MAX(n) * 0 + MIN(v) FROM r, x",
			"(SELECT v FROM kv WHERE id = 1) UNION (SELECT v FROM kv WHERE id = 1)",
			"VALUES ROW(1)",
		} {
			if got := intOn(t, reader, q); got != 1 {
				t.Errorf("%s%s: %d, want 1 (the committed value)", begin, q, got)
			}
			if got := gauge(t, db, "WriteLockHolder"); got != holderID {
				t.Errorf("after %s: WriteLockHolder = %s, want the writer %s", q, got, holderID)
			}
		}
		if got := strings.Join(queryStrings(t, reader, "TABLE kv ORDER BY id"), ","); got != "1\t1,2\t1" {
			t.Errorf("%sTABLE kv: %q, want the committed rows", begin, got)
		}
	}
	mustExec(t, reader, "COMMIT")
	mustExec(t, holder, "COMMIT")
}

// A locking read keeps other writers out until its transaction ends, wherever it stands: also as
// the subquery of a SET (SET @v = (SELECT ... FOR UPDATE), the read-modify-write of a stored
// procedure or an ORM) and inside a version comment. Those ran as plain reads: another writer
// committed meanwhile, and the transaction's write from the value it had read undid that commit.
func TestWriteLockTakenByEveryLockingRead(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	for _, read := range []string{
		"SET @v = (SELECT v FROM kv WHERE id = 1 FOR UPDATE)",
		"SET @v = (SELECT v FROM kv WHERE id = 1 LOCK IN SHARE MODE)",
		"/*!50000 SELECT v INTO @v FROM kv WHERE id = 1 FOR UPDATE */",
	} {
		t.Run(read, func(t *testing.T) {
			tx, other := session(t, db), session(t, db)
			before := intOn(t, tx, "SELECT v FROM kv WHERE id = 1")
			mustExec(t, tx, "BEGIN", read)
			done := make(chan error, 1)
			go func() {
				_, err := other.ExecContext(context.Background(), "UPDATE kv SET v = v + 10 WHERE id = 1")
				done <- err
			}()
			var otherErr error
			finished := false
			eventually(t, 10*time.Second, "the other writer waits or is done", func() (bool, string) {
				select {
				case otherErr = <-done:
					finished = true
					return true, ""
				default:
				}
				got := gauge(t, db, "WriteLockWaitingStatements")
				return got == "1", "WriteLockWaitingStatements = " + got
			})
			mustExec(t, tx, "UPDATE kv SET v = @v + 1 WHERE id = 1", "COMMIT")
			if !finished {
				otherErr = <-done
			}
			if otherErr != nil {
				t.Fatalf("the other writer: %v", otherErr)
			}
			if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != strconv.Itoa(before+11) {
				t.Errorf("v = %s, want %d: one of the two committed updates was lost", got, before+11)
			}
		})
	}
}

// The first statement of a connection that named no database at login is guarded like any
// other: the engine makes a connection's session only when it runs that statement, and the
// write lock, which needs the session, let it through unguarded. Such a write committed beside
// the holder's open transaction, whose commit then undid it.
func TestWriteLockGuardsFirstStatement(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder := session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	fresh := s.open("default", "", s.addr) // no database named: no COM_INIT_DB at login
	defer fresh.Close()
	done := make(chan error, 1)
	go func() {
		_, err := fresh.Exec("UPDATE kv SET v = v + 10 WHERE id = 1")
		done <- err
	}()
	var err error
	finished := false
	eventually(t, 10*time.Second, "the new connection's write waits or is done", func() (bool, string) {
		select {
		case err = <-done:
			finished = true
			return true, ""
		default:
		}
		got := gauge(t, db, "WriteLockWaitingStatements")
		return got == "1", "WriteLockWaitingStatements = " + got
	})
	if finished {
		t.Errorf("the first statement of a new connection wrote while another transaction held the write lock (%v)", err)
	}
	mustExec(t, holder, "COMMIT")
	if !finished {
		err = <-done
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "110" {
		t.Errorf("v = %s, want 110: one of the two committed updates was lost", got)
	}
}

// A statement's SET_VAR hint sets its own innodb_lock_wait_timeout, as in MySQL: the hint was
// ignored (the wait comes before the engine applies hints), so the statement waited the
// session's 50 seconds instead of the one it asked for.
func TestWriteLockWaitHonoursSetVarHint(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder, waiter := session(t, db), session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := waiter.ExecContext(ctx, "UPDATE /*+ SET_VAR(innodb_lock_wait_timeout = 1) */ kv SET v = 2 WHERE id = 1")
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("the statement with SET_VAR(innodb_lock_wait_timeout = 1) still waited after 30 s")
	}
	if me := mysqlError(t, err); me.Number != 1205 {
		t.Fatalf("%v, want 1205", err)
	}
	// An invalid value is ignored, as MySQL ignores invalid hints: the session's value applies.
	mustExec(t, waiter, "SET innodb_lock_wait_timeout = 1")
	_, err = waiter.ExecContext(ctx, "UPDATE /*+ SET_VAR(innodb_lock_wait_timeout = 0) */ kv SET v = 2 WHERE id = 1")
	if me := mysqlError(t, err); me.Number != 1205 {
		t.Fatalf("%v, want 1205 after the session's 1 s", err)
	}
	mustExec(t, holder, "ROLLBACK")
}

// A write whose first words stand in a version comment is a write: /*!50000 */ UPDATE ... (an
// empty comment, then the statement) and /*!50000 UPDATE */ t SET ... were judged by the
// comment's SQL alone, as reads: they took no write lock and, reading the committed tables
// without a copy, wrote into them at once, beside the holder's open transaction. A locking
// clause inside a version comment locks too.
func TestWriteLockTakenByVersionCommentedStatements(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder, other := session(t, db), session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 2")
	mustExec(t, other, "SET innodb_lock_wait_timeout = 1")
	for _, q := range []string{
		"/*!50000 */ UPDATE kv SET v = v + 10 WHERE id = 1",
		"/*!50000 UPDATE */ kv SET v = v + 10 WHERE id = 1",
		"/*!50000 */ /*!50000 UPDATE kv SET v = v + 10 WHERE id = 1 */",
		"SELECT v FROM kv WHERE id = 1 /*!50000 FOR UPDATE */",
		"/*!50000 SELECT */ v FROM kv WHERE id = 1 FOR UPDATE",
	} {
		_, err := other.ExecContext(context.Background(), q)
		if err == nil {
			t.Errorf("%s: ran beside another transaction's open write, want 1205", q)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1205 {
			t.Errorf("%s: %v, want 1205", q, err)
		}
	}
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "1" {
		t.Errorf("v = %s, want 1: a statement wrote beside the holder", got)
	}
	mustExec(t, holder, "COMMIT")
	mustExec(t, other, "/*!50000 */ UPDATE kv SET v = v + 10 WHERE id = 1")
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "11" {
		t.Errorf("v = %s, want 11", got)
	}
}

// A statement waiting for the write lock shows in SHOW PROCESSLIST and
// information_schema.processlist as running its statement, as MySQL shows a statement waiting
// for a row lock: an operator looking for what is stuck sees the writer and its statement, not
// an idle connection.
func TestWriteLockWaiterShowsInTheProcessList(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	kvTable(t, db)
	holder, waiter, admin := session(t, db), session(t, db), session(t, s.adminDB())
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	waiterID := strconv.Itoa(intOn(t, waiter, "SELECT CONNECTION_ID()"))
	mustExec(t, waiter, "SET innodb_lock_wait_timeout = 120")
	const stmt = "UPDATE kv SET v = v + 10 WHERE id = 2"
	done := waitingWrite(t, db, waiter, stmt)
	for _, q := range []string{
		"SELECT command, info FROM information_schema.processlist WHERE id = " + waiterID,
		"SHOW PROCESSLIST",
	} {
		var row string
		for _, r := range queryStrings(t, admin, q) {
			if strings.HasPrefix(r, waiterID+"\t") || !strings.HasPrefix(q, "SHOW") {
				row = r
			}
		}
		if !strings.Contains(row, "Query") || !strings.Contains(row, stmt) {
			t.Errorf("%s: the waiting writer's row is %q, want Command Query and Info %q", q, row, stmt)
		}
	}
	mustExec(t, holder, "COMMIT")
	if err := <-done; err != nil {
		t.Fatalf("the waiting writer after the holder committed: %v", err)
	}
	if got := queryStrings(t, admin, "SELECT command FROM information_schema.processlist WHERE id = "+waiterID); len(got) != 1 || got[0] != "Sleep" {
		t.Errorf("the writer after its statement: %q, want Sleep", got)
	}
}
