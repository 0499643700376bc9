package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"overloadsql/engine"
	"overloadsql/mysqlerr"
	"overloadsql/server/data"
	"overloadsql/server/statement"
	"overloadsql/server/wire"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Transactions are the storage's (storage/doc.go): a reader sees a snapshot, a writer writes
// into its own batch and commits it whole. The server adds, from each statement's summary
// (statement.Summary.Storage), before and after the engine runs it:
//
//   - A statement that may write takes the write lock (data.WriteLock) first, and its connection
//     keeps it until its transaction ends (commit, rollback, an implicit commit, a disconnect).
//     One transaction writes at a time; the others wait in arrival order, at most
//     innodb_lock_wait_timeout seconds (then error 1205, as MySQL), shown in the process list
//     and stopped by KILL. The store takes the same lock (data.StoreLock) for a write the summary
//     did not foresee.
//   - Every statement is marked on the storage session (BeginStatement, EndStatement): a
//     statement that fails inside a transaction undoes only its own changes, as in MySQL; one
//     that fails in autocommit mode undoes its transaction.
//   - DDL commits the open transaction first, and itself after, as in MySQL
//     (statement.CommitsImplicitly).
//
// Reads never wait: each transaction reads the snapshot taken at its first read (a writer: the
// latest committed state plus its own writes).

// storageTurn is what enterStorage did for one statement, for leaveStorage to finish.
type storageTurn struct {
	cl *client
	// implicitCommit: the statement commits implicitly (DDL; statement.CommitsImplicitly): the
	// open transaction was committed before it, and it ends in its own commit or rollback.
	implicitCommit bool
	// autocommitOff: autocommit was off when the statement started. If the statement turns it
	// on (SET autocommit = 1 in any form: in a version comment, through a prepared statement, in
	// a procedure), MySQL commits the open transaction; the engine does not when the
	// transaction began with BEGIN.
	autocommitOff bool
}

// enterStorage prepares the session for a statement (see the comment at the top of the file).
// It may wait for the write lock; ctx bounds that wait with the client's connection.
func (s *Server) enterStorage(ctx context.Context, c *mysql.Conn, stmt *statement.Summary) (storageTurn, error) {
	cl := clientOf(c)
	if cl == nil {
		return storageTurn{}, nil
	}
	turn := storageTurn{cl: cl}
	// The session's @@autocommit, which the engine's commit reads, not the status flags of the
	// last answer: a COM_RESET_CONNECTION or a failed statement leaves them behind.
	autocommit := cl.autocommit()
	turn.autocommitOff = !autocommit
	cl.forgetStaleTransaction(autocommit)
	writes := stmt.Storage() == statement.WritesStorage
	if writes && s.commitsImplicitly(cl, stmt) {
		// As MySQL: DDL commits the open transaction first, so what the transaction wrote
		// before stays whatever becomes of the DDL, and the DDL runs on its own (leaveStorage
		// commits it, or undoes it when it fails).
		turn.implicitCommit = true
		if err := cl.commit(); err != nil {
			return turn, mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "commit of the open transaction before the statement: %v", err)
		}
	}
	if writes && !s.writes.Holds(c.ConnectionID) {
		if err := s.waitForWriteLock(ctx, c, cl, stmt); err != nil {
			return turn, err
		}
	}
	if err := cl.session.BeginStatement(cl.sessionContext(), writes); err != nil {
		return turn, err
	}
	return turn, nil
}

// forgetStaleTransaction drops what is left of a transaction outside an explicit one before a
// statement: the reads the engine made between statements (COM_INIT_DB, preparing a statement)
// open a storage transaction with a snapshot, which the next statement in autocommit mode
// must not read from; and the engine's handle of a transaction the storage has ended.
func (c *client) forgetStaleTransaction(autocommit bool) {
	sess := c.session
	open, _ := sess.InTransaction()
	if open && autocommit && !sess.GetIgnoreAutoCommit() {
		_ = sess.Rollback(c.sessionContext(), nil)
		open = false
	}
	if !open && sess.GetTransaction() != nil {
		sess.SetTransaction(nil)
	}
}

// commitsImplicitly reports whether the statement commits implicitly (statement.CommitsImplicitly),
// also when it is EXECUTE of a statement prepared with PREPARE that does, as in MySQL: the
// engine keeps that statement parsed, under its name, for the session, so EXECUTE of a prepared
// ALTER TABLE commits the open transaction first, as a plain ALTER TABLE does.
//
// A statement the engine cannot parse never runs, and commits nothing, as in MySQL, where a
// syntax error ends the statement before its implicit commit: BEGIN; INSERT ...; a mistyped
// ALTER TABLE (or OPTIMIZE TABLE, which the engine's grammar lacks); ROLLBACK keeps no row.
// DDL is rare enough to be parsed twice.
func (s *Server) commitsImplicitly(cl *client, stmt *statement.Summary) bool {
	if stmt.CommitsImplicitly() {
		return s.engine == nil || s.parses(cl, stmt.Text())
	}
	name, ok := stmt.ExecutedName()
	if !ok || s.engine == nil {
		return false
	}
	prepared, ok := cl.session.GetPreparedQuery(engine.PreparedName(name))
	return ok && parsedCommitsImplicitly(prepared)
}

