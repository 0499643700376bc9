package storage

import (
	"sync"
	"time"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// WriteLock orders the writing transactions: a session holds it from its first write to the
// end of its transaction, and only the holder has a write batch. Acquire is re-entrant for the
// session that holds it. A server that queues writers itself (with KILL, lock_wait_timeout and
// its process list) passes its own lock in Options.WriteLock; the storage then calls Acquire
// at a transaction's first write, which returns at once when the server already granted it,
// and Release at the transaction's end.
type WriteLock interface {
	// Acquire returns when s holds the lock, or fails when ctx ends or the wait times out
	// (error 1205); then s does not hold it.
	Acquire(ctx *sql.Context, s sql.Session) error
	// Release gives the lock up if s holds it.
	Release(s sql.Session)
}

// fifoLock is the store's own WriteLock: waiters are served in arrival order.
type fifoLock struct {
	mu      sync.Mutex
	holder  sql.Session
	waiters []*fifoWaiter
	timeout time.Duration
}

type fifoWaiter struct {
	s       sql.Session
	granted chan struct{}
}

// NewWriteLock returns a WriteLock that serves waiters in arrival order and gives up after the
// session's innodb_lock_wait_timeout (or timeout, when the session has none) with error 1205.
func NewWriteLock(timeout time.Duration) WriteLock {
	return &fifoLock{timeout: timeout}
}

func (l *fifoLock) Acquire(ctx *sql.Context, s sql.Session) error {
	l.mu.Lock()
	if l.holder == s || l.holder == nil && len(l.waiters) == 0 {
		l.holder = s
		l.mu.Unlock()
		return nil
	}
	w := &fifoWaiter{s: s, granted: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()

	timeout := l.timeout
	if v, err := ctx.GetSessionVariable(ctx, "innodb_lock_wait_timeout"); err == nil {
		switch n := v.(type) {
		case int64:
			timeout = time.Duration(n) * time.Second
		case int32:
			timeout = time.Duration(n) * time.Second
		case uint64:
			timeout = time.Duration(n) * time.Second
		case int:
			timeout = time.Duration(n) * time.Second
		}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = mysqlerr.New(mysql.ERLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-w.granted:
		// granted while giving up: pass it on
		l.holder = nil
		l.handOnLocked()
		return err
	default:
	}
	for i, x := range l.waiters {
		if x == w {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			break
		}
	}
	return err
}

func (l *fifoLock) Release(s sql.Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holder != s {
		return
	}
	l.holder = nil
	l.handOnLocked()
}

func (l *fifoLock) handOnLocked() {
	if len(l.waiters) == 0 {
		return
	}
	w := l.waiters[0]
	l.waiters = l.waiters[1:]
	l.holder = w.s
	close(w.granted)
}
