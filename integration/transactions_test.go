package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The engine's in-memory sessions put back, when they commit, every table version they saw: a
// transaction that only read a table undid the changes others committed meanwhile, and two
// writers kept only the last one's rows. These tests failed before the write lock
// (transactions.go): concurrent increments lost about a third of their updates.

func TestConcurrentWritesAreNotLost(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	db.SetMaxOpenConns(8)
	const writers, increments = 3, 60
	mustExec(t, db, "CREATE TABLE counts (id INT PRIMARY KEY, v INT)")
	mustExec(t, db, "INSERT INTO counts VALUES (0, 0), (1, 0), (2, 0), (3, 0)")
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	stop := make(chan struct{})
	for w := 1; w <= writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range increments {
				for _, id := range []int{w, 0} {
					if _, err := db.Exec("UPDATE counts SET v = v + 1 WHERE id = ?", id); err != nil {
						errs <- fmt.Errorf("writer %d: %w", w, err)
						return
					}
				}
			}
		}()
	}
	// A reader in autocommit mode and one in a long read-only transaction, committing.
	readers := sync.WaitGroup{}
	readers.Add(1)
	go func() {
		defer readers.Done()
		for i := 0; i < 10000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var n int
			if err := db.QueryRow("SELECT SUM(v) FROM counts").Scan(&n); err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
			tx, err := db.Begin()
			if err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
			if err := tx.QueryRow("SELECT v FROM counts WHERE id = 1").Scan(&n); err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
			if err := tx.Commit(); err != nil {
				errs <- fmt.Errorf("reader commit: %w", err)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for id, want := range []int{writers * increments, increments, increments, increments} {
		if got := oneValue(t, db, "SELECT v FROM counts WHERE id = ?", id); got != strconv.Itoa(want) {
			t.Errorf("row %d: v = %s after %d committed increments; updates were lost", id, got, want)
		}
	}
}

// A transaction that only read a table must not undo, at its COMMIT, a change another
// connection committed after its read; its own reads stay repeatable.
func TestReadOnlyTransactionKeepsOthersCommits(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)")
	mustExec(t, db, "INSERT INTO kv VALUES (1, 1)")
	for _, begin := range []string{"BEGIN", "SET autocommit = 0"} {
		t.Run(begin, func(t *testing.T) {
			reader, writer := session(t, db), session(t, db)
			before := intOn(t, reader, "SELECT v FROM kv WHERE id = 1")
			mustExec(t, reader, begin)
			if got := intOn(t, reader, "SELECT v FROM kv WHERE id = 1"); got != before {
				t.Fatalf("read %d in the transaction, %d before it", got, before)
			}
			mustExec(t, writer, "UPDATE kv SET v = v + 1 WHERE id = 1")
			if got := intOn(t, reader, "SELECT v FROM kv WHERE id = 1"); got != before {
				t.Errorf("the transaction's second read saw %d, its first %d: reads in a transaction must repeat", got, before)
			}
			mustExec(t, reader, "COMMIT")
			if got := intOn(t, writer, "SELECT v FROM kv WHERE id = 1"); got != before+1 {
				t.Errorf("after the reader's COMMIT v = %d, want %d: the read-only transaction undid a commit", got, before+1)
			}
			mustExec(t, reader, "SET autocommit = 1")
		})
	}
}

