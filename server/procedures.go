package server

import (
	"io"

	"overloadsql/server/statement"
	"overloadsql/storage"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// procedureRunner runs the statements of stored procedures (the engine's interpreter), each in
// the caller's transaction, as in MySQL (the storage session continues its transaction when the
// engine's CALL sets the handle aside), and DDL among them with its implicit commits: the engine
// runs a procedure's DDL inside that transaction, without the commits around it that the server
// gives a DDL statement (enterStorage, leaveStorage). So DDL in a procedure commits what came
// before it, and then itself, or, when it fails, is rolled back, as the same statement outside a
// procedure.
type procedureRunner struct {
	next sql.StatementRunner
	s    *Server
}

// QueryWithBindings implements sql.StatementRunner.
func (r procedureRunner) QueryWithBindings(ctx *sql.Context, query string, parsed sqlparser.Statement, bindings map[string]sqlparser.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	ctx = r.s.checkedPlans.Again(ctx)
	sess, stored := ctx.Session.(*storage.Session)
	if !stored {
		return r.next.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	}
	switch parsed.(type) {
	case *sqlparser.Commit, *sqlparser.Rollback, *sqlparser.Begin:
		schema, iter, flags, err := r.next.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
		if err != nil {
			return nil, nil, nil, err
		}
		return schema, &okWhenEmpty{RowIter: iter}, flags, nil
	}
	if parsed == nil || !parsedCommitsImplicitly(parsed) {
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

// commit commits the session's transaction, if any, and ends it. The commit ends the caller's
// BEGIN too: what follows runs in autocommit mode, unless autocommit is off.
func (r procedureRunner) commit(ctx *sql.Context, sess *storage.Session) error {
	if open, _ := sess.InTransaction(); open {
		if err := sess.CommitTransaction(ctx, ctx.GetTransaction()); err != nil {
			return err
		}
	}
	ctx.SetTransaction(nil)
	sess.SetIgnoreAutoCommit(false)
	return nil
}

// rollBack drops what a failed DDL statement in a procedure changed.
func (r procedureRunner) rollBack(ctx *sql.Context, sess *storage.Session) {
	_ = sess.Rollback(ctx, ctx.GetTransaction())
	ctx.SetTransaction(nil)
}

// procedureDDL is the rows of a DDL statement in a procedure: when they close, the statement is
// committed, or rolled back if it failed.
type procedureDDL struct {
	sql.RowIter
	runner procedureRunner
	sess   *storage.Session
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
// answers them with no row, and when one is a procedure's last statement, the CALL, whose
// answer is its last statement's, would fail with error 1105 "EOF" (the protocol layer reads one
// row for an OK), though the statement has run. An OK row stands for the empty answer.
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
