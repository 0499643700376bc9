package warnings

import (
	"cmp"
	"regexp"
	"slices"
	"sync"
	"time"
)

// Warning is one row of system.warnings.
type Warning struct {
	Key           string // stable identity: "cpu", "memory", "simulation", "reload", "unavailable:per-thread schedstat", ...
	Resource      string // "cpu", "memory", or another source name ("overload", "config", ...)
	Message       string
	MessageFormat string // message_format_string, with {} placeholders
	RaisedAt      time.Time
	UpdatedAt     time.Time
	Value         float64 // current
	Peak          float64 // highest while raised
}

// Change is what happened to a warning, as an Observer sees it.
type Change uint8

const (
	Raised  Change = iota + 1 // a new warning
	Updated                   // a warning refreshed by a later Raise
	Cleared                   // removed by Clear or Truncate
)

// Observer sees every change of a shown (not suppressed) warning, at the time it happened. It
// is called with the registry's lock held (lock order: Registry, then the observer's own
// locks), so it must be quick and must not call the registry.
type Observer func(at time.Time, c Change, w Warning)

// Registry holds the current warnings of every source. It is safe for
// concurrent use.
type Registry struct {
	mu       sync.RWMutex
	current  map[string]Warning
	suppress *regexp.Regexp
	observe  Observer
	now      func() time.Time // time of clears, which carry none
}

// NewRegistry returns an empty registry that suppresses nothing.
func NewRegistry() *Registry {
	return &Registry{current: make(map[string]Warning), now: time.Now}
}

// SetObserver makes o see every later change (nil: none). Call it before the registry is
// shared.
func (r *Registry) SetObserver(o Observer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.observe = o
}

// notify must be called with r.mu held.
func (r *Registry) notify(at time.Time, c Change, w Warning) {
	if r.observe != nil && r.shown(w) {
		r.observe(at, c, w)
	}
}

// Raise records w under w.Key, or refreshes the warning already there.
// The registry owns the timestamps and the peak, so w.RaisedAt, w.UpdatedAt
// and w.Peak are ignored: RaisedAt is now for a new warning and kept for an
// existing one, UpdatedAt becomes now, and Peak is the highest Value seen since
// the warning was raised. Resource, Message, MessageFormat and Value are
// replaced. Raise logs nothing; the source decides what is worth a log line.
func (r *Registry) Raise(now time.Time, w Warning) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.upsert(now, w, true)
}

// refresh is Raise for a warning that must already exist: it reports false,
// and creates nothing, when the warning is gone (cleared or truncated).
// A tracker uses it so that a truncation racing with a sample is never undone.
func (r *Registry) refresh(now time.Time, w Warning) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.upsert(now, w, false)
}

func (r *Registry) upsert(now time.Time, w Warning, create bool) bool {
	old, exists := r.current[w.Key]
	switch {
	case exists:
		w.RaisedAt = old.RaisedAt
		w.Peak = max(old.Peak, w.Value)
	case create:
		w.RaisedAt = now
		w.Peak = w.Value
	default:
		return false
	}
	w.UpdatedAt = now
	r.current[w.Key] = w
	if exists {
		r.notify(now, Updated, w)
	} else {
		r.notify(now, Raised, w)
	}
	return true
}

// Clear removes the warning with this key and reports whether it existed.
func (r *Registry) Clear(key string) bool {
	_, ok := r.remove(key)
	return ok
}

// remove is Clear that also returns the removed warning, for the clear log line.
func (r *Registry) remove(key string) (Warning, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.current[key]
	if ok {
		delete(r.current, key)
		r.notify(r.now(), Cleared, w)
	}
	return w, ok
}

// Has reports whether a warning with this key exists, shown or suppressed.
func (r *Registry) Has(key string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.current[key]
	return ok
}

// List returns a copy of the shown warnings (those the suppress regexp does
// not match), ordered by RaisedAt, then Key.
func (r *Registry) List() []Warning {
	r.mu.RLock()
	defer r.mu.RUnlock()
	shown := make([]Warning, 0, len(r.current))
	for _, w := range r.current {
		if r.shown(w) {
			shown = append(shown, w)
		}
	}
	slices.SortFunc(shown, func(a, b Warning) int {
		return cmp.Or(a.RaisedAt.Compare(b.RaisedAt), cmp.Compare(a.Key, b.Key))
	})
	return shown
}

// Len returns the number of shown warnings: the OverloadWarnings gauge.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n := 0
	for _, w := range r.current {
		if r.shown(w) {
			n++
		}
	}
	return n
}

// Truncate removes every current warning (TRUNCATE system.warnings),
// suppressed ones included. A source whose condition still holds raises its
// warning again by its own rules.
func (r *Registry) Truncate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for _, w := range r.current {
		r.notify(now, Cleared, w)
	}
	clear(r.current)
}

// SetSuppress hides the warnings whose message matches re
// (warning_suppress_regexp); nil shows everything. Hidden warnings are still
// tracked and reappear when the regexp no longer matches them.
func (r *Registry) SetSuppress(re *regexp.Regexp) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.suppress = re
}

// shown must be called with r.mu held.
func (r *Registry) shown(w Warning) bool {
	return r.suppress == nil || !r.suppress.MatchString(w.Message)
}
