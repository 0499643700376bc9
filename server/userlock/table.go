package userlock

import (
	"slices"
	"strings"
	"sync"
	"time"

	"overloadsql/mysqlerr"
)

// MaxName is MySQL's bound on a lock name, in characters.
const MaxName = 64

// Table is the server's user-level locks. The zero value is not usable; use New.
type Table struct {
	mu sync.Mutex
	// locks are the names held or waited for, by their folded name.
	locks map[string]*lock
	// held are the names each session holds.
	held map[uint32]map[string]struct{}
	// waitsFor is the name each waiting session waits for.
	waitsFor map[uint32]string
}

// lock is one name's state.
type lock struct {
	// owner is the session holding it, 0 when free; count the times it took it. A lock handed
	// to a waiter has its owner set and count 0 until the waiter takes it.
	owner uint32
	count int
	// waiters wait for it, oldest first: a released lock goes to the first.
	waiters []*waiter
}

// waiter is a session waiting for a lock; granted is closed when the lock is handed to it.
type waiter struct {
	session uint32
	granted chan struct{}
}

// New returns an empty table.
func New() *Table {
	return &Table{
		locks:    make(map[string]*lock),
		held:     make(map[uint32]map[string]struct{}),
		waitsFor: make(map[uint32]string),
	}
}

// Key is the table's key of a name: lock names compare without regard to case.
func Key(name string) string { return strings.ToLower(name) }

// Get takes the lock for session, waiting up to timeout (negative: without end) while another
// session holds it; a released lock goes to its oldest waiter. It returns false when the time
// ran out, the error of cause when done closes first (a nil done never closes), and error 3058
// when waiting would deadlock. first: the session did not hold the lock before.
func (t *Table) Get(session uint32, name string, timeout time.Duration, done <-chan struct{}, cause func() error) (acquired, first bool, err error) {
	key := Key(name)
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.locks[key]
	if l == nil {
		l = &lock{}
		t.locks[key] = l
	}
	if l.owner != 0 && l.owner != session {
		if timeout == 0 {
			return false, false, nil
		}
		if t.closesCycle(session, l.owner) {
			return false, false, mysqlerr.New(mysqlerr.ERUserLockDeadlock,
				"Deadlock found when trying to get user-level lock; try rolling back transaction/releasing locks and restarting lock acquisition.")
		}
		w := &waiter{session: session, granted: make(chan struct{})}
		l.waiters = append(l.waiters, w)
		t.waitsFor[session] = key
		t.mu.Unlock()
		select {
		case <-w.granted:
		case <-expired:
		case <-done:
			err = cause()
		}
		t.mu.Lock()
		delete(t.waitsFor, session)
		if l.owner != session {
			// not handed over: the time ran out or the statement ended
			l.waiters = slices.DeleteFunc(l.waiters, func(o *waiter) bool { return o == w })
			t.forgetIfUnused(key, l)
			return false, false, err
		}
		if err != nil {
			// handed over as the statement ended: to the next waiter
			t.free(session, key, l)
			return false, false, err
		}
	}
	l.owner = session
	l.count++
	first = l.count == 1
	if first {
		names := t.held[session]
		if names == nil {
			names = make(map[string]struct{})
			t.held[session] = names
		}
		names[key] = struct{}{}
	}
	return true, first, nil
}

// closesCycle says whether session waiting for a lock owner holds would close a cycle: owner
// waits, perhaps through others, for a lock session holds. Called with t.mu held.
func (t *Table) closesCycle(session, owner uint32) bool {
	for range len(t.waitsFor) + 1 {
		key, waiting := t.waitsFor[owner]
		if !waiting {
			return false
		}
		owner = t.locks[key].owner
		if owner == session {
			return true
		}
		if owner == 0 {
			return false
		}
	}
	return false
}

// forgetIfUnused drops key when nobody holds or waits for it. Called with t.mu held.
func (t *Table) forgetIfUnused(key string, l *lock) {
	if l.owner == 0 && len(l.waiters) == 0 {
		delete(t.locks, key)
	}
}

// Release undoes one GET_LOCK of session: released is true when session held the lock; exists
// is false when no session holds it (RELEASE_LOCK returns NULL then, 0 when another holds it);
// freed: the session no longer holds it.
func (t *Table) Release(session uint32, name string) (released, exists, freed bool) {
	key := Key(name)
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.locks[key]
	if l == nil || l.owner == 0 {
		return false, false, false
	}
	if l.owner != session {
		return false, true, false
	}
	l.count--
	if l.count == 0 {
		t.free(session, key, l)
		return true, true, true
	}
	return true, true, false
}

// free takes l from session and hands it to its oldest waiter, if any. Called with t.mu held.
func (t *Table) free(session uint32, key string, l *lock) {
	l.owner, l.count = 0, 0
	if names := t.held[session]; names != nil {
		delete(names, key)
		if len(names) == 0 {
			delete(t.held, session)
		}
	}
	if len(l.waiters) > 0 {
		w := l.waiters[0]
		l.waiters = l.waiters[1:]
		l.owner = w.session
		close(w.granted)
		return
	}
	t.forgetIfUnused(key, l)
}

// ReleaseAll releases every lock session holds and returns how many GET_LOCKs that undid and
// the keys of the locks it released.
func (t *Table) ReleaseAll(session uint32) (undone int, keys []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key := range t.held[session] {
		l := t.locks[key]
		undone += l.count
		keys = append(keys, key)
		t.free(session, key, l)
	}
	return undone, keys
}

// Owner is the session holding the lock, 0 when it is free.
func (t *Table) Owner(name string) uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.locks[Key(name)]; l != nil {
		return l.owner
	}
	return 0
}

// Names is how many names the table keeps (held or waited for).
func (t *Table) Names() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.locks)
}
