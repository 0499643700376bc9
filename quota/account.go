package quota

import (
	"fmt"
	"sync/atomic"
)

// Limit gives an account's limit in bytes when it is asked; 0 or less is no limit of its own
// (the accounts above it still apply).
type Limit func() int64

// Account counts the bytes its owner keeps, against its own limit and those of the accounts
// above it. Reserve, Release, Charge and Move may be called from any goroutine; one owner
// calling them in turn is the intended use, the counters of shared parents are atomic.
type Account struct {
	name   string
	limit  Limit
	parent atomic.Pointer[Account]
	used   atomic.Int64
}

// New is an account named name (the refusal's message names it) under parent (nil: a root),
// with limit (nil: none of its own).
func New(name string, parent *Account, limit Limit) *Account {
	a := &Account{name: name, limit: limit}
	a.parent.Store(parent)
	return a
}

// Name is the account's name.
func (a *Account) Name() string { return a.name }

// Parent is the account above this one, nil for a root.
func (a *Account) Parent() *Account { return a.parent.Load() }

// Used is the bytes reserved or charged on the account now, its children's included.
func (a *Account) Used() int64 { return a.used.Load() }

// Limit is the account's own limit now, 0 for none.
func (a *Account) Limit() int64 {
	if a.limit == nil {
		return 0
	}
	return max(a.limit(), 0)
}

// ExceededError is a refused reservation: Want bytes more on Account, which had Used of its
// Limit.
type ExceededError struct {
	Account     string
	Want        int64
	Used, Limit int64
}

func (e *ExceededError) Error() string {
	return fmt.Sprintf("memory limit of %s exceeded: would use %d bytes (attempt to reserve %d), maximum %d", e.Account, e.Used+e.Want, e.Want, e.Limit)
}

// Reserve adds n bytes (n >= 0) to the account and every account above it, or, when one of
// them would go past its limit, to none of them and returns *ExceededError for the first that
// would, from the account up.
func (a *Account) Reserve(n int64) error {
	return a.reserveBelow(nil, n)
}

// ReserveOwn reserves n bytes (n >= 0) within this account's own limit and charges them to the
// accounts above it without checking theirs: for an owner no shared limit may refuse (an
// operator's session), whose own limit still holds.
func (a *Account) ReserveOwn(n int64) error {
	if n <= 0 {
		return nil
	}
	if used, lim, ok := a.take(n); !ok {
		return &ExceededError{Account: a.name, Want: n, Used: used, Limit: lim}
	}
	if p := a.Parent(); p != nil {
		p.Charge(n)
	}
	return nil
}

// reserveBelow reserves n on the accounts from a up to, not including, stop.
func (a *Account) reserveBelow(stop *Account, n int64) error {
	if n <= 0 {
		return nil
	}
	for level := a; level != nil && level != stop; level = level.Parent() {
		if used, lim, ok := level.take(n); !ok {
			a.releaseBelow(level, n)
			return &ExceededError{Account: level.name, Want: n, Used: used, Limit: lim}
		}
	}
	return nil
}

// take adds n to this level alone if that keeps it within its limit; otherwise it returns the
// bytes used and the limit that refused.
func (a *Account) take(n int64) (used, limit int64, ok bool) {
	lim := a.Limit()
	for {
		used := a.used.Load()
		if lim > 0 && used+n > lim {
			return used, lim, false
		}
		if a.used.CompareAndSwap(used, used+n) {
			return used + n, lim, true
		}
	}
}

// Charge adds n bytes (n >= 0) to the account and every account above it without checking a
// limit: for memory already kept when the owner learns of it. Over a limit, the next Reserve
// through that account is refused until enough is released.
func (a *Account) Charge(n int64) {
	if n <= 0 {
		return
	}
	for level := a; level != nil; level = level.Parent() {
		level.used.Add(n)
	}
}

// Release takes n bytes (n >= 0) reserved or charged before off the account and every account
// above it.
func (a *Account) Release(n int64) {
	a.releaseBelow(nil, n)
}

func (a *Account) releaseBelow(stop *Account, n int64) {
	if n <= 0 {
		return
	}
	for level := a; level != nil && level != stop; level = level.Parent() {
		level.used.Add(-n)
	}
}

// Move puts the account under parent (nil: it becomes a root). Its bytes are reserved on the
// accounts of the new chain that are not also above it now, and released from those of the old
// chain; a shared ancestor (the server's account) keeps them throughout. When the new chain
// cannot take them, nothing changes and the refusal is returned; with force it is charged
// anyway (a session that must leave a removed workload).
func (a *Account) Move(parent *Account, force bool) error {
	old := a.Parent()
	if old == parent {
		return nil
	}
	common := commonAncestor(old, parent)
	n := a.Used()
	if parent != nil {
		if err := parent.reserveBelow(common, n); err != nil {
			if !force {
				return err
			}
			for level := parent; level != nil && level != common; level = level.Parent() {
				level.used.Add(n)
			}
		}
	}
	if old != nil {
		old.releaseBelow(common, n)
	}
	a.parent.Store(parent)
	return nil
}

// commonAncestor is the nearest account at or above both a and b, nil when there is none.
func commonAncestor(a, b *Account) *Account {
	above := map[*Account]bool{}
	for level := a; level != nil; level = level.Parent() {
		above[level] = true
	}
	for level := b; level != nil; level = level.Parent() {
		if above[level] {
			return level
		}
	}
	return nil
}
