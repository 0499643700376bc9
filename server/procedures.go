package server

import (
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// procedureRunner runs the statements of stored procedures (the engine's interpreter), each in
// the caller's transaction, as in MySQL.
//
// The engine's CALL sets the session's transaction aside while the procedure runs (it puts it
// back after), so the procedure's first statement begins a transaction; and the in-memory
// session keeps a transaction's writes in the session, not in the transaction, and forgets them
// all when one begins. So a CALL inside a transaction lost every row the transaction had written
// before it (BEGIN; INSERT ...; CALL p(); COMMIT stored only p's rows), whatever p did, even a
// plain SELECT. Without a transaction, a statement of the procedure now runs in one that keeps
// the session's writes: they are the caller's, which the procedure runs in, or, after a COMMIT
// or ROLLBACK inside the procedure, the committed tables themselves (the CALL holds the write
// lock, so no other commit changes them meanwhile).
type procedureRunner struct {
	next sql.StatementRunner
}

// QueryWithBindings implements sql.StatementRunner.
func (r procedureRunner) QueryWithBindings(ctx *sql.Context, query string, parsed sqlparser.Statement, bindings map[string]sqlparser.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	if _, inMemory := ctx.Session.(*memory.Session); inMemory && ctx.GetTransaction() == nil {
		ctx.SetTransaction(&memory.Transaction{})
	}
	return r.next.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
}
