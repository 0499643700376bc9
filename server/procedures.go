package server

import (
	"context"
	"io"

	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// procedureRunner runs the statements of stored procedures (the engine's interpreter), each in
// the caller's transaction, as in MySQL, and DDL among them with its implicit commits.
//
// The engine's CALL sets the session's transaction aside while the procedure runs (it puts it
// back after), so the procedure's first statement begins a transaction; and the in-memory
// session keeps a transaction's writes in the session, not in the transaction, and forgets them
// all when one begins. So a CALL inside a transaction lost every row the transaction had written
// before it (BEGIN; INSERT ...; CALL p(); COMMIT stored only p's rows), whatever p did, even a
// plain SELECT. The procedure's first statement now runs in a transaction that keeps the
// session's writes: the caller's. A later statement that finds no transaction follows a COMMIT
// or ROLLBACK in the procedure, and begins a new one the engine's way, from the committed tables
// (keeping the session's copies of them after a commit would write into the committed tables
// themselves, seen by all before any commit).
//
// The engine runs a procedure's DDL inside that transaction, without the commits around it that
// the server gives a DDL statement (enterStorage, leaveStorage): a failed ALTER TABLE in a
// procedure left its half-done changes for the caller's COMMIT, and the side indexes' definitions
// changed for good while the caller's ROLLBACK took the columns back. So DDL in a procedure
// commits what came before it, and then itself, or, when it fails, is rolled back with the side
// indexes' definitions, as the same statement outside a procedure.
type procedureRunner struct {
	next sql.StatementRunner
	s    *Server
}

// callStartKey keys a CALL's callStart on the context its plan is built with (guard.Build).
type callStartKey struct{}

// callStart tells that the procedure of a CALL has not run a statement yet.
type callStart struct{ pending bool }

// enteringCall is ctx for building the plan of a CALL.
func enteringCall(ctx *sql.Context) *sql.Context {
	return ctx.WithContext(context.WithValue(ctx.Context, callStartKey{}, &callStart{pending: true}))
}

// QueryWithBindings implements sql.StatementRunner.
func (r procedureRunner) QueryWithBindings(ctx *sql.Context, query string, parsed sqlparser.Statement, bindings map[string]sqlparser.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	ctx = r.s.checkedPlans.again(ctx)
	sess, inMemory := ctx.Session.(*memory.Session)
	if !inMemory {
		return r.next.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	}
	if start, ok := ctx.Value(callStartKey{}).(*callStart); ok && start.pending {
		start.pending = false
		if ctx.GetTransaction() == nil {
			// The caller's transaction, which the CALL set aside: its writes are the session's.
			ctx.SetTransaction(&memory.Transaction{})
		}
	}
	switch parsed.(type) {
	case *sqlparser.Commit, *sqlparser.Rollback, *sqlparser.Begin:
		schema, iter, flags, err := r.next.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
		if err != nil {
			return nil, nil, nil, err
		}
		return schema, &okWhenEmpty{RowIter: iter}, flags, nil
	}
	// Only the holder of the write lock commits (a CALL takes it); events, which the scheduler
	// runs in sessions of their own, keep the engine's way.
	if parsed == nil || !r.s.writes.holds(sess.ID()) || !parsedCommitsImplicitly(parsed) {
		return r.next.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	}
	if err := r.commit(ctx, sess); err != nil {
		return nil, nil, nil, err
	}
	schema, iter, flags, err := r.next.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	if err != nil {
		r.rollBack(ctx, sess)
		return nil, nil, nil, err
	}
	return schema, &procedureDDL{RowIter: iter, runner: r, sess: sess}, flags, nil
}

// parsedCommitsImplicitly reports whether a parsed statement commits implicitly
// (statement.CommitsImplicitly), read from its text as the parser prints it.
func parsedCommitsImplicitly(parsed sqlparser.Statement) bool {
	text := statement.Summarize(sqlparser.String(parsed))
	return text.CommitsImplicitly()
}

// commit commits the session's transaction, if any, and ends it: the next statement begins
// another from the committed tables. The commit ends the caller's BEGIN too: what follows runs in
// autocommit mode, unless autocommit is off. The side indexes' definitions so far are final.
func (r procedureRunner) commit(ctx *sql.Context, sess *memory.Session) error {
	if tx := ctx.GetTransaction(); tx != nil {
		if err := sess.CommitTransaction(ctx, tx); err != nil {
			return err
		}
	}
	ctx.SetTransaction(nil)
	sess.SetIgnoreAutoCommit(false)
	r.s.side.beginStatement()
	return nil
}

// rollBack drops what a failed DDL statement in a procedure changed, and the side indexes'
// definitions go back with it.
func (r procedureRunner) rollBack(ctx *sql.Context, sess *memory.Session) {
	// The in-memory session's Rollback forgets the transaction's tables and edits and cannot fail.
	_ = sess.Rollback(ctx, ctx.GetTransaction())
	ctx.SetTransaction(nil)
	if err := r.s.side.rollbackStatement(); err != nil {
		r.s.logger.Error("undo of a failed statement in a procedure", "connection", sess.ID(), "err", err)
	}
}

// procedureDDL is the rows of a DDL statement in a procedure: when they close, the statement is
// committed, or rolled back if it failed.
type procedureDDL struct {
	sql.RowIter
	runner procedureRunner
	sess   *memory.Session
	failed bool
}

// Next implements sql.RowIter.
func (d *procedureDDL) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := d.RowIter.Next(ctx)
	if err != nil && err != io.EOF {
		d.failed = true
	}
	return row, err
}

// Close implements sql.RowIter.
func (d *procedureDDL) Close(ctx *sql.Context) error {
	err := d.RowIter.Close(ctx)
	if err == nil && !d.failed {
		err = d.runner.commit(ctx, d.sess)
	}
	if err != nil || d.failed {
		d.runner.rollBack(ctx, d.sess)
	}
	return err
}

// okWhenEmpty is the rows of COMMIT, ROLLBACK or START TRANSACTION in a procedure: the engine
// answers them with no row, and when one was a procedure's last statement, the CALL, whose
// answer is its last statement's, failed with error 1105 "EOF" (the protocol layer reads one row
// for an OK), though the statement had run. An OK row stands for the empty answer.
type okWhenEmpty struct {
	sql.RowIter
	started bool
}

// Next implements sql.RowIter.
func (o *okWhenEmpty) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := o.RowIter.Next(ctx)
	if err == io.EOF && !o.started {
		o.started = true
		return sql.NewRow(types.NewOkResult(0)), nil
	}
	o.started = true
	return row, err
}
