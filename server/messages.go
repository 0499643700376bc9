package server

import (
	"log/slog"
	"strconv"
	"time"

	"overloadsql/internal/loglimit"
)

// number prints a float in its shortest round-trip form (4, 0.5, 2.7679569453035255).
func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func clamp(r, lo, hi float64) float64 { return min(max(r, lo), hi) }

const overloadIntro = "CPU is overloaded, CPU is waiting for execution way more than executing, " +
	"ratio of wait time (OSCPUWaitMicroseconds metric) to busy time (OSCPUVirtualTimeMicroseconds metric) is "

// rejectMessage is the text of error 745 (SERVER_OVERLOADED), as ClickHouse words it; the ratio
// printed is the clamped one.
func rejectMessage(r, lo, hi, p float64) string {
	return overloadIntro + number(clamp(r, lo, hi)) +
		". Min ratio for error (min_os_cpu_wait_time_ratio_to_throw setting) " + number(lo) +
		", max ratio for error (max_os_cpu_wait_time_ratio_to_throw setting) " + number(hi) +
		", probability used to decide whether to discard the query " + number(p) +
		". Consider reducing the number of queries or increase backoff between retries. (SERVER_OVERLOADED)"
}

// dropMessage is the text of error 1040 for a connection dropped under overload.
func dropMessage(r, lo, hi, p float64) string {
	return "Too many connections: " + overloadIntro + number(clamp(r, lo, hi)) +
		". Min ratio for error " + number(lo) +
		", max ratio for error " + number(hi) +
		", probability used to decide whether to drop the connection " + number(p) + "."
}

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
