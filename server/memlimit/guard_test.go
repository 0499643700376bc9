package memlimit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"overloadsql/overload"
	"overloadsql/server/config"
	"overloadsql/server/statement"

	"github.com/dolthub/vitess/go/mysql"
)

// testGuard is a memory guard reading the heap from *heap, counting the statements it stops.
type testGuard struct {
	Guard
	stopped int
}

func memoryGuard(heap *uint64) *testGuard {
	cfg := &config.Config{MaxServerMemoryUsage: 1000}
	g := &testGuard{}
	g.Guard = Guard{
		Statements: NewStatements(),
		Heap:       overload.NewMemoryGuard(func() uint64 { return *heap }, nil),
		Config:     func() *config.Config { return cfg },
		Note:       func(string) {},
		Stopped:    func(n int) { g.stopped += n },
	}
	return g
}

// running registers query as a running statement.
func running(t *testing.T, s *testGuard, query string) (context.Context, *Running) {
	t.Helper()
	stmt := statement.Summarize(query)
	ctx, e, err := s.Statements.Start(context.Background(), &stmt, "main")
	if err != nil {
		t.Fatalf("%s: refused: %v", query, err)
	}
	return ctx, e
}

func isOutOfMemory(err error, what string) bool {
	var se *mysql.SQLError
	return errors.As(err, &se) && se.Num == mysql.EROutOfResources && strings.Contains(se.Message, what)
}

// TestMemoryGuardStopsOrdinaryStatements is a story: the heap crosses the limit while a read, a
// write and an exempt statement run; the read is cancelled at once, the write asked to stop and
// cancelled after writeStopGrace, the exempt one left alone; new ordinary statements are refused
// until the heap is under 90% of the limit, exempt ones are not; each is counted once.
func TestMemoryGuardStopsOrdinaryStatements(t *testing.T) {
	heap := uint64(500)
	s := memoryGuard(&heap)
	start := time.Unix(1_700_000_000, 0)
	s.check(start, 1000)

	readCtx, read := running(t, s, "SELECT REPEAT('x', 60000000) FROM t")
	writeCtx, write := running(t, s, "INSERT INTO t SELECT REPEAT('x', 60000000) FROM u")
	exemptCtx, exempt := running(t, s, "SHOW WARNINGS")

	heap = 1001
	s.check(start.Add(10*time.Millisecond), 1000)
	if got := s.stopped; got != 2 {
		t.Errorf("MemoryLimitExceededQueries = %d after the event, want 2 (the read and the write)", got)
	}
	if err := readCtx.Err(); err == nil || !isOutOfMemory(read.MemoryError(readCtx), "was cancelled") {
		t.Errorf("read: context %v, error %v; want cancelled with 1041", err, read.MemoryError(readCtx))
	}
	if writeCtx.Err() != nil || !isOutOfMemory(Stop(writeCtx), "was cancelled") {
		t.Errorf("write: context %v, stop %v; want asked to stop, not cancelled", writeCtx.Err(), Stop(writeCtx))
	}
	if exemptCtx.Err() != nil || exempt.MemoryError(exemptCtx) != nil || Stop(exemptCtx) != nil {
		t.Errorf("exempt statement stopped: %v", exempt.MemoryError(exemptCtx))
	}

	s.check(start.Add(10*time.Millisecond+writeStopGrace-time.Millisecond), 1000)
	if writeCtx.Err() != nil {
		t.Error("write cancelled before writeStopGrace")
	}
	s.check(start.Add(10*time.Millisecond+writeStopGrace), 1000)
	if writeCtx.Err() == nil || !isOutOfMemory(write.MemoryError(writeCtx), "was cancelled") {
		t.Errorf("write still running writeStopGrace after it was asked to stop: %v", writeCtx.Err())
	}

	for _, h := range []uint64{950, 900} {
		heap = h
		s.check(start.Add(time.Second), 1000)
		stmt := statement.Summarize("SELECT 1")
		if _, _, err := s.Statements.Start(context.Background(), &stmt, "main"); !isOutOfMemory(err, "not started") {
			t.Errorf("heap %d: an ordinary statement got %v, want refused with 1041", h, err)
		}
		running(t, s, "SHOW WARNINGS")
	}
	heap = 899
	s.check(start.Add(2*time.Second), 1000)
	running(t, s, "SELECT 1")

	for _, e := range []*Running{read, write, exempt} {
		s.Statements.Finish(e)
	}
	if got := s.stopped; got != 2 {
		t.Errorf("MemoryLimitExceededQueries = %d, want 2 (refusals are counted by the interceptor)", got)
	}
}

// A second crossing stops the statements that started after the first one ended.
func TestMemoryGuardEveryCrossingIsAnEvent(t *testing.T) {
	heap := uint64(2000)
	s := memoryGuard(&heap)
	start := time.Unix(1_700_000_000, 0)
	first, _ := running(t, s, "SELECT 1")
	s.check(start, 1000)
	heap = 100
	s.check(start.Add(10*time.Millisecond), 1000)
	second, _ := running(t, s, "SELECT 1")
	heap = 2000
	s.check(start.Add(20*time.Millisecond), 1000)
	if first.Err() == nil || second.Err() == nil {
		t.Errorf("cancelled: first %v, second %v; want both", first.Err(), second.Err())
	}
	if got := s.stopped; got != 2 {
		t.Errorf("MemoryLimitExceededQueries = %d, want 2: each statement counted once", got)
	}
}

func TestGuardLimit(t *testing.T) {
	for _, c := range []struct{ measured, setting, want uint64 }{
		{1000, 0, 900},
		{1000, 500, 500},
		{1000, 2000, 2000},
		{0, 0, 0},
	} {
		if got := Limit(c.measured, c.setting); got != c.want {
			t.Errorf("Limit(%d, %d) = %d, want %d", c.measured, c.setting, got, c.want)
		}
	}
}

// The store's memory outside the Go heap comes off the heap's limit, but the heap keeps at
// least half of it.
func TestHeapLimit(t *testing.T) {
	for _, c := range []struct{ limit, offHeap, want uint64 }{
		{1000, 0, 1000},
		{1000, 300, 700},
		{1000, 500, 500},
		{1000, 900, 500},
		{0, 300, 0},
	} {
		if got := heapLimit(c.limit, c.offHeap); got != c.want {
			t.Errorf("heapLimit(%d, %d) = %d, want %d", c.limit, c.offHeap, got, c.want)
		}
	}
}

func TestRuntimeMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		limit    uint64
		previous int64
		want     int64
	}{
		{0, 1 << 62, 1 << 62},
		{1 << 30, 1 << 62, 1 << 30},
		{1 << 63, 1 << 40, 1 << 40},
	} {
		if got := runtimeMemoryLimit(c.limit, c.previous); got != c.want {
			t.Errorf("runtimeMemoryLimit(%d, %d) = %d, want %d", c.limit, c.previous, got, c.want)
		}
	}
}

// BenchmarkStatementRegistration is what the memory guard adds to every ordinary statement: its
// entry in the registry and its cancellable context.
func BenchmarkStatementRegistration(b *testing.B) {
	r := NewStatements()
	stmt := statement.Summarize("SELECT id, name FROM t WHERE id = 42")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, e, err := r.Start(ctx, &stmt, "main")
		if err != nil {
			b.Fatal(err)
		}
		r.Finish(e)
	}
}
