package server

import (
	"context"
	"sync/atomic"

	"overloadsql/server/statement"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// inFlight is the statement a connection is running, as the protocol handler received it: the
// summary of its text, made once where the text arrives (statement.Summarize), which every check
// on the way in reads instead of the text. The handler passes it down on the statement's context
// to the engine's handler, which hands that context to the interceptor; it lives as long as the
// handler's call for that one statement, on the connection's goroutine. Context and summary are
// one value, so carrying the summary costs one allocation per statement.
type inFlight struct {
	context.Context
	summary statement.Summary
	query   string // the text the handler passes on: the statement, or all of a multi-statement query
	rest    string // the statements after this one in a multi-statement query, "" if none
	// expanded is the text the engine parsed for the statement beyond the statement itself
	// (view definitions, at each reference; see systemParser.countExpansion).
	expanded atomic.Int64
}

// inFlightKey is the context key under which an inFlight finds itself.
type inFlightKey struct{}

// Value answers inFlightKey with the statement; other keys with the context's values.
func (f *inFlight) Value(key any) any {
	if _, ok := key.(inFlightKey); ok {
		return f
	}
	return f.Context.Value(key)
}

// newInFlight summarizes the first statement of query: the whole of it, or, for a multi-statement
// query, what precedes the first statement's end (the engine runs that one and returns the rest).
func newInFlight(ctx context.Context, query string, multi bool) *inFlight {
	f := &inFlight{Context: ctx, query: query}
	first := query
	if multi {
		var err error
		if first, f.rest, err = ast.SplitStatement(query); err != nil {
			first, f.rest = query, ""
		}
	}
	f.summary = statement.Summarize(first)
	return f
}

// inFlightOf returns the statement the protocol handler put on ctx for query, or, for a caller
// that did not come through the handler (a test), the statement summarized here.
func inFlightOf(ctx context.Context, query string, multi bool) *inFlight {
	if f, ok := ctx.Value(inFlightKey{}).(*inFlight); ok && f.query == query {
		return f
	}
	return newInFlight(ctx, query, multi)
}
