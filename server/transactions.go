package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Transactions over the in-memory tables. The engine's in-memory session keeps, for each table a
// transaction touches, the version of the table it first saw (a snapshot; its own writes go into
// a copy), and its commit puts every one of those versions back as the table's current one:
// the tables it only read too. So a transaction that read a table while another one committed a
// change to it undid that change when it committed, and two transactions writing the same table
// at once kept only the last one's writes: concurrent clients lost committed rows, silently.
//
// The server therefore decides what reaches a commit, from each statement's summary
// (statement.Summary.Storage), before and after the engine runs it:
//
//   - A statement that may write takes the write lock (writeLock) first, and its connection
//     keeps it until its transaction ends (commit, rollback, an implicit commit, a disconnect).
//     One transaction writes at a time; the others wait in arrival order, at most
//     innodb_lock_wait_timeout seconds (then error 1205, as MySQL). When the lock is taken in the
//     middle of a transaction, the snapshots its reads took before are dropped first, so its
//     writes start from the current tables.
//   - A transaction that does not hold the lock has written nothing, so its commit must put
//     nothing back: before a statement that may end it (COMMIT, ROLLBACK, BEGIN, SET autocommit,
//     LOCK / UNLOCK TABLES) its snapshots are dropped, and a reading statement in autocommit mode
//     runs without the engine's commit at its end, its snapshots dropped instead.
//
// Reads never wait: a read in autocommit mode sees the tables as last committed; the reads of an
// explicit transaction that writes nothing see the tables as they were when each was first read
// in it (a consistent dump); a writing transaction sees the current tables and its own writes.

// Errors of the write lock, MySQL's.
const (
	erLockWaitTimeout = mysql.ERLockWaitTimeout // 1205
)

// lockWaitTimeoutVariable is MySQL's innodb_lock_wait_timeout: the seconds a statement waits
// for the write lock. The engine declares it global-only with the range 1..1; it is declared
// again here as MySQL does (session and global, default 50).
const (
	lockWaitTimeoutVariable = "innodb_lock_wait_timeout"
	defaultLockWaitTimeout  = 50
	maxLockWaitTimeout      = 1073741824
)

// lockWaitTimeoutVariables declares innodb_lock_wait_timeout as MySQL's.
func lockWaitTimeoutVariables() []sql.SystemVariable {
	return []sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:              lockWaitTimeoutVariable,
		Scope:             sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic:           true,
		SetVarHintApplies: true,
		Type:              types.NewSystemIntType(lockWaitTimeoutVariable, 1, maxLockWaitTimeout, false),
		Default:           int64(defaultLockWaitTimeout),
	}}
}

// storageTurn is what enterStorage did for one statement, for leaveStorage to finish.
type storageTurn struct {
	cl *client
	// alone: a read in autocommit mode, run without the engine's commit.
	alone bool
	// implicitCommit: the statement commits implicitly (DDL; statement.CommitsImplicitly): the
	// open transaction was committed before it, and it ends in its own commit or rollback.
	implicitCommit bool
	// autocommitOff: autocommit was off when the statement started. If the statement turns it
	// on (SET autocommit = 1 in any form: in a version comment, through a prepared statement, in
	// a procedure), MySQL commits the open transaction; the engine does not when the
	// transaction began with BEGIN.
	autocommitOff bool
	// answered: the statement's answer began to go out (answering). The engine commits a
	// statement in autocommit mode, and DDL, before its OK: one that failed without an answer
	// was not committed, even when the engine has already dropped its transaction.
	answered bool
}

