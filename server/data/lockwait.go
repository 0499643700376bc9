package data

import (
	"context"
	"errors"
	"strconv"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// LockWaitTimeoutVariable is MySQL's innodb_lock_wait_timeout: the seconds a statement waits
// for the write lock. The engine declares it global-only with the range 1..1; it is declared
// again here as MySQL does (session and global, default 50).
const (
	LockWaitTimeoutVariable = "innodb_lock_wait_timeout"
	defaultLockWaitTimeout  = 50
	maxLockWaitTimeout      = 1073741824
)

// LockWaitTimeoutVariables declares innodb_lock_wait_timeout as MySQL's.
func LockWaitTimeoutVariables() []sql.SystemVariable {
	return []sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:              LockWaitTimeoutVariable,
		Scope:             sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic:           true,
		SetVarHintApplies: true,
		Type:              types.NewSystemIntType(LockWaitTimeoutVariable, 1, maxLockWaitTimeout, false),
		Default:           int64(defaultLockWaitTimeout),
	}}
}

// LockWaitTimeout is a statement's innodb_lock_wait_timeout in seconds: its SET_VAR hint (the
// wait comes before the engine applies hints), else the session's. A hint whose value is not an
// integer in the variable's range is ignored, as MySQL ignores invalid hints.
func LockWaitTimeout(ctx *sql.Context, sess sql.Session, hints []statement.Hint) int64 {
	for _, h := range hints {
		if h.Name != LockWaitTimeoutVariable {
			continue
		}
		if n, err := strconv.ParseInt(h.Value, 10, 64); err == nil && n >= 1 && n <= maxLockWaitTimeout {
			return n
		}
	}
	return sessionLockWaitTimeout(ctx, sess)
}

// sessionLockWaitTimeout is the session's innodb_lock_wait_timeout, the default when it cannot
// be read.
func sessionLockWaitTimeout(ctx *sql.Context, sess sql.Session) int64 {
	v, err := sess.GetSessionVariable(ctx, LockWaitTimeoutVariable)
	if err != nil {
		return defaultLockWaitTimeout
	}
	n, ok := v.(int64)
	if !ok || n < 1 {
		return defaultLockWaitTimeout
	}
	return n
}

// StoreLock is the store's WriteLock: the server's write lock, keyed by connection. A statement
// that may write takes it before it runs (the server's enterStorage), so Acquire normally finds
// it held; a write the statement's classification did not foresee (a procedure's write after
// its COMMIT) waits here, bounded by the session's innodb_lock_wait_timeout. TimedOut is called
// for each wait that ran out (LockWaitTimeoutQueries).
type StoreLock struct {
	Lock     *WriteLock
	Waits    *LockWaits
	TimedOut func()
}

func (l StoreLock) Acquire(ctx *sql.Context, sess sql.Session) error {
	conn := sess.ID()
	if l.Lock.Holds(conn) {
		return nil
	}
	timeout := time.Duration(sessionLockWaitTimeout(ctx, sess)) * time.Second
	wait, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l.Waits.Start(conn, ctx.Query())
	defer l.Waits.End(conn)
	err := l.Lock.Acquire(wait, conn)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		l.TimedOut()
		return mysqlerr.New(mysql.ERLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	default:
		return mysqlerr.New(mysql.ERQueryInterrupted, "Query execution was interrupted")
	}
}

func (l StoreLock) Release(sess sql.Session) { l.Lock.Release(sess.ID()) }