// One transaction writes at a time: a second writer waits, fails with 1205 after
// innodb_lock_wait_timeout, and gets the lock when the first ends (ROLLBACK, a failed statement,
// a disconnect). system.metrics names the holder.
func TestWriteLockWaits(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 1)")
	holder, waiter := session(t, db), session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	holderID := intOn(t, holder, "SELECT CONNECTION_ID()")

	mustExec(t, waiter, "SET innodb_lock_wait_timeout = 1")
	_, err := waiter.ExecContext(context.Background(), "UPDATE kv SET v = 200 WHERE id = 1")
	if me := mysqlError(t, err); me.Number != 1205 || string(me.SQLState[:]) != "HY000" {
		t.Fatalf("second writer: %v, want 1205 (HY000) Lock wait timeout exceeded", err)
	}
	if got := gauge(t, db, "WriteLockHolder"); got != strconv.Itoa(holderID) {
		t.Errorf("WriteLockHolder = %s, want the holder's connection id %d", got, holderID)
	}
	if got := oneValue(t, db, "SELECT value FROM system.events WHERE event = 'LockWaitTimeoutQueries'"); got != "1" {
		t.Errorf("LockWaitTimeoutQueries = %s, want 1", got)
	}
	// Reads never wait, and do not see the uncommitted write.
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "1" {
		t.Errorf("a reader saw v = %s while the writer's transaction was open, want 1", got)
	}

	// The waiter gets the lock as soon as the holder rolls back.
	mustExec(t, waiter, "SET innodb_lock_wait_timeout = 30")
	done := waitingWrite(t, db, waiter, "UPDATE kv SET v = v + 1 WHERE id = 1")
	mustExec(t, holder, "ROLLBACK")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("second writer after the holder's ROLLBACK: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the second writer still waits after the holder's ROLLBACK")
	}
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "2" {
		t.Errorf("v = %s, want 2 (the holder's write rolled back, the waiter's applied)", got)
	}

	// A failed autocommit write leaves the lock free.
	if _, err := holder.ExecContext(context.Background(), "INSERT INTO kv VALUES (1, 5)"); err == nil {
		t.Fatal("a duplicate key was accepted")
	}
	mustExec(t, waiter, "SET innodb_lock_wait_timeout = 1", "UPDATE kv SET v = 3 WHERE id = 1")

	// A connection that closes in its transaction frees the lock, and its writes are gone.
	gone := s.open("default", "", s.addr)
	goneConn := session(t, gone)
	mustExec(t, goneConn, "BEGIN", "UPDATE kv SET v = 999 WHERE id = 1")
	goneConn.Close()
	gone.Close()
	mustExec(t, waiter, "SET innodb_lock_wait_timeout = 30", "UPDATE kv SET v = v + 1 WHERE id = 1")
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "4" {
		t.Errorf("v = %s, want 4: the closed connection's uncommitted write must be gone", got)
	}
	wantNoWriteLockHolder(t, db, "with no open transaction")
}

// COM_RESET_CONNECTION ends the session's transaction (MySQL rolls it back): the write lock
// goes with it, even if the client then stays idle.
func TestResetConnectionReleasesWriteLock(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 1)")
	c := rawLogin(t, s.addr, "default")
	command := func(payload []byte) {
		t.Helper()
		if err := c.writePacket(0, payload); err != nil {
			t.Fatal(err)
		}
		if _, p := c.mustReadPacket(); len(p) == 0 || p[0] != 0x00 {
			t.Fatalf("%q: %s, want OK", payload, describePacket(p))
		}
	}
	const comQuery, comResetConnection = 0x03, 0x1f
	command(append([]byte{comQuery}, "BEGIN"...))
	command(append([]byte{comQuery}, "UPDATE main.kv SET v = 7 WHERE id = 1"...))
	if got := gauge(t, db, "WriteLockHolder"); got == "0" {
		t.Fatal("no holder of the write lock while a transaction has written")
	}
	command([]byte{comResetConnection})
	wantNoWriteLockHolder(t, db, "after COM_RESET_CONNECTION")
	conn := session(t, db)
	mustExec(t, conn, "SET innodb_lock_wait_timeout = 1", "UPDATE kv SET v = v + 1 WHERE id = 1")
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "2" {
		t.Errorf("v = %s, want 2: the reset transaction's write must be rolled back", got)
	}
}

// SET autocommit = 1 in a session where it was 0 commits the open transaction, as in MySQL,
// also one opened with BEGIN (the engine alone left it open, to be lost at disconnect).
func TestEnablingAutocommitCommits(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY)")
	conn := session(t, db)
	mustExec(t, conn, "SET autocommit = 0", "INSERT INTO kv VALUES (1)", "SET autocommit = 1",
		"SET autocommit = 0", "BEGIN", "INSERT INTO kv VALUES (2)", "SET autocommit = 1")
	conn.Close()
	if got := oneValue(t, db, "SELECT COUNT(*) FROM kv"); got != "2" {
		t.Errorf("%s rows after the connection closed, want 2: SET autocommit = 1 must commit", got)
	}
	if got := gauge(t, db, "WriteLockHolder"); got != "0" {
		t.Errorf("WriteLockHolder = %s, want 0", got)
	}
}