// enterStorage prepares the session for a statement (see the comment at the top of the file).
// It may wait for the write lock; ctx bounds that wait with the client's connection.
func (s *Server) enterStorage(ctx context.Context, c *mysql.Conn, stmt *statement.Summary) (storageTurn, error) {
	cl := clientOf(c)
	if cl == nil {
		return storageTurn{}, nil
	}
	turn := storageTurn{cl: cl}
	sess := cl.session
	holder := s.writes.holds(c.ConnectionID)
	// The session's @@autocommit, which the engine's commit reads, not the status flags of the
	// last answer: a COM_RESET_CONNECTION or a failed statement leaves them behind.
	autocommit := cl.autocommit()
	turn.autocommitOff = !autocommit
	switch stmt.Storage() {
	case statement.WritesStorage:
		if !holder {
			if err := s.waitForWriteLock(ctx, c, cl, stmt); err != nil {
				return storageTurn{}, err
			}
			cl.dropSnapshots(false)
		}
		// With the lock: no other statement changes the side indexes' definitions meanwhile.
		s.side.beginStatement()
		if s.commitsImplicitly(cl, stmt) {
			// As MySQL: DDL commits the open transaction first, so what the transaction wrote
			// before stays whatever becomes of the DDL, and the DDL runs on its own (leaveStorage
			// commits it, or drops what it did when it fails).
			turn.implicitCommit = true
			if err := cl.commit(); err != nil {
				return turn, mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "commit of the open transaction before the statement: %v", err)
			}
			cl.view = readView{}
		}
	case statement.EndsTransaction:
		if !holder {
			cl.dropSnapshots(false)
			// Its reads begin the view of the transaction it leaves open, if any (LOCK TABLES,
			// SET autocommit = 0, @x = (SELECT ...)): a later read must not begin another.
			s.transactionRead(cl)
		}
	case statement.ReadsStorage:
		if holder {
			break
		}
		var read committedRead
		if !sess.GetIgnoreAutoCommit() && autocommit {
			sess.SetIgnoreAutoCommit(true)
			turn.alone = true
			read = s.keys.startCommittedRead()
		} else {
			read = s.transactionRead(cl)
		}
		if f, ok := ctx.Value(inFlightKey{}).(*inFlight); ok {
			f.read = read
		}
	}
	return turn, nil
}

// commitsImplicitly reports whether the statement commits implicitly (statement.CommitsImplicitly),
// also when it is EXECUTE of a statement prepared with PREPARE that does, as in MySQL: the
// engine keeps that statement parsed, under its name, for the session. Before, EXECUTE of a
// prepared ALTER TABLE ran inside the open transaction: when it failed, the rows written before
// it were lost with the transaction, and its half-done column changes left for the next COMMIT.
//
// A statement the engine cannot parse never runs, and commits nothing, as in MySQL, where a
// syntax error ends the statement before its implicit commit: before, BEGIN; INSERT ...; a
// mistyped ALTER TABLE (or OPTIMIZE TABLE, which the engine's grammar lacks); ROLLBACK kept the
// row. DDL is rare enough to be parsed twice.
func (s *Server) commitsImplicitly(cl *client, stmt *statement.Summary) bool {
	if stmt.CommitsImplicitly() {
		return s.engine == nil || s.parses(cl, stmt.Text())
	}
	name, ok := stmt.ExecutedName()
	if !ok || s.engine == nil {
		return false
	}
	prepared, ok := cl.session.GetPreparedQuery(preparedName(name))
	return ok && parsedCommitsImplicitly(prepared)
}

// parses reports whether the engine's parser, with the session's settings (sql_mode), reads
// the text as a statement.
func (s *Server) parses(cl *client, text string) bool {
	_, _, _, err := s.engine.Parser.Parse(cl.sessionContext(), text, false)
	return err == nil
}

