package history

import (
	"sync"
	"time"
)

// WarningsPerSecond is how many warning events a Warnings log holds per second of retention.
const WarningsPerSecond = 4

// UpdateGap is the least time between two "updated" events of one warning.
const UpdateGap = time.Second

// Event is what happened to a warning: the event column of system.warning_log.
type Event uint8

const (
	Raised Event = iota + 1
	Updated
	Cleared
)

func (e Event) String() string {
	switch e {
	case Raised:
		return "raised"
	case Updated:
		return "updated"
	case Cleared:
		return "cleared"
	}
	return "unknown"
}

// WarningEvent is one row of system.warning_log.
type WarningEvent struct {
	At       time.Time
	Key      string
	Resource string
	Event    Event
	Message  string
	Value    float64
}

type warningEntry struct {
	at       int64
	key      string
	resource string
	message  string
	value    float64
	event    Event
}

// Warnings is a bounded ring of warning events. It is safe for concurrent use.
type Warnings struct {
	retention time.Duration

	mu      sync.RWMutex
	entries []warningEntry
	head, n int
	last    map[string]kept // key → its last kept raised/updated event
}

type kept struct {
	at      int64
	message string
	value   float64
}

// NewWarnings returns a log that keeps retention of warning events, at most WarningsPerSecond
// per second of it.
func NewWarnings(retention time.Duration) *Warnings {
	capacity := max(int(retention/time.Second)*WarningsPerSecond, WarningsPerSecond)
	return &Warnings{
		retention: retention,
		entries:   make([]warningEntry, capacity),
		last:      make(map[string]kept),
	}
}

// Add records an event. An Updated event is left out when it changes neither the message nor
// the value of the warning's previous kept event, or comes within UpdateGap of it.
func (w *Warnings) Add(e WarningEvent) {
	at := e.At.UnixNano()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch e.Event {
	case Updated:
		if last, ok := w.last[e.Key]; ok && (at-last.at < int64(UpdateGap) || last.message == e.Message && last.value == e.Value) {
			return
		}
		w.last[e.Key] = kept{at, e.Message, e.Value}
	case Raised:
		w.last[e.Key] = kept{at, e.Message, e.Value}
	case Cleared:
		delete(w.last, e.Key)
	}
	entry := warningEntry{at: at, key: e.Key, resource: e.Resource, message: e.Message, value: e.Value, event: e.Event}
	if w.n < len(w.entries) {
		w.entries[(w.head+w.n)%len(w.entries)] = entry
		w.n++
		return
	}
	w.entries[w.head] = entry
	w.head = (w.head + 1) % len(w.entries)
}

// Events returns the events newer than now - window (and within the retention), oldest first.
func (w *Warnings) Events(now time.Time, window time.Duration) []WarningEvent {
	w.mu.RLock()
	defer w.mu.RUnlock()
	since := now.Add(-min(window, w.retention)).UnixNano()
	var out []WarningEvent
	for i := range w.n {
		e := &w.entries[(w.head+i)%len(w.entries)]
		if e.at <= since {
			continue
		}
		out = append(out, WarningEvent{At: time.Unix(0, e.at).UTC(), Key: e.key, Resource: e.resource, Event: e.event, Message: e.message, Value: e.value})
	}
	return out
}