// A transaction's reads repeat also when the client prepares each statement (go-sql-driver does
// for every statement with parameters: COM_STMT_PREPARE, EXECUTE, CLOSE): preparing took the
// transaction's snapshots away, so its next read saw another connection's later commit.
func TestReadOnlyTransactionRepeatsPreparedReads(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)")
	mustExec(t, db, "INSERT INTO kv VALUES (1, 1)")
	read := func(conn *sql.Conn) int {
		t.Helper()
		var v int
		if err := conn.QueryRowContext(context.Background(), "SELECT v FROM kv WHERE id = ?", 1).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, begin := range []string{"BEGIN", "SET autocommit = 0"} {
		t.Run(begin, func(t *testing.T) {
			reader, writer := session(t, db), session(t, db)
			mustExec(t, reader, begin)
			before := read(reader)
			mustExec(t, writer, "UPDATE kv SET v = v + 1 WHERE id = 1")
			if got := read(reader); got != before {
				t.Errorf("the transaction's second prepared read saw %d, its first %d: reads in a transaction must repeat", got, before)
			}
			mustExec(t, reader, "COMMIT")
			if got := read(reader); got != before+1 {
				t.Errorf("after COMMIT the reader saw %d, want %d", got, before+1)
			}
			mustExec(t, reader, "SET autocommit = 1")
		})
	}
}

// rawStatus reads the answer to a command (an OK, an ERR, or a result set ending in EOF, the
// client not having asked for CLIENT_DEPRECATE_EOF) and returns its last status flags.
func rawStatus(t *testing.T, c *rawConn) uint16 {
	t.Helper()
	_, p := c.mustReadPacket()
	switch {
	case len(p) > 0 && p[0] == 0xff:
		t.Fatalf("error: %s", describePacket(p))
	case len(p) > 0 && p[0] == 0x00:
		// OK: header, affected rows and last insert id (one byte each below 251), status.
		if len(p) < 5 || p[1] >= 0xfb || p[2] >= 0xfb {
			t.Fatalf("unexpected OK packet %s", describePacket(p))
		}
		return uint16(p[3]) | uint16(p[4])<<8
	}
	// A result set: column definitions, EOF, rows, EOF.
	for eofs := 0; ; {
		_, p := c.mustReadPacket()
		if len(p) > 0 && p[0] == 0xff {
			t.Fatalf("error in a result set: %s", describePacket(p))
		}
		if len(p) == 5 && p[0] == 0xfe {
			if eofs++; eofs == 2 {
				return uint16(p[3]) | uint16(p[4])<<8
			}
		}
	}
}

// statusInTrans is SERVER_STATUS_IN_TRANS of OK and EOF packets.
const statusInTrans = 0x1

// COM_RESET_CONNECTION gives the session MySQL's defaults, autocommit on and no transaction: the
// first read after it runs as a read in autocommit mode. It ran as one in a transaction (the
// connection's status flags still said autocommit off) and committed the table version it had
// read, undoing a change another connection committed while it ran; and a SAVEPOINT after the
// reset was kept as if a transaction were open. (The reset's own OK packet carries status flags
// 0: the protocol library writes it; the next answer has the right ones.)
func TestResetConnectionRestoresAutocommit(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 1)")
	c := rawLogin(t, s.addr, "default")
	send := func(payload []byte) {
		t.Helper()
		if err := c.writePacket(0, payload); err != nil {
			t.Fatal(err)
		}
	}
	const comQuery, comResetConnection = 0x03, 0x1f
	for _, q := range []string{"SET autocommit = 0", "SELECT v FROM main.kv"} {
		send(append([]byte{comQuery}, q...))
		if st := rawStatus(t, c); st&statusAutocommit != 0 || st&statusInTrans == 0 {
			t.Fatalf("status %#x after %s, want autocommit off, in a transaction", st, q)
		}
	}
	send([]byte{comResetConnection})
	rawStatus(t, c)
	send(append([]byte{comQuery}, "SAVEPOINT sp"...))
	rawStatus(t, c)
	send(append([]byte{comQuery}, "ROLLBACK TO SAVEPOINT sp"...))
	if _, p := c.mustReadPacket(); errCode(p) != 1305 {
		t.Errorf("ROLLBACK TO SAVEPOINT after a SAVEPOINT outside a transaction: %s, want error 1305", describePacket(p))
	}

	send([]byte{comResetConnection})
	rawStatus(t, c)
	id := intOn(t, session(t, db), "SELECT MAX(id) FROM information_schema.processlist")
	send(append([]byte{comQuery}, "SELECT v, SLEEP(3) FROM main.kv WHERE id = 1"...))
	eventually(t, 10*time.Second, "the raw connection's read runs", func() (bool, string) {
		rows := queryStrings(t, db, "SELECT info FROM information_schema.processlist WHERE id = ?", id)
		return len(rows) == 1 && rows[0] != "", fmt.Sprint(rows)
	})
	mustExec(t, db, "UPDATE kv SET v = 2 WHERE id = 1")
	if st := rawStatus(t, c); st&statusAutocommit == 0 || st&statusInTrans != 0 {
		t.Errorf("status %#x after a read in autocommit mode, want autocommit on and no transaction", st)
	}
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "2" {
		t.Errorf("v = %s, want 2: the read after COM_RESET_CONNECTION undid a concurrent commit", got)
	}
}