// leaveStorage finishes a statement: a read in autocommit mode ends its transaction without
// the commit, and the write lock is released when the transaction that took it has ended.
// failed tells that the statement failed.
func (s *Server) leaveStorage(c *mysql.Conn, turn storageTurn, failed bool) {
	cl := turn.cl
	if cl == nil {
		return
	}
	if turn.alone {
		cl.session.SetIgnoreAutoCommit(false)
		cl.dropSnapshots(true)
		c.StatusFlags &^= mysql.ServerInTransaction
	} else if cl.view.pending {
		// The transaction the engine began in the statement; also when the view claims nothing
		// (a writer held the lock): the next read must not begin another view, and with it a
		// claim to the newer committed rows, in the same transaction.
		cl.view.tx, cl.view.pending = cl.session.GetTransaction(), false
	}
	if !s.writes.holds(c.ConnectionID) {
		return
	}
	alone := turn.implicitCommit || !cl.session.GetIgnoreAutoCommit() && cl.autocommit()
	tx := cl.session.GetTransaction()
	if failed && alone && (tx != nil || !turn.answered) {
		// A statement in autocommit mode, or DDL, that failed: its transaction, rolled back
		// below or already dropped by the engine (a statement that fails while its plan is
		// built, as an ALTER TABLE with several changes does), drops what it changed, the
		// columns an ALTER TABLE renamed or dropped too; the definitions of the side indexes go
		// back with them. One that failed after its commit, which comes before its OK (the
		// client went away while the answer was written), keeps the definitions as committed.
		if err := s.side.rollbackStatement(); err != nil {
			s.logger.Error("undo of a failed statement", "connection", c.ConnectionID, "err", err)
		}
	}
	if tx != nil && turn.implicitCommit && !failed {
		// DDL that succeeded and that the engine left open (autocommit off): committed, as MySQL.
		if err := cl.commit(); err != nil {
			s.logger.Error("commit after a statement that commits implicitly", "connection", c.ConnectionID, "err", err)
		}
		tx = nil
	}
	if tx != nil && alone {
		// A statement in autocommit mode that failed: the engine neither committed nor rolled
		// back its transaction. MySQL rolls the statement back.
		cl.dropSnapshots(true)
		tx = nil
	}
	if tx == nil || cl.lockedTx != nil && tx != cl.lockedTx {
		cl.lockedTx = nil
		s.releaseWriteLock(cl.sessionContext(), c.ConnectionID)
		return
	}
	cl.lockedTx = tx
}

// answering notes in turn that the statement's answer began to go out.
func answering(turn *storageTurn, callback resultCallback) resultCallback {
	return func(r *sqltypes.Result, more bool) error {
		turn.answered = true
		return callback(r, more)
	}
}

// commit commits the session's open transaction, if any, and ends it.
func (c *client) commit() error {
	sess := c.session
	tx := sess.GetTransaction()
	if tx == nil {
		return nil
	}
	if err := sess.CommitTransaction(c.sessionContext(), tx); err != nil {
		return fmt.Errorf("commit the open transaction: %w", err)
	}
	sess.SetTransaction(nil)
	sess.SetIgnoreAutoCommit(false)
	return nil
}

// autocommit is the session's @@autocommit; true when it cannot be read, as the engine's default.
func (c *client) autocommit() bool {
	v, err := c.session.GetSessionVariable(c.sessionContext(), sql.AutoCommitSessionVar)
	if err != nil {
		return true
	}
	on, err := sql.ConvertToBool(c.sessionContext(), v)
	return err != nil || on
}

// openTransaction is the session's transaction now, nil when none (or no session).
func openTransaction(c *mysql.Conn) sql.Transaction {
	if cl := clientOf(c); cl != nil {
		return cl.session.GetTransaction()
	}
	return nil
}

// leaveStorageAfterPrepare puts the session's transaction back as it was before a statement was
// prepared (before): the engine resolves the tables the statement names, which takes their
// snapshots, in a new transaction when none was open, that it neither commits nor rolls back. A
// new one is dropped; an open one keeps them, as if it had read the tables (its reads must
// repeat, and drivers prepare every statement they run with parameters).
func (s *Server) leaveStorageAfterPrepare(c *mysql.Conn, before sql.Transaction) {
	cl := clientOf(c)
	if cl == nil || s.writes.holds(c.ConnectionID) {
		return
	}
	if before != nil && cl.session.GetTransaction() == before {
		return
	}
	cl.dropSnapshots(true)
}

