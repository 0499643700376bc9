package integration

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunawayRegexpLeavesTheServerServing runs a regular expression that backtracks for hours
// and checks that the server goes on serving: the admin listener, ordinary statements, and the
// garbage collector, which must stop every running goroutine for a moment. The rule: a match
// must run where the Go runtime can stop it or does not need to (ICU4C through cgo), never as
// machine code the runtime cannot stop (ICU built to WebAssembly), where the first collection
// waits for the match and the whole server stops with it.
func TestRunawayRegexpLeavesTheServerServing(t *testing.T) {
	s := startServer(t, serverOptions{top: "shutdown_timeout_s = 1\n", env: []string{"GODEBUG=gctrace=1", "GOGC=25"}})
	db := s.db()
	runaway := session(t, db)
	// Hours of backtracking: the client leaves at the end, and the statement ends with the server.
	leave, cancelRunaway := context.WithCancel(context.Background())
	defer cancelRunaway()
	go func() {
		_, _ = runaway.ExecContext(leave, "SELECT REGEXP_LIKE(REPEAT('a', 40), '(a+)+b')")
	}()
	eventually(t, 15*time.Second, "the regular expression runs", func() (bool, string) {
		rows := queryStrings(t, s.adminDB(), "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '%(a+)+b%' AND info NOT LIKE '%processlist%'")
		return len(rows) == 1 && rows[0] == "1", strings.Join(rows, "; ")
	})
	collections := strings.Count(s.log.String(), "gc ")
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var n int
		err := db.QueryRowContext(ctx, "SELECT LENGTH(REPEAT('x', 20000000))").Scan(&n)
		cancel()
		if err != nil || n != 20000000 {
			t.Fatalf("statement %d beside the runaway REGEXP: %d, %v (the server stopped serving)", i, n, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var one int
	if err := s.adminDB().QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("admin SELECT 1 beside the runaway REGEXP: %d, %v", one, err)
	}
	if after := strings.Count(s.log.String(), "gc "); after <= collections {
		t.Fatalf("no garbage collection ran while the REGEXP did (%d before, %d after): the test proved nothing", collections, after)
	}
}
