package server

import (
	"log/slog"
	"strconv"
	"time"

	"overloadsql/internal/loglimit"
)

// number prints a float in its shortest round-trip form (4, 0.5, 2.7679569453035255).
func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// rateLimitedLog writes at most one line per interval, with the number of events since the last
// line and the latest message: shedding must never become one log line per query.
type rateLimitedLog struct {
	logger *slog.Logger
	what   string
	now    func() time.Time
	lines  loglimit.Budget
}

func newRateLimitedLog(logger *slog.Logger, what string) *rateLimitedLog {
	return &rateLimitedLog{logger: logger, what: what, now: time.Now}
}

// note counts one event; msg is logged only when a line is due, with the count of the events
// since the last line, this one included.
func (l *rateLimitedLog) note(msg string) {
	if refused, ok := l.lines.Take(l.now(), 1, false); ok {
		l.logger.Warn(l.what, "count", refused+1, "last", msg)
	}
}
