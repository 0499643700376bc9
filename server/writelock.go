package server

import (
	"context"
	"sync"
	"sync/atomic"
)

// writeLock is held by the one connection whose transaction may write stored tables, from its
// first writing statement to the end of that transaction; the others wait for it in arrival
// order. It is re-entrant per connection. Lock order: mu is a leaf; a connection waits for the
// lock holding no other lock of the server, before it takes a CPU slot (see transactions.go).
type writeLock struct {
	mu sync.Mutex
	// owner is the connection id of the holder, 0 when free; written under mu, read without it.
	owner   atomic.Uint32
	waiters []*lockWaiter
}

// lockWaiter is a connection waiting for the lock; granted is closed when it gets it.
type lockWaiter struct {
	conn    uint32
	granted chan struct{}
}

// acquire gives the lock to conn (connection ids are never 0), waiting until the holder and the
// connections that asked first have released it, or until ctx ends: then it returns ctx's error
// and conn does not hold the lock.
func (l *writeLock) acquire(ctx context.Context, conn uint32) error {
	l.mu.Lock()
	if owner := l.owner.Load(); owner == conn || owner == 0 && len(l.waiters) == 0 {
		l.owner.Store(conn)
		l.mu.Unlock()
		return nil
	}
	w := &lockWaiter{conn: conn, granted: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	l.giveUp(w)
	return ctx.Err()
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
	if l.owner.Load() == conn {
		l.handOnLocked()
	}
}

// handOnLocked gives the lock to the first waiter, or frees it.
func (l *writeLock) handOnLocked() {
	l.owner.Store(0)
	if len(l.waiters) == 0 {
		return
	}
	w := l.waiters[0]
	l.waiters[0] = nil
	l.waiters = l.waiters[1:]
	l.owner.Store(w.conn)
	close(w.granted)
}

// holds reports whether conn holds the lock. Only conn's own goroutine changes the answer for
// conn (by acquiring or releasing), so it needs no lock.
func (l *writeLock) holds(conn uint32) bool { return l.owner.Load() == conn }

// state is the holder (0 if none) and how many connections wait.
func (l *writeLock) state() (owner uint32, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owner.Load(), len(l.waiters)
}
