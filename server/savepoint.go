package server

import (
	"overloadsql/server/statement"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Savepoints. The engine's in-memory sessions refuse SAVEPOINT, which mariadb-dump and
// mysqldump --single-transaction send (SAVEPOINT sp; per table ROLLBACK TO SAVEPOINT sp;
// RELEASE SAVEPOINT sp) and ORMs use for nested transactions. The server keeps the names per
// connection and answers them itself, honestly: ROLLBACK TO SAVEPOINT succeeds when nothing
// that may write ran since the savepoint (there is nothing to undo) and fails with 1235
// otherwise, never pretending to undo a change.

// Errors of the savepoint statements, MySQL's.
const (
	erSPDoesNotExist = 1305 // ER_SP_DOES_NOT_EXIST
)

// savepoint is one savepoint of a connection: its name and the count of writing statements
// when it was set.
type savepoint struct {
	name   string
	writes uint64
}

// savepoints are a connection's savepoints in the current transaction, oldest first, and the
// count of statements that may have written; only the connection's goroutine uses them.
type savepoints struct {
	list   []savepoint
	writes uint64
}

// find returns the index of the savepoint called name (case-insensitive, as MySQL), -1 if none.
func (sp *savepoints) find(name string) int {
	for i := len(sp.list) - 1; i >= 0; i-- {
		if equalFoldASCII(sp.list[i].name, name) {
			return i
		}
	}
	return -1
}

// answerSavepoint answers SAVEPOINT, RELEASE SAVEPOINT and ROLLBACK TO SAVEPOINT; handled is
// false for any other statement.
func (h *protocolHandler) answerSavepoint(c *mysql.Conn, stmt *statement.Summary, callback func(*sqltypes.Result, bool) error, more bool) (handled bool, err error) {
	kind, name := stmt.Transaction()
	cl := clientOf(c)
	if cl == nil || kind == statement.OtherStatement || kind == statement.TransactionBoundary {
		return false, nil
	}
	sp := &cl.savepoints
	i := sp.find(name)
	switch kind {
	case statement.Savepoint:
		if c.StatusFlags&mysql.ServerInTransaction == 0 {
			// Without a transaction the savepoint ends with the statement, as in MySQL.
			break
		}
		if i >= 0 {
			sp.list = append(sp.list[:i], sp.list[i+1:]...)
		}
		sp.list = append(sp.list, savepoint{name: name, writes: sp.writes})
	case statement.ReleaseSavepoint:
		if i < 0 {
			return true, savepointMissing(name)
		}
		sp.list = sp.list[:i]
	case statement.RollbackToSavepoint:
		if i < 0 {
			return true, savepointMissing(name)
		}
		if sp.list[i].writes != sp.writes {
			return true, mysql.NewSQLError(mysql.ERNotSupportedYet, mysql.SSClientError,
				"This version of MySQL doesn't yet support 'ROLLBACK TO SAVEPOINT after a change since the savepoint'; roll back the whole transaction instead")
		}
		sp.list = sp.list[:i+1]
	}
	return true, callback(&sqltypes.Result{}, more)
}

func savepointMissing(name string) error {
	return mysql.NewSQLError(erSPDoesNotExist, mysql.SSClientError, "SAVEPOINT %s does not exist", clipped(name, quotedValue))
}

// trackSavepoints follows a statement that ran: one that may write counts, one that ends or
// starts a transaction forgets the savepoints.
func trackSavepoints(c *mysql.Conn, stmt *statement.Summary) {
	cl := clientOf(c)
	if cl == nil {
		return
	}
	kind, _ := stmt.Transaction()
	if kind == statement.TransactionBoundary || c.StatusFlags&mysql.ServerInTransaction == 0 {
		cl.savepoints.list = cl.savepoints.list[:0]
		return
	}
	if kind == statement.OtherStatement && stmt.Storage() == statement.WritesStorage {
		cl.savepoints.writes++
	}
}

// equalFoldASCII compares two names ignoring ASCII case.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