// parses reports whether the engine's parser, with the session's settings (sql_mode), reads
// the text as a statement.
func (s *Server) parses(cl *client, text string) bool {
	_, _, _, err := s.engine.Parser.Parse(cl.sessionContext(), text, false)
	return err == nil
}

// leaveStorage finishes a statement: the storage undoes a failed one (only the statement inside
// a transaction, the whole transaction in autocommit mode), DDL is committed, and the write lock
// is released when the connection's transaction no longer writes. failed tells that the
// statement failed.
func (s *Server) leaveStorage(c *mysql.Conn, turn storageTurn, failed bool) {
	cl := turn.cl
	if cl == nil {
		return
	}
	sess := cl.session
	ctx := cl.sessionContext()
	if turn.implicitCommit {
		// DDL ends in its own commit (the engine leaves it open when autocommit is off), or,
		// when it failed, rolls back whole: MySQL's DDL is atomic.
		if failed {
			_ = sess.Rollback(ctx, nil)
			sess.SetTransaction(nil)
		} else if err := cl.commit(); err != nil {
			s.logger.Error("commit after a statement that commits implicitly", "connection", c.ConnectionID, "err", err)
		}
	}
	explicit := !cl.autocommit() || sess.GetIgnoreAutoCommit()
	sess.EndStatement(ctx, failed, explicit)
	if open, _ := sess.InTransaction(); !open && sess.GetTransaction() != nil {
		sess.SetTransaction(nil)
	}
	if _, writing := sess.InTransaction(); !writing && s.writes.Holds(c.ConnectionID) {
		s.writes.Release(c.ConnectionID)
	}
}

// commit commits the session's open transaction, if any, and ends it.
func (c *client) commit() error {
	sess := c.session
	if open, _ := sess.InTransaction(); !open {
		sess.SetTransaction(nil)
		sess.SetIgnoreAutoCommit(false)
		return nil
	}
	if err := sess.CommitTransaction(c.sessionContext(), sess.GetTransaction()); err != nil {
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

// leaveStorageAfterPrepare ends the storage transaction that preparing a statement opened, when
// none was open before: the engine resolves the statement's tables in a transaction it neither
// commits nor rolls back, and its snapshot must not become the next statement's.
func (s *Server) leaveStorageAfterPrepare(c *mysql.Conn, wasOpen bool) {
	cl := clientOf(c)
	if cl == nil || wasOpen {
		return
	}
	if open, writing := cl.session.InTransaction(); open && !writing {
		_ = cl.session.Rollback(cl.sessionContext(), nil)
		cl.session.SetTransaction(nil)
	}
}

// transactionOpen reports whether the connection's session has a storage transaction open.
func transactionOpen(c *mysql.Conn) bool {
	if cl := clientOf(c); cl != nil {
		open, _ := cl.session.InTransaction()
		return open
	}
	return false
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

// forgetConnection rolls back the open transaction of a connection that closed and releases
// its write lock.
func (s *Server) forgetConnection(c *mysql.Conn) {
	s.checkedPlans.Forget(c.ConnectionID)
	if cl := clientOf(c); cl != nil {
		cl.session.Close()
	}
	s.writes.Release(c.ConnectionID)
	s.userLocks.ReleaseAll(c.ConnectionID)
}

// waitForWriteLock takes the write lock for the connection, waiting at most the statement's
// innodb_lock_wait_timeout, and less if the client closes its connection.
func (s *Server) waitForWriteLock(ctx context.Context, c *mysql.Conn, cl *client, stmt *statement.Summary) error {
	timeout := time.Duration(data.LockWaitTimeout(cl.sessionContext(), cl.session, stmt.Hints())) * time.Second
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, stop := wire.CancelWhenPeerCloses(ctx, c.Conn)
	defer stop()
	s.lockWaits.Start(c.ConnectionID, stmt.Text())
	defer s.lockWaits.End(c.ConnectionID)
	err := s.writes.Acquire(ctx, c.ConnectionID)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		s.counters.lockWaitTimeouts.Add(1)
		s.counters.failedQueries.Add(1)
		return mysqlerr.New(mysql.ERLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	case errors.Is(err, data.ErrWaitInterrupted):
		return mysqlerr.New(mysql.ERQueryInterrupted, "Query execution was interrupted")
	default:
		return mysqlerr.New(mysql.ERQueryInterrupted, "Query execution was interrupted while waiting for the write lock: %v", err)
	}
}

// interruptKilled stops the write-lock wait of the connection that a KILL, which succeeded,
// named: as in MySQL, KILL QUERY ends a statement that waits for a lock with error 1317, and
// KILL CONNECTION ends it before it can run.
func (s *Server) interruptKilled(stmt *statement.Summary) {
	if conn, ok := stmt.KilledConnection(); ok {
		s.writes.Interrupt(conn)
	}
}

// committingAutocommit commits the open transaction when the statement has turned autocommit
// on, before the statement's first result goes out (so a failed commit is the statement's error,
// and the OK's status flags are the ones after the commit).
func (s *Server) committingAutocommit(c *mysql.Conn, cl *client, callback resultCallback) resultCallback {
	return func(r *sqltypes.Result, more bool) error {
		if cl.autocommit() {
			if err := cl.commit(); err != nil {
				return err
			}
			c.StatusFlags &^= mysql.ServerInTransaction
		}
		return callback(r, more)
	}
}
