package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"overloadsql/internal/loglimit"
)

// RouteEngineLogs sends go-mysql-server's and the protocol layer's logrus output through
// logger, at warn level and above (the engine logs every connection at info), bounded so that
// no client can flood the log: see engineLog.
func RouteEngineLogs(logger *slog.Logger) {
	logrus.SetLevel(logrus.WarnLevel)
	logrus.SetOutput(io.Discard)
	logrus.StandardLogger().ReplaceHooks(logrus.LevelHooks{})
	logrus.AddHook(newEngineLog(logger, time.Now))
}

// Bounds of the engine's log lines.
const (
	engineLinesPerSecond = 20 // then lines are counted, and the count logged once a second
	panicMessage         = "mysql_server caught panic"
	// failedStatementMessage is the engine's line for a failed statement, with a stack trace
	// in its error; the protocol handler logs each failed statement instead (one line).
	failedStatementMessage = "error running query"
	// closedConnection ends the protocol layer's error when it writes to a connection that was
	// closed meanwhile (KILL, a client that left, shutdown): expected, so logged at info.
	closedConnection = "use of closed network connection"
)

// engineLog is the logrus hook that writes the engine's lines to slog. Everything a client
// sent may be in a line (a statement, a user name, a packet printed as numbers), so each
// message and field is cut to its first line and maxLoggedInput bytes; a panic the protocol
// layer caught is logged with its stack the first time its message is seen, later as one line;
// and at most engineLinesPerSecond lines a second are written, the rest counted.
type engineLog struct {
	logger *slog.Logger
	now    func() time.Time

	lines  loglimit.Budget
	mu     sync.Mutex
	panics map[string]bool // panic messages already logged with their stack
}

// maxDistinctPanics bounds the panics remembered as already logged.
const maxDistinctPanics = 1000

func newEngineLog(logger *slog.Logger, now func() time.Time) *engineLog {
	return &engineLog{logger: logger, now: now, panics: map[string]bool{}}
}

func (h *engineLog) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (h *engineLog) Fire(e *logrus.Entry) error {
	if e.Message == failedStatementMessage {
		return nil
	}
	level := slog.LevelWarn
	if e.Level <= logrus.ErrorLevel {
		level = slog.LevelError
	}
	msg := strings.TrimSpace(e.Message)
	if strings.HasSuffix(firstLine(msg), closedConnection) {
		level = slog.LevelInfo
	}
	stack := ""
	if strings.HasPrefix(msg, panicMessage) {
		// "mysql_server caught panic:\n<value>\n<stack>"
		lines := strings.SplitN(msg, "\n", 3)
		value := ""
		if len(lines) > 1 {
			value = truncate(lines[1], maxLoggedInput)
		}
		if len(lines) > 2 {
			stack = lines[2]
		}
		msg = panicMessage + ": " + value
		level = slog.LevelError
	} else {
		msg = truncate(firstLine(msg), maxLoggedInput)
	}
	suppressed, ok, withStack := h.admit(msg, stack != "")
	if !ok {
		return nil
	}
	attrs := make([]any, 0, 2*len(e.Data)+6)
	attrs = append(attrs, "source", "engine")
	for k, v := range e.Data {
		attrs = append(attrs, k, fieldText(v))
	}
	if withStack {
		attrs = append(attrs, "stack", stack)
	}
	if suppressed > 0 {
		attrs = append(attrs, "suppressed", suppressed)
	}
	h.logger.Log(context.Background(), level, msg, attrs...)
	return nil
}

// admit decides whether a line is written: ok, with the count of lines refused before it, and
// whether a panic's stack goes with it (only the first time the panic is seen).
func (h *engineLog) admit(msg string, isPanic bool) (suppressed int, ok, withStack bool) {
	h.mu.Lock()
	if isPanic && !h.panics[msg] && len(h.panics) < maxDistinctPanics {
		h.panics[msg] = true
		withStack = true
	}
	h.mu.Unlock()
	suppressed, ok = h.lines.Take(h.now(), engineLinesPerSecond, withStack)
	return suppressed, ok, ok && withStack
}

// fieldText is a log field's value as at most one line of maxLoggedInput bytes; an error's
// text is its message only, never the stack some engine errors print with %+v.
func fieldText(v any) any {
	switch x := v.(type) {
	case error:
		return truncate(firstLine(x.Error()), maxLoggedInput)
	case string:
		return truncate(firstLine(x), maxLoggedInput)
	case fmt.Stringer:
		return truncate(firstLine(x.String()), maxLoggedInput)
	}
	return v
}
