package data

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// WriteLock is held by the one connection whose transaction may write stored tables, from its
// first writing statement to the end of that transaction; the others wait for it in arrival
// order. It is re-entrant per connection. Lock order: mu is a leaf; a connection waits for the
// lock holding no other lock of the server, before it takes a CPU slot (the server's transactions.go).
type WriteLock struct {
	mu sync.Mutex
	// word is the grant count (the epoch) above holderBits and, in the low holderBits, the
	// holder's connection id plus one (0 when free: connection ids wrap around to 0):
	// written under mu, read without it.
	word    atomic.Uint64
	waiters []*lockWaiter
	// grantedAt is when the holder got the lock (under mu).
	grantedAt time.Time
	// stats are cumulative since start: grants, waits (acquisitions that queued, whatever their
	// end) and their total lengths, for system.events.
	grants, waits, waitNanos, holdNanos atomic.Int64
}

// holderBits hold a connection id (32 bits) plus one.
const (
	holderBits = 33
	holderMask = 1<<holderBits - 1
)

// holderOf is the low bits of word for conn as the holder.
func holderOf(conn uint32) uint64 { return uint64(conn) + 1 }

// owner is the holder's connection id and whether the lock is held.
func (l *WriteLock) owner() (conn uint32, held bool) {
	h := l.word.Load() & holderMask
	return uint32(h - 1), h != 0
}

// grantLocked makes conn the holder, counting a new grant unless conn holds the lock already.
func (l *WriteLock) grantLocked(conn uint32) {
	s := l.word.Load()
	if s&holderMask == holderOf(conn) {
		return
	}
	l.word.Store((s>>holderBits+1)<<holderBits | holderOf(conn))
	l.grantedAt = time.Now()
	l.grants.Add(1)
}

// quiet returns the grant count and whether the lock is free: two answers with the same count,
// both free, mean that no transaction held the lock in between, so no commit changed a table.
func (l *WriteLock) quiet() (epoch uint64, free bool) {
	s := l.word.Load()
	return s >> holderBits, s&holderMask == 0
}

// lockWaiter is a connection waiting for the lock; granted is closed when it gets it, stop
// when a KILL interrupts the wait (both under mu).
type lockWaiter struct {
	conn    uint32
	granted chan struct{}
	stop    chan struct{}
	stopped bool
}

// ErrWaitInterrupted is Acquire's error when Interrupt stopped the wait.
var ErrWaitInterrupted = errors.New("interrupted by KILL")

// Acquire gives the lock to conn, waiting until the holder and the
// connections that asked first have released it, or until ctx ends or Interrupt stops the wait:
// then it returns ctx's error or ErrWaitInterrupted, and conn does not hold the lock.
func (l *WriteLock) Acquire(ctx context.Context, conn uint32) error {
	l.mu.Lock()
	if owner, held := l.owner(); held && owner == conn || !held && len(l.waiters) == 0 {
		l.grantLocked(conn)
		l.mu.Unlock()
		return nil
	}
	w := &lockWaiter{conn: conn, granted: make(chan struct{}), stop: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	queued := time.Now()
	l.waits.Add(1)
	defer func() { l.waitNanos.Add(int64(time.Since(queued))) }()
	err := ErrWaitInterrupted
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-w.stop:
	}
	l.giveUp(w)
	return err
}

// Interrupt stops conn's wait for the lock, if it waits (a KILL of the connection or of its
// statement): its Acquire returns ErrWaitInterrupted without the lock.
func (l *WriteLock) Interrupt(conn uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.waiters {
		if w.conn == conn && !w.stopped {
			w.stopped = true
			close(w.stop)
		}
	}
}

// giveUp takes a waiter that stopped waiting out of the queue; if it was granted the lock in
// the meantime, the lock goes to the next one.
func (l *WriteLock) giveUp(w *lockWaiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-w.granted:
		l.handOnLocked()
	default:
		for i, x := range l.waiters {
			if x == w {
				l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
				break
			}
		}
	}
}

// Release frees the lock if conn holds it, handing it to the first waiter.
func (l *WriteLock) Release(conn uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Holds(conn) {
		l.handOnLocked()
	}
}

// handOnLocked gives the lock to the first waiter, or frees it.
func (l *WriteLock) handOnLocked() {
	if l.word.Load()&holderMask != 0 {
		l.holdNanos.Add(int64(time.Since(l.grantedAt)))
	}
	l.word.Store(l.word.Load() &^ holderMask)
	if len(l.waiters) == 0 {
		return
	}
	w := l.waiters[0]
	l.waiters[0] = nil
	l.waiters = l.waiters[1:]
	l.grantLocked(w.conn)
	close(w.granted)
}

// Holds reports whether conn holds the lock. Only conn's own goroutine changes the answer for
// conn (by acquiring or releasing), so it needs no lock.
func (l *WriteLock) Holds(conn uint32) bool { return l.word.Load()&holderMask == holderOf(conn) }

// State is the holder (0 if none, or connection 0) and how many connections wait.
func (l *WriteLock) State() (owner uint32, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if conn, held := l.owner(); held {
		owner = conn
	}
	return owner, len(l.waiters)
}

// LockWaits are the statements waiting for the write lock, by connection id. The engine lists a
// connection as running a statement only once its own Query starts, after the wait: without
// these, a writer stuck behind another transaction would show as Sleep in SHOW PROCESSLIST.
type LockWaits struct{ m sync.Map } // uint32 -> lockWait

// lockWait is one statement's wait: since when, and the statement's text.
type lockWait struct {
	since time.Time
	query string
}

// Start shows conn as waiting to run query, from now.
func (w *LockWaits) Start(conn uint32, query string) {
	w.m.Store(conn, lockWait{since: time.Now(), query: query})
}

// End ends conn's wait.
func (w *LockWaits) End(conn uint32) { w.m.Delete(conn) }

// LockWaitProcesses is a process list that shows a connection waiting for the write lock as
// running its statement (Command Query, the statement as Info, Time from the start of the wait),
// as MySQL shows a statement waiting for a row lock.
type LockWaitProcesses struct {
	sql.ProcessList
	Waits *LockWaits
}

// Processes implements sql.ProcessList.
func (p LockWaitProcesses) Processes() []sql.Process {
	all := p.ProcessList.Processes()
	for i := range all {
		if v, ok := p.Waits.m.Load(all[i].Connection); ok && all[i].Command == sql.ProcessCommandSleep {
			w := v.(lockWait)
			all[i].Command, all[i].Query, all[i].StartedAt = sql.ProcessCommandQuery, w.query, w.since
		}
	}
	return all
}