// The engine builds a connection's session only inside its own handler, after the server's
// checks: a connection's first statement found no session and skipped the write lock, so a
// short-lived connection's single UPDATE ran beside another transaction's writes.
func TestFirstStatementOfAConnectionTakesTheWriteLock(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 1)", "SET GLOBAL innodb_lock_wait_timeout = 1")
	holder := session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE kv SET v = 100 WHERE id = 1")
	fresh := s.open("default", "", s.addr)
	defer fresh.Close()
	_, err := fresh.Exec("UPDATE kv SET v = 5 WHERE id = 1")
	if me := mysqlError(t, err); me.Number != 1205 {
		t.Fatalf("a new connection's first UPDATE beside an open writing transaction: %v, want 1205", err)
	}
	mustExec(t, holder, "COMMIT")
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "100" {
		t.Errorf("v = %s, want 100 (the holder's commit)", got)
	}
}

// Autocommit turned on in any form commits the open transaction at once, as in MySQL: inside a
// version comment (as dump files write it) and through a prepared statement too. Those forms left
// a BEGIN transaction open, holding the write lock until the connection closed and losing its
// rows then. A transaction that only read puts nothing back.
func TestEnablingAutocommitCommitsInEveryForm(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 1)")
	for i, enable := range []string{"/*!40101 SET autocommit = 1 */", "EXECUTE enable"} {
		pool := s.open("default", "", s.addr)
		conn := session(t, pool)
		mustExec(t, conn, "PREPARE enable FROM 'SET autocommit = 1'", "SET autocommit = 0", "BEGIN",
			fmt.Sprintf("INSERT INTO kv VALUES (%d, 0)", 10+i), enable)
		if got := gauge(t, db, "WriteLockHolder"); got != "0" {
			t.Errorf("WriteLockHolder = %s after %s, want 0: the transaction must have ended", got, enable)
		}
		conn.Close()
		pool.Close()
		if got := oneValue(t, db, "SELECT COUNT(*) FROM kv WHERE id = ?", 10+i); got != "1" {
			t.Errorf("the row inserted before %s is gone after the connection closed: it must have been committed", enable)
		}
	}

	reader, writer := session(t, db), session(t, db)
	mustExec(t, reader, "SET autocommit = 0", "BEGIN")
	intOn(t, reader, "SELECT v FROM kv WHERE id = 1")
	mustExec(t, writer, "UPDATE kv SET v = 2 WHERE id = 1")
	mustExec(t, reader, "/*!40101 SET autocommit = 1 */")
	if got := oneValue(t, db, "SELECT v FROM kv WHERE id = 1"); got != "2" {
		t.Errorf("v = %s, want 2: the reading transaction's commit undid another connection's", got)
	}
}