// ensureSession builds the connection's session if the engine has not built it yet.
func (s *Server) ensureSession(ctx context.Context, c *mysql.Conn) error {
	if clientOf(c) != nil {
		return nil
	}
	if _, err := s.protocol.SessionManager().NewContextWithQuery(ctx, c, ""); err != nil {
		return fmt.Errorf("build the session of connection %d: %w", c.ConnectionID, err)
	}
	return nil
}

// readView is the claim of a transaction's reads (committedRead): made when the transaction had
// read no table yet, it holds while no transaction has taken the write lock since, for then every
// table version the transaction has read is the committed one. tx is the transaction it is of;
// pending is set while the statement that began it, and the transaction, runs (tx is then nil).
type readView struct {
	tx      sql.Transaction
	pending bool
	read    committedRead
}

// transactionRead returns the claim of a read in an open transaction that has not written,
// beginning the transaction's view if its reads begin now: when no transaction is open (the
// engine will begin one for this statement) or another than the view's is. Every way the
// session's table versions are dropped (dropSnapshots) drops the view with them.
func (s *Server) transactionRead(cl *client) committedRead {
	if tx := cl.session.GetTransaction(); tx == nil || tx != cl.view.tx {
		cl.view = readView{tx: tx, pending: tx == nil, read: s.keys.startCommittedRead()}
	}
	return cl.view.read
}

// enterPrepare begins the open transaction's view before a statement is prepared, if its reads
// have not begun it: preparing resolves the statement's tables, which, for a transaction that
// keeps them (leaveStorageAfterPrepare), is a read of their versions.
func (s *Server) enterPrepare(c *mysql.Conn) {
	cl := clientOf(c)
	if cl == nil || s.writes.holds(c.ConnectionID) || cl.session.GetTransaction() == nil {
		return
	}
	s.transactionRead(cl)
}

// forgetConnection releases the write lock of a connection that closed: the engine drops its
// session and with it the transaction's writes.
func (s *Server) forgetConnection(c *mysql.Conn) {
	s.checkedPlans.forget(c.ConnectionID)
	if s.writes.holds(c.ConnectionID) {
		s.releaseWriteLock(sql.NewEmptyContext(), c.ConnectionID)
	}
}

// releaseWriteLock releases conn's write lock at the end of its transaction, and forgets the
// key maps of the table versions its commit replaced (committedKeys.prune).
func (s *Server) releaseWriteLock(ctx *sql.Context, conn uint32) {
	s.writes.release(conn)
	s.keys.prune(ctx)
}

// waitForWriteLock takes the write lock for the connection, waiting at most the statement's
// innodb_lock_wait_timeout, and less if the client closes its connection.
func (s *Server) waitForWriteLock(ctx context.Context, c *mysql.Conn, cl *client, stmt *statement.Summary) error {
	timeout := time.Duration(lockWaitTimeout(cl, stmt)) * time.Second
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, stop := cancelWhenPeerCloses(ctx, c.Conn)
	defer stop()
	s.lockWaits.start(c.ConnectionID, stmt.Text())
	defer s.lockWaits.end(c.ConnectionID)
	err := s.writes.acquire(ctx, c.ConnectionID)
	switch {
	case err == nil:
		cl.lockedTx = nil
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		s.counters.lockWaitTimeouts.Add(1)
		s.counters.failedQueries.Add(1)
		return mysql.NewSQLError(erLockWaitTimeout, mysql.SSUnknownSQLState, "Lock wait timeout exceeded; try restarting transaction")
	case errors.Is(err, errWaitInterrupted):
		return mysql.NewSQLError(mysql.ERQueryInterrupted, "70100", "Query execution was interrupted")
	default:
		return mysql.NewSQLError(mysql.ERQueryInterrupted, "70100", "Query execution was interrupted while waiting for the write lock: %v", err)
	}
}

