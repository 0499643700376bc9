package server

import (
	"context"
	"testing"
)

// The interceptor reads the summary the protocol handler made of the same text, and makes its
// own only for a text the handler did not summarize.
func TestInFlightCarriesTheHandlersSummary(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		multi       bool
		first, rest string
	}{
		{"one statement", "SELECT 1", false, "SELECT 1", ""},
		{"multi-statement query", "SHOW ERRORS; SELECT 1", true, "SHOW ERRORS", " SELECT 1"},
		{"last of a multi-statement query", "SELECT 1", true, "SELECT 1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newInFlight(context.Background(), tc.query, tc.multi)
			if got := f.summary.Text(); got != tc.first {
				t.Errorf("summary of %q, want %q", got, tc.first)
			}
			if f.rest != tc.rest {
				t.Errorf("rest = %q, want %q", f.rest, tc.rest)
			}
			// The engine's handler derives its own contexts from the one it was given.
			ctx, cancel := context.WithCancel(f)
			defer cancel()
			if got := inFlightOf(ctx, tc.query, tc.multi); got != f {
				t.Errorf("the interceptor summarized %q again", tc.query)
			}
			if got := inFlightOf(ctx, "SELECT 2", false); got == f || got.summary.Text() != "SELECT 2" {
				t.Errorf("another text got the summary of %q", f.summary.Text())
			}
		})
	}
}

// TestInFlightOneAllocation: carrying a statement's summary costs one allocation.
func TestInFlightOneAllocation(t *testing.T) {
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() {
		f := newInFlight(ctx, "SELECT id FROM t WHERE id = 1", false)
		_ = inFlightOf(f, f.query, false).summary.Exempt("main")
	}); n != 1 {
		t.Errorf("%v allocations per statement, want 1", n)
	}
}