// PyMySQL (like mysqlclient) keeps the status flags of each answer: SERVER_STATUS_IN_TRANS
// must be clear after every read in autocommit mode, whatever its form, and after autocommit
// is turned on in any form (a version comment left a BEGIN transaction open, flag set).
func TestTransactionStatusFlagsSeenByPyMySQL(t *testing.T) {
	s := startServer(t, serverOptions{})
	if _, err := s.db().Exec("CREATE TABLE kv (id INT PRIMARY KEY, v INT)"); err != nil {
		t.Fatal(err)
	}
	out := runPython(t, "pymysql", `
from pymysql.constants import CLIENT
c = connect(autocommit=True, client_flag=CLIENT.MULTI_STATEMENTS)
cur = c.cursor()
IN_TRANS, AUTOCOMMIT = 1, 2
steps = [
    ("SELECT 1", 0, AUTOCOMMIT),
    ("WITH x AS (SELECT v FROM kv) SELECT * FROM x", 0, AUTOCOMMIT),
    ("(SELECT v FROM kv) UNION (SELECT 1)", 0, AUTOCOMMIT),
    ("SHOW TABLES", 0, AUTOCOMMIT),
    ("SET @a = (SELECT COUNT(*) FROM kv)", 0, AUTOCOMMIT),
    ("SELECT 1; SELECT v FROM kv", 0, AUTOCOMMIT),
    ("SELECT nosuch FROM kv", None, None),
    ("SELECT v FROM kv", 0, AUTOCOMMIT),
    ("BEGIN", IN_TRANS, AUTOCOMMIT),
    ("SELECT v FROM kv", IN_TRANS, AUTOCOMMIT),
    ("COMMIT", 0, AUTOCOMMIT),
    ("INSERT INTO kv VALUES (1, 1)", 0, AUTOCOMMIT),
    ("SET autocommit = 0", None, 0),
    ("BEGIN", IN_TRANS, 0),
    ("INSERT INTO kv VALUES (2, 1)", IN_TRANS, 0),
    ("/*!40101 SET autocommit = 1 */", 0, AUTOCOMMIT),
    ("SELECT v FROM kv WHERE id = 2", 0, AUTOCOMMIT),
]
for sql, in_trans, autocommit in steps:
    try:
        cur.execute(sql)
        while cur.nextset():
            pass
    except pymysql.err.MySQLError as e:
        if in_trans is not None:
            print("%s: %s" % (sql, e))
        continue
    st = c.server_status
    if in_trans is not None and st & IN_TRANS != in_trans:
        print("%s: status %#x, IN_TRANS want %d" % (sql, st, in_trans))
    if autocommit is not None and st & AUTOCOMMIT != autocommit:
        print("%s: status %#x, AUTOCOMMIT want %d" % (sql, st, autocommit))
c.close()
c = connect()
cur = c.cursor()
cur.execute("SELECT COUNT(*) FROM kv")
print("rows", cur.fetchone()[0])
`, s.addr, "default", "")
	if strings.TrimSpace(out) != "rows 2" {
		t.Errorf("PyMySQL saw wrong status flags or lost rows (want only \"rows 2\"):\n%s", out)
	}
}

// With autocommit off, a transaction begins at its first read; its reads repeat also when that
// first read came while another transaction held the write lock: the read view was then not
// tied to the transaction, the next read began a new one, and a point lookup answered from the
// newer committed rows.
func TestAutocommitOffReadsRepeatAfterAWriter(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES (1, 1), (2, 1)")
	reader, writer := session(t, db), session(t, db)
	mustExec(t, writer, "BEGIN", "UPDATE kv SET v = 5 WHERE id = 2")
	mustExec(t, reader, "SET autocommit = 0", "COMMIT") // the next read begins the transaction
	if got := intOn(t, reader, "SELECT v FROM kv WHERE id = 1"); got != 1 {
		t.Fatalf("first read %d, want 1", got)
	}
	mustExec(t, writer, "UPDATE kv SET v = 50 WHERE id = 1", "COMMIT")
	if got := intOn(t, reader, "SELECT v FROM kv WHERE id = 1"); got != 1 {
		t.Errorf("the transaction's second read saw %d, its first 1: reads in a transaction must repeat", got)
	}
	mustExec(t, reader, "COMMIT")
	if got := intOn(t, reader, "SELECT v FROM kv WHERE id = 1"); got != 50 {
		t.Errorf("after COMMIT the reader saw %d, want 50", got)
	}
	mustExec(t, reader, "COMMIT")

	// A statement that may end a transaction and reads tables for the one it leaves open (LOCK
	// TABLES, SET with a subquery) begins that transaction's reads too: a point lookup after
	// another's commit answered from the newer rows while a SUM read the older ones.
	for i, begin := range []string{"LOCK TABLES kv READ", "SET autocommit = 0, @x = (SELECT v FROM kv WHERE id = 2)"} {
		mustExec(t, reader, begin)
		mustExec(t, writer, fmt.Sprintf("UPDATE kv SET v = %d WHERE id = 2", 100+i))
		point, sum := intOn(t, reader, "SELECT v FROM kv WHERE id = 2"), intOn(t, reader, "SELECT SUM(v) FROM kv")
		if first := intOn(t, reader, "SELECT v FROM kv WHERE id = 1"); point+first != sum {
			t.Errorf("after %s: point reads %d + %d, SUM %d in the same transaction", begin, first, point, sum)
		}
		mustExec(t, reader, "UNLOCK TABLES", "COMMIT")
	}
	mustExec(t, reader, "SET autocommit = 1")
}