// interruptKilled stops the write-lock wait of the connection that a KILL, which succeeded,
// named: as in MySQL, KILL QUERY ends a statement that waits for a lock with error 1317, and
// KILL CONNECTION ends it before it can run.
func (s *Server) interruptKilled(stmt *statement.Summary) {
	if conn, ok := stmt.KilledConnection(); ok {
		s.writes.interrupt(conn)
	}
}

// lockWaitTimeout is the statement's innodb_lock_wait_timeout in seconds: its SET_VAR hint (the
// wait comes before the engine applies hints), else the session's. A hint whose value is not an
// integer in the variable's range is ignored, as MySQL ignores invalid hints.
func lockWaitTimeout(cl *client, stmt *statement.Summary) int64 {
	for _, h := range stmt.Hints() {
		if h.Name != lockWaitTimeoutVariable {
			continue
		}
		if n, err := strconv.ParseInt(h.Value, 10, 64); err == nil && n >= 1 && n <= maxLockWaitTimeout {
			return n
		}
	}
	v, err := cl.session.GetSessionVariable(cl.sessionContext(), lockWaitTimeoutVariable)
	if err != nil {
		return defaultLockWaitTimeout
	}
	n, ok := v.(int64)
	if !ok || n < 1 {
		return defaultLockWaitTimeout
	}
	return n
}

// dropSnapshots rolls the session's transaction back: it forgets the tables the transaction
// has read, and what it wrote (a transaction without the write lock wrote nothing), so that a
// commit after this puts nothing back. end also ends the transaction, as the commit of an
// autocommit statement would have.
func (c *client) dropSnapshots(end bool) {
	sess := c.session
	tx := sess.GetTransaction()
	if tx == nil {
		return
	}
	// The in-memory session's Rollback forgets the transaction's tables and edits and cannot fail.
	_ = sess.Rollback(c.sessionContext(), tx)
	c.view = readView{}
	if end {
		sess.SetTransaction(nil)
	}
}

// refuseUnlockedWrites is the write lock's last line, an analyzer rule: a statement the server
// took for a plain read (statement.ReadsStorage) runs without the write lock, and a session
// without the lock reads the committed tables themselves (committedDatabase), so a write in it
// would change them in place, beside the holder's transaction. The plan of such a statement
// must not write; if it does (a form the classification misses), it is refused rather than run.
// EXPLAIN and DESCRIBE are let through: the engine analyzes the statement they describe, which
// they do not run.
func refuseUnlockedWrites(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	f, ok := ctx.Value(inFlightKey{}).(*inFlight)
	if !ok || f.summary.Storage() != statement.ReadsStorage || plan.IsReadOnly(n) || f.summary.IsExplain() {
		return n, transform.SameTree, nil
	}
	return nil, transform.SameTree, mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState,
		"this statement writes, but its text was taken for a read, which runs without the write lock; write it with the writing keyword first (INSERT, UPDATE, DELETE, ...)")
}

// committingAutocommit commits the open transaction when the statement has turned autocommit
// on, before the statement's first result goes out (so a failed commit is the statement's error,
// and the OK's status flags are the ones after the commit). A transaction without the write lock
// wrote nothing: its snapshots are dropped first, so that its commit puts nothing back.
func (s *Server) committingAutocommit(c *mysql.Conn, cl *client, callback resultCallback) resultCallback {
	return func(r *sqltypes.Result, more bool) error {
		if cl.autocommit() {
			if !s.writes.holds(c.ConnectionID) {
				cl.dropSnapshots(false)
			}
			if err := cl.commit(); err != nil {
				return err
			}
			c.StatusFlags &^= mysql.ServerInTransaction
		}
		return callback(r, more)
	}
}

// withoutTransactionFlag clears the in-transaction status flag before each result of a read
// run without the engine's commit: the engine sets the flag from the transaction it still has
// when it answers, and an OK packet carries it to the client.
func withoutTransactionFlag(c *mysql.Conn, callback resultCallback) resultCallback {
	return func(r *sqltypes.Result, more bool) error {
		c.StatusFlags &^= mysql.ServerInTransaction
		return callback(r, more)
	}
}
