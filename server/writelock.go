package server

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
)

// writeLock is held by the one connection whose transaction may write stored tables, from its
// first writing statement to the end of that transaction; the others wait for it in arrival
// order. It is re-entrant per connection. Lock order: mu is a leaf; a connection waits for the
// lock holding no other lock of the server, before it takes a CPU slot (see transactions.go).
type writeLock struct {
	mu sync.Mutex
	// word is the grant count (the epoch) in the high 32 bits and the holder's connection id
	// in the low ones (0 when free): written under mu, read without it.
	word    atomic.Uint64
	waiters []*lockWaiter
}

// owner is the holder's connection id, 0 when free.
func (l *writeLock) owner() uint32 { return uint32(l.word.Load()) }

// grantLocked makes conn the holder, counting a new grant unless conn holds the lock already.
func (l *writeLock) grantLocked(conn uint32) {
	s := l.word.Load()
	if uint32(s) == conn {
		return
	}
	l.word.Store((s>>32+1)<<32 | uint64(conn))
}

// quiet returns the grant count and whether the lock is free: two answers with the same count,
// both free, mean that no transaction held the lock in between, so no commit changed a table.
func (l *writeLock) quiet() (epoch uint64, free bool) {
	s := l.word.Load()
	return s >> 32, uint32(s) == 0
}

// lockWaiter is a connection waiting for the lock; granted is closed when it gets it, stop
// when a KILL interrupts the wait (both under mu).
type lockWaiter struct {
	conn    uint32
	granted chan struct{}
	stop    chan struct{}
	stopped bool
}

// errWaitInterrupted is acquire's error when interrupt stopped the wait.
var errWaitInterrupted = errors.New("interrupted by KILL")

// acquire gives the lock to conn (connection ids are never 0), waiting until the holder and the
// connections that asked first have released it, or until ctx ends or interrupt stops the wait:
// then it returns ctx's error or errWaitInterrupted, and conn does not hold the lock.
func (l *writeLock) acquire(ctx context.Context, conn uint32) error {
	l.mu.Lock()
	if owner := l.owner(); owner == conn || owner == 0 && len(l.waiters) == 0 {
		l.grantLocked(conn)
		l.mu.Unlock()
		return nil
	}
	w := &lockWaiter{conn: conn, granted: make(chan struct{}), stop: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	err := errWaitInterrupted
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

// interrupt stops conn's wait for the lock, if it waits (a KILL of the connection or of its
// statement): its acquire returns errWaitInterrupted without the lock.
func (l *writeLock) interrupt(conn uint32) {
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
func (l *writeLock) giveUp(w *lockWaiter) {
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

// release frees the lock if conn holds it, handing it to the first waiter.
func (l *writeLock) release(conn uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner() == conn {
		l.handOnLocked()
	}
}

// handOnLocked gives the lock to the first waiter, or frees it.
func (l *writeLock) handOnLocked() {
	l.word.Store(l.word.Load() &^ math.MaxUint32)
	if len(l.waiters) == 0 {
		return
	}
	w := l.waiters[0]
	l.waiters[0] = nil
	l.waiters = l.waiters[1:]
	l.grantLocked(w.conn)
	close(w.granted)
}

// holds reports whether conn holds the lock. Only conn's own goroutine changes the answer for
// conn (by acquiring or releasing), so it needs no lock.
func (l *writeLock) holds(conn uint32) bool { return l.owner() == conn }

// state is the holder (0 if none) and how many connections wait.
func (l *writeLock) state() (owner uint32, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owner(), len(l.waiters)
}