// followCommits runs a writer that increments kv's row 7 increments times (with pauses of a few
// reads, so that readers also meet quiet spells) while each reader reads the row in a loop. A
// reader's read gives two values, which must be equal (one transaction's reads repeat), never
// less than its previous read's, and the first read that starts after the last commit must see
// it. Each loop is bounded by two minutes.
func followCommits(t *testing.T, db *sql.DB, increments int, readers map[string]func() (first, second int, err error)) {
	t.Helper()
	writerDone := make(chan struct{})
	errs := make(chan error, len(readers)+1)
	go func() {
		defer close(writerDone)
		for i := range increments {
			if _, err := db.Exec("UPDATE kv SET v = v + 1 WHERE id = 7"); err != nil {
				errs <- fmt.Errorf("writer: %w", err)
				return
			}
			if i%10 != 0 {
				continue
			}
			for range 5 {
				if _, err := db.Exec("SELECT v FROM kv WHERE id = 8"); err != nil {
					errs <- fmt.Errorf("writer's read: %w", err)
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for name, read := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1
			deadline := time.Now().Add(2 * time.Minute)
			for finished := false; time.Now().Before(deadline); {
				select {
				case <-writerDone:
					finished = true // the read below starts after the last commit
				default:
				}
				first, second, err := read()
				switch {
				case err != nil:
					errs <- fmt.Errorf("%s: %w", name, err)
					return
				case first != second:
					errs <- fmt.Errorf("%s: one transaction read %d, then %d", name, first, second)
					return
				case first < last:
					errs <- fmt.Errorf("%s read %d after %d: a read saw an older version than the one before it", name, first, last)
					return
				}
				last = first
				if finished {
					if first != increments {
						errs <- fmt.Errorf("%s read %d after the last of %d increments", name, first, increments)
					}
					return
				}
			}
			errs <- fmt.Errorf("%s: no read after the last increment within two minutes (last read %d)", name, last)
		}()
	}
	wg.Wait()
	<-writerDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// kvRows makes kv with the rows ids..., v = 0.
func kvRows(t *testing.T, db *sql.DB, ids ...int) {
	t.Helper()
	values := make([]string, len(ids))
	for i, id := range ids {
		values[i] = fmt.Sprintf("(%d, 0)", id)
	}
	mustExec(t, db, "CREATE TABLE kv (id INT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES "+strings.Join(values, ", "))
}

// Point reads in autocommit mode are answered from a map of the committed rows while no
// transaction writes (committedkeys.go): they must still see every commit, in order.
func TestPointReadsFollowCommits(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	db.SetMaxOpenConns(6)
	ids := make([]int, 200)
	for i := range ids {
		ids[i] = i + 1
	}
	kvRows(t, db, ids...)
	once := func(query string, args ...any) func() (int, int, error) {
		return func() (int, int, error) {
			var v int
			err := db.QueryRow(query, args...).Scan(&v)
			return v, v, err
		}
	}
	followCommits(t, db, 150, map[string]func() (int, int, error){
		"prepared point read": once("SELECT v FROM kv WHERE id = ?", 7),
		"text range read":     once("SELECT v FROM kv WHERE id BETWEEN 7 AND 7"),
	})
}

// Point reads inside transactions use the map of committed rows while no transaction has taken
// the write lock since the transaction began to read; they must still repeat within each
// transaction and never go back from one transaction to the next, while a writer commits.
func TestTransactionPointReadsRepeat(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	db.SetMaxOpenConns(6)
	kvRows(t, db, 7, 8, 9)
	twice := func(query string, args ...any) func() (int, int, error) {
		return func() (int, int, error) {
			tx, err := db.Begin()
			if err != nil {
				return 0, 0, err
			}
			var first, second int
			err1 := tx.QueryRow(query, args...).Scan(&first)
			err2 := tx.QueryRow(query, args...).Scan(&second)
			return first, second, errors.Join(err1, err2, tx.Commit())
		}
	}
	followCommits(t, db, 100, map[string]func() (int, int, error){
		"prepared reads in a transaction": twice("SELECT v FROM kv WHERE id = ?", 7),
		"text reads in a transaction":     twice("SELECT v FROM kv WHERE id IN (7, 9) ORDER BY id LIMIT 1"),
	})
}

// waitingWrite runs query on conn in the background and returns once system.metrics counts one
// statement waiting for the write lock; the channel gets the statement's error when it ends.
func waitingWrite(t *testing.T, db *sql.DB, conn *sql.Conn, query string) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := conn.ExecContext(context.Background(), query)
		done <- err
	}()
	eventually(t, 10*time.Second, "the statement waits for the write lock", func() (bool, string) {
		got := gauge(t, db, "WriteLockWaitingStatements")
		return got == "1", "WriteLockWaitingStatements = " + got
	})
	return done
}

// TestCallKeepsTheTransaction: a CALL inside a transaction runs the procedure in it, as in
// MySQL: what the transaction wrote before the CALL stays for its COMMIT, and its ROLLBACK takes
// back the procedure's writes too. Before, the engine began a new transaction for the procedure,
// which in the in-memory session forgot the rows written before the CALL: BEGIN; INSERT; CALL
// of any procedure (a SELECT too); COMMIT succeeded and stored only the procedure's rows.
func TestCallKeepsTheTransaction(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE pt (id INT PRIMARY KEY)",
		"CREATE PROCEDURE adds(x INT) INSERT INTO pt VALUES (x)",
		"CREATE PROCEDURE counts() SELECT COUNT(*) FROM pt")
	conn := session(t, db)
	rows := func() []string { return queryStrings(t, db, "SELECT id FROM pt ORDER BY id") }

	mustExec(t, conn, "BEGIN", "INSERT INTO pt VALUES (1)", "CALL adds(2)", "COMMIT")
	if got := rows(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("after BEGIN, INSERT 1, CALL that inserts 2, COMMIT: %q, want 1 and 2", got)
	}
	mustExec(t, conn, "BEGIN", "INSERT INTO pt VALUES (3)", "CALL counts()", "COMMIT")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("after BEGIN, INSERT 3, CALL that reads, COMMIT: %q, want 1, 2 and 3", got)
	}
	mustExec(t, conn, "SET autocommit = 0", "INSERT INTO pt VALUES (4)", "CALL adds(5)", "ROLLBACK", "SET autocommit = 1")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("after INSERT 4, CALL that inserts 5, ROLLBACK (autocommit off): %q, want 1, 2 and 3", got)
	}
	mustExec(t, conn, "CALL adds(6)")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3", "6"}) {
		t.Errorf("after a CALL in autocommit mode: %q, want 6 stored", got)
	}
	wantNoWriteLockHolder(t, db, "after the transactions ended")
}

