package server

import (
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// number prints a float in its shortest round-trip form (4, 0.5, 2.7679569453035255).
func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// rateLimitedLog writes at most one line per interval, with the number of events since the last
// line and the latest message: shedding must never become one log line per query.
type rateLimitedLog struct {
	logger   *slog.Logger
	what     string
	interval time.Duration
	now      func() time.Time

	mu    sync.Mutex
	last  time.Time
	count int
}

func newRateLimitedLog(logger *slog.Logger, what string) *rateLimitedLog {
	return &rateLimitedLog{logger: logger, what: what, interval: time.Second, now: time.Now}
}

// note counts one event; msg is logged only when a line is due.
func (l *rateLimitedLog) note(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	now := l.now()
	if now.Sub(l.last) < l.interval {
		return
	}
	l.logger.Warn(l.what, "count", l.count, "last", msg)
	l.last, l.count = now, 0
}
