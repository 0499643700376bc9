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

// TestUserLocks holds the user-level locks to MySQL 8's rules (docs/reference.md, "User-level
// locks"): a released name is not kept, held locks count toward the session's memory quota,
// KILL QUERY ends a wait, a wait that closes a cycle is error 3058, and names compare without
// case. Before, the engine kept every name ever locked (a million names: about 250 MB the
// server never gave back), its waits were deaf to KILL QUERY, and deadlocked sessions waited
// out their timeouts.
func TestUserLocks(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_memory_usage_for_session = 4000000\n"})
	db := s.db()
	mustExec(t, db, "CREATE TABLE main.k (i INT PRIMARY KEY)",
		"INSERT INTO main.k WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 200) SELECT n FROM c")

	t.Run("released names are not kept", func(t *testing.T) {
		c := session(t, db)
		if got := intOn(t, c, "SELECT SUM(GET_LOCK(CONCAT('name-', a.i, '-', b.i), 0)) FROM main.k a, main.k b WHERE b.i <= 100"); got != 20000 {
			t.Fatalf("20000 locks taken: %d", got)
		}
		if got := gauge(t, db, "UserLocks"); got != "20000" {
			t.Fatalf("UserLocks while 20000 are held: %s", got)
		}
		if got := intOn(t, c, "SELECT RELEASE_ALL_LOCKS()"); got != 20000 {
			t.Fatalf("RELEASE_ALL_LOCKS() = %d, want 20000", got)
		}
		if got := gauge(t, db, "UserLocks"); got != "0" {
			t.Fatalf("UserLocks after RELEASE_ALL_LOCKS: %s, want 0 (released names are forgotten)", got)
		}
	})

	t.Run("held locks count toward the session's quota", func(t *testing.T) {
		c, other := session(t, db), session(t, db)
		// 40000 locks of about 175 bytes each pass the 4 MB quota.
		var n int
		err := c.QueryRowContext(context.Background(), "SELECT SUM(GET_LOCK(CONCAT('quota-', a.i, '-', b.i), 0)) FROM main.k a, main.k b").Scan(&n)
		if !quotaRefused(err, "for session") {
			t.Fatalf("40000 held locks under a 4 MB session quota: %d, %v; want error 241", n, err)
		}
		if got := intOn(t, other, "SELECT GET_LOCK('other', 0) + RELEASE_LOCK('other')"); got != 2 {
			t.Fatalf("another session's lock after the refusal: %d, want 2", got)
		}
		held := intOn(t, c, "SELECT RELEASE_ALL_LOCKS()")
		if held < 1000 || held >= 40000 {
			t.Fatalf("the refused session held %d locks, want those before the refusal", held)
		}
		if got := intOn(t, c, "SELECT GET_LOCK('again', 0)"); got != 1 {
			t.Fatalf("GET_LOCK after RELEASE_ALL_LOCKS gave the bytes back: %d, want 1", got)
		}
	})

	t.Run("KILL QUERY ends a wait", func(t *testing.T) {
		holder, waiter := session(t, db), session(t, db)
		waiterID := intOn(t, waiter, "SELECT CONNECTION_ID()")
		if got := intOn(t, holder, "SELECT GET_LOCK('held', 0)"); got != 1 {
			t.Fatalf("GET_LOCK('held', 0) = %d", got)
		}
		done := running(t, db, waiter, waiterID, "SELECT GET_LOCK('held', -1)")
		mustExec(t, db, "KILL QUERY "+strconv.Itoa(waiterID))
		select {
		case err := <-done:
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1317 {
				t.Fatalf("the killed wait: %v, want 1317", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("KILL QUERY did not end GET_LOCK's wait within 30 s")
		}
		intOn(t, holder, "SELECT RELEASE_LOCK('held')")
	})

	t.Run("a wait that closes a cycle is 3058", func(t *testing.T) {
		// a holds first and waits for second; b holds second and asks for first. Whichever of
		// the two waits comes second closes the cycle and fails at once with 3058 (a's wait may
		// not have begun when b asks); the other gets its lock once the failed one's session
		// releases the lock it holds.
		a, b := session(t, db), session(t, db)
		aID := intOn(t, a, "SELECT CONNECTION_ID()")
		intOn(t, a, "SELECT GET_LOCK('first', 0)")
		intOn(t, b, "SELECT GET_LOCK('second', 0)")
		aDone := running(t, db, a, aID, "SELECT GET_LOCK('second', 60)")
		bDone := make(chan error, 1)
		go func() {
			var n int
			err := b.QueryRowContext(context.Background(), "SELECT GET_LOCK('first', 60)").Scan(&n)
			if err == nil && n != 1 {
				err = fmt.Errorf("GET_LOCK('first', 60) = %d", n)
			}
			bDone <- err
		}()
		isDeadlock := func(err error) bool {
			var me *mysql.MySQLError
			return errors.As(err, &me) && me.Number == 3058 && string(me.SQLState[:]) == "40001"
		}
		var failed, other *sql.Conn
		var otherDone <-chan error
		var held string
		select {
		case err := <-aDone:
			if !isDeadlock(err) {
				t.Fatalf("a's wait ended with %v, want 3058 (40001) or to wait", err)
			}
			failed, other, otherDone, held = a, b, bDone, "first"
		case err := <-bDone:
			if !isDeadlock(err) {
				t.Fatalf("b's wait ended with %v, want 3058 (40001) or to wait", err)
			}
			failed, other, otherDone, held = b, a, aDone, "second"
		case <-time.After(30 * time.Second):
			t.Fatal("neither wait found the deadlock within 30 s")
		}
		if got := intOn(t, failed, "SELECT RELEASE_LOCK('"+held+"')"); got != 1 {
			t.Fatalf("RELEASE_LOCK('%s') of the failed session: %d", held, got)
		}
		if err := <-otherDone; err != nil {
			t.Fatalf("the other wait, after the release: %v", err)
		}
		intOn(t, a, "SELECT RELEASE_ALL_LOCKS()")
		intOn(t, other, "SELECT RELEASE_ALL_LOCKS()")
	})

	t.Run("names compare without case", func(t *testing.T) {
		a, b := session(t, db), session(t, db)
		intOn(t, a, "SELECT GET_LOCK('MixedCase', 0)")
		if got := intOn(t, b, "SELECT IS_FREE_LOCK('mixedcase')"); got != 0 {
			t.Fatalf("IS_FREE_LOCK('mixedcase') while 'MixedCase' is held: %d, want 0", got)
		}
		if got := intOn(t, a, "SELECT RELEASE_LOCK('MIXEDCASE')"); got != 1 {
			t.Fatalf("RELEASE_LOCK('MIXEDCASE') = %d, want 1", got)
		}
		wantError(t, db, "SELECT GET_LOCK('', 0)", 3057, "42000")
	})
}

// running starts query on c (connection id) and returns once the process list shows it running;
// the channel gets the statement's error when it ends.
func running(t *testing.T, db *sql.DB, c *sql.Conn, id int, query string) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.ExecContext(context.Background(), query)
		done <- err
	}()
	eventually(t, 15*time.Second, "connection "+strconv.Itoa(id)+" runs "+query, func() (bool, string) {
		rows := queryStrings(t, db, "SELECT info FROM information_schema.processlist WHERE id = "+strconv.Itoa(id))
		return len(rows) == 1 && rows[0] == query, strings.Join(rows, "; ")
	})
	return done
}