// TestDDLInAProcedureCommitsImplicitly: DDL in a procedure commits as the same statement outside
// one does (TestDDLCommitsImplicitly): what came before it stays, and when it fails it leaves
// nothing of itself, in the table or its indexes. Before, the engine ran it inside the caller's
// transaction: a failed ALTER left its half-done changes, and the caller's ROLLBACK took back
// the renamed column but not its side index, which then named a column that was gone (index kk
// on k2, missing from SHOW INDEX).
func TestDDLInAProcedureCommitsImplicitly(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE pd (id INT PRIMARY KEY, k INT, d INT DEFAULT 0, KEY kk (k))",
		"CREATE PROCEDURE fails() ALTER TABLE pd RENAME COLUMN k TO k2, ADD UNIQUE KEY ud (d)",
		"CREATE PROCEDURE renames() ALTER TABLE pd RENAME COLUMN k TO k2")
	conn := session(t, db)
	rows := func() []string { return queryStrings(t, db, "SELECT id FROM pd ORDER BY id") }
	indexes := func() []string { return indexColumns(t, db, "pd") }

	mustExec(t, conn, "BEGIN", "INSERT INTO pd VALUES (1, 1, 0), (2, 2, 0)")
	if _, err := conn.ExecContext(context.Background(), "CALL fails()"); err == nil {
		t.Fatal("the procedure's ALTER that adds a unique key over duplicates succeeded")
	}
	mustExec(t, conn, "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("rows written before a CALL whose ALTER failed, after ROLLBACK: %q, want 1 and 2 (committed by the ALTER)", got)
	}
	if got, want := indexes(), []string{"PRIMARY\tid", "kk\tk"}; !slices.Equal(got, want) {
		t.Errorf("indexes after the failed ALTER in a procedure: %q, want %q", got, want)
	}

	mustExec(t, conn, "BEGIN", "INSERT INTO pd VALUES (3, 3, 3)", "CALL renames()", "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("after BEGIN, INSERT, CALL of an ALTER, ROLLBACK: %q, want 1, 2 and 3", got)
	}
	if got, want := indexes(), []string{"PRIMARY\tid", "kk\tk2"}; !slices.Equal(got, want) {
		t.Errorf("indexes after the ALTER in a procedure and a ROLLBACK: %q, want %q", got, want)
	}
	if got := queryStrings(t, db, "SELECT id FROM pd WHERE k2 = 3"); !slices.Equal(got, []string{"3"}) {
		t.Errorf("lookup by k2: %q, want 3", got)
	}
	wantNoWriteLockHolder(t, db, "after the transactions ended")
}

