package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

func TestEngineLog(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	h := newEngineLog(slog.New(slog.NewTextHandler(&out, nil)), func() time.Time { return now })
	fire := func(level logrus.Level, msg string, data logrus.Fields) {
		if err := h.Fire(&logrus.Entry{Level: level, Message: msg, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	lines := func() []string {
		s := strings.TrimSpace(out.String())
		out.Reset()
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}

	fire(logrus.ErrorLevel, "Got unhandled packet from client: "+strings.Repeat("1 ", 100_000), nil)
	fire(logrus.WarnLevel, failedStatementMessage, logrus.Fields{"error": "x\nstack"})
	fire(logrus.WarnLevel, "first line\nsecond line", logrus.Fields{"query": strings.Repeat("q", 5000)})
	got := lines()
	if len(got) != 2 {
		t.Fatalf("want 2 lines (the failed-statement line is dropped), got %d: %.500q", len(got), got)
	}
	for _, l := range got {
		if len(l) > 3*maxLoggedInput {
			t.Errorf("a line of %d bytes: %.200s", len(l), l)
		}
		if strings.Contains(l, "second line") {
			t.Errorf("more than the first line logged: %s", l)
		}
	}

	fire(logrus.ErrorLevel, "Conn 36: Flush() failed: write tcp 127.0.0.1:9004->127.0.0.1:55836: use of closed network connection", nil)
	if got := lines(); len(got) != 1 || !strings.Contains(got[0], "level=INFO") {
		t.Errorf("a write to a connection closed by KILL is not an error: %q", got)
	}

	panicText := "mysql_server caught panic:\nruntime error: index out of range\n/src/conn.go:1 (0x1)\n\tframe"
	fire(logrus.ErrorLevel, panicText, nil)
	fire(logrus.ErrorLevel, panicText, nil)
	got = lines()
	if len(got) != 2 || !strings.Contains(got[0], "stack=") || strings.Contains(got[1], "stack=") {
		t.Errorf("a panic's stack must be logged the first time only: %q", got)
	}

	for range 3 * engineLinesPerSecond {
		fire(logrus.WarnLevel, "flood", nil)
	}
	if got := lines(); len(got) != engineLinesPerSecond-5 {
		t.Errorf("%d lines within one second, want %d (5 were written before)", len(got), engineLinesPerSecond-5)
	}
	now = now.Add(time.Second)
	fire(logrus.WarnLevel, "after", nil)
	if got := lines(); len(got) != 1 || !strings.Contains(got[0], "suppressed=") {
		t.Errorf("the next second's first line must count the suppressed ones: %q", got)
	}
}

func TestLogBudget(t *testing.T) {
	var b logBudget
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range statementLogBurst + 3 {
		_, ok := b.take(now)
		if ok != (i < statementLogBurst) {
			t.Fatalf("line %d: ok %v", i, ok)
		}
	}
	if suppressed, ok := b.take(now.Add(time.Second)); !ok || suppressed != 3 {
		t.Errorf("next second: ok %v, suppressed %d, want true, 3", ok, suppressed)
	}
}
