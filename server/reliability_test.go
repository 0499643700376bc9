package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"overloadsql/internal/syncbuf"
	"overloadsql/overload"
	"overloadsql/server/config"
	"overloadsql/warnings"
)

// TestRateLimitedLogWritesOneLinePerSecond: however many rejections, at most one line a second,
// with the count since the last line and the latest message.
func TestRateLimitedLogWritesOneLinePerSecond(t *testing.T) {
	var out syncbuf.Buffer
	l := newRateLimitedLog(slog.New(slog.NewTextHandler(&out, nil)), "statements rejected")
	t0 := time.Unix(1_000_000, 0)
	now := t0
	l.now = func() time.Time { return now }
	steps := []struct {
		at        time.Duration
		msg       string
		wantLines int
		wantLast  string // in the last line
	}{
		{0, "first", 1, "count=1 last=first"},
		{100 * time.Millisecond, "second", 1, "count=1 last=first"},
		{500 * time.Millisecond, "third", 1, "count=1 last=first"},
		{999 * time.Millisecond, "fourth", 1, "count=1 last=first"},
		{time.Second, "fifth", 2, "count=4 last=fifth"},
		{1500 * time.Millisecond, "sixth", 2, "count=4 last=fifth"},
		{3 * time.Second, "seventh", 3, "count=2 last=seventh"},
	}
	for _, st := range steps {
		now = t0.Add(st.at)
		l.note(st.msg)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != st.wantLines || !strings.Contains(lines[len(lines)-1], st.wantLast) {
			t.Fatalf("after %q at %v: %d lines, last %q; want %d lines, last with %q", st.msg, st.at, len(lines), lines[len(lines)-1], st.wantLines, st.wantLast)
		}
	}
}

// TestUnavailableSourceIsAWarningWhileItLasts: a measurement source that cannot be read shows
// "<source> is unavailable: <reason>" in system.warnings for as long as it fails, and goes
// when it is back.
func TestUnavailableSourceIsAWarningWhileItLasts(t *testing.T) {
	s := &Server{registry: warnings.NewRegistry()}
	t0 := time.Unix(1_000_000, 0)
	blind := []overload.Unavailable{{Source: "per-thread schedstat", Reason: "permission denied"}, {Source: "PSI", Reason: "no such file"}}
	messages := func() []string {
		var out []string
		for _, w := range s.registry.List() {
			out = append(out, w.Resource+": "+w.Message)
		}
		return out
	}
	for i, st := range []struct {
		unavailable []overload.Unavailable
		want        string
	}{
		{nil, ""},
		{blind, "overload: PSI is unavailable: no such file|overload: per-thread schedstat is unavailable: permission denied"},
		{blind[:1], "overload: per-thread schedstat is unavailable: permission denied"},
		{blind[:1], "overload: per-thread schedstat is unavailable: permission denied"},
		{nil, ""},
	} {
		s.noteUnavailable(&overload.Snapshot{Time: t0.Add(time.Duration(i) * time.Second), Unavailable: st.unavailable})
		got := messages()
		slices.Sort(got)
		if strings.Join(got, "|") != st.want {
			t.Errorf("step %d: warnings %q, want %q", i, got, st.want)
		}
	}
}

// TestEventsShowTheWireCounters: the wire's counters are rows of system.events.
func TestEventsShowTheWireCounters(t *testing.T) {
	var c counters
	c.OverloadDryRunDropped.Store(3)
	c.AcceptedConnections.Store(2)
	var names []string
	for _, e := range c.events() {
		if e.Name == "OverloadDryRunDroppedConnections" || e.Name == "AcceptedConnections" {
			names = append(names, e.Name+"="+strconv.FormatUint(e.Value, 10))
		}
	}
	if strings.Join(names, " ") != "AcceptedConnections=2 OverloadDryRunDroppedConnections=3" {
		t.Errorf("system.events rows: %v", names)
	}
}

// TestServeEndsWithTheListenerError: an accept loop that fails for good ends Serve with that
// error (the command logs it and exits 1) instead of leaving a server with a dead listener.
func TestServeEndsWithTheListenerError(t *testing.T) {
	cfg := config.Default()
	cfg.Path = filepath.Join(t.TempDir(), "config.toml") // persisted settings go beside it
	cfg.Listen, cfg.AdminListen, cfg.HTTPListen = freeAddr(t), freeAddr(t), ""
	s, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background()) }()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	socket, _ := s.listener.Sockets()
	socket.Close() // the socket fails under the server: not a Shutdown
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "accept on") || !strings.Contains(err.Error(), "(listen)") {
			t.Errorf("Serve returned %v, want the accept error of the main listener", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return after its main listener failed")
	}
	if _, err := net.Dial("tcp", s.AdminAddr().String()); err == nil {
		t.Error("the admin listener still accepts after Serve ended")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestMayChangeSettings: the statements whose results are held until their global changes are
// applied — every SET and CALL, in any case and spacing — and no other.
func TestMayChangeSettings(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{"SET GLOBAL max_connections = 5", true},
		{"  set persist max_connections = 5", true},
		{"SET@@GLOBAL.max_connections = 5", true},
		{"(SET x = 1)", true},
		{"\tCALL p()", true},
		{"set\nglobal x = 1", true},
		{"/* pool */ SET x = 1", true},
		{"SELECT 1", false},
		{"SETTINGS", false},
		{"SHOW VARIABLES", false},
		{"", false},
		{"SELECT 'SET GLOBAL x = 1'", false},
	} {
		if got := summaryOf(tc.query).MayChangeSettings(); got != tc.want {
			t.Errorf("MayChangeSettings(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}