// TestCommitInAProcedureEndsItsTransaction: after a COMMIT in a procedure, the procedure's next
// writes are in a new transaction (with autocommit off, as in MySQL): a ROLLBACK takes them
// back, and no other connection sees them before. The session's copies of the tables it
// committed are its no more: before, the writes after the COMMIT went into the committed tables
// themselves.
func TestCommitInAProcedureEndsItsTransaction(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE pc (id INT PRIMARY KEY)",
		"CREATE PROCEDURE commits() BEGIN INSERT INTO pc VALUES (2); COMMIT; INSERT INTO pc VALUES (3); SIGNAL SQLSTATE '45000'; END")
	conn := session(t, db)
	mustExec(t, conn, "SET autocommit = 0", "INSERT INTO pc VALUES (1)")
	if _, err := conn.ExecContext(context.Background(), "CALL commits()"); err == nil {
		t.Fatal("the procedure's SIGNAL did not fail the CALL")
	}
	if got := queryStrings(t, db, "SELECT id FROM pc ORDER BY id"); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("seen by another connection before the ROLLBACK: %q, want 1 and 2 (committed in the procedure)", got)
	}
	mustExec(t, conn, "ROLLBACK", "SET autocommit = 1")
	if got := queryStrings(t, db, "SELECT id FROM pc ORDER BY id"); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("after the ROLLBACK: %q, want 1 and 2", got)
	}
	wantNoWriteLockHolder(t, db, "after the transactions ended")
}

// A procedure whose last statement is COMMIT, ROLLBACK or START TRANSACTION (a common way to end
// one) answers its CALL with OK: the engine gives those statements no row, and the CALL failed
// with 1105 "EOF" after the procedure had run.
func TestProcedureEndingInCommit(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE pe (id INT PRIMARY KEY)",
		"CREATE PROCEDURE ends_commit() BEGIN INSERT INTO pe VALUES (2); COMMIT; END",
		"CREATE PROCEDURE ends_rollback() BEGIN START TRANSACTION; INSERT INTO pe VALUES (5); ROLLBACK; END",
		"CREATE PROCEDURE ends_begin() BEGIN START TRANSACTION; END")
	conn := session(t, db)
	rows := func() []string { return queryStrings(t, db, "SELECT id FROM pe ORDER BY id") }
	mustExec(t, conn, "BEGIN", "INSERT INTO pe VALUES (1)", "CALL ends_commit()", "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("after a CALL that commits, and ROLLBACK: %q, want 1 and 2", got)
	}
	mustExec(t, conn, "CALL ends_rollback()")
	if got := rows(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("after a CALL that rolls back its own insert: %q, want 1 and 2", got)
	}
	mustExec(t, conn, "CALL ends_begin()", "INSERT INTO pe VALUES (9)", "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("the transaction a CALL began, rolled back after it: %q, want 1 and 2", got)
	}
	wantNoWriteLockHolder(t, db, "after the transactions ended")
}
