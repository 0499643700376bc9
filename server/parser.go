package server

import (
	"context"

	"overloadsql/engine"
	"overloadsql/mysqlerr"
	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `system` may be
// written unquoted; a generated column may hold a comparison.
// Tests: TestSystemRewriteKeepsTokensAndNames, TestVirtualColumns.
//
// systemParser backquotes the bare word SYSTEM (a reserved word of the grammar) before the
// engine's parser sees it, parses a failed statement again with its column expressions
// parenthesized (columnExpressions), hands each parsed statement to package engine's
// corrections (engine.Rewrite: prepared names, exact decimal literals, balanced UNION chains),
// and bounds expressions (statement.CheckExpressionSize: 1105, TestExpressionsTooBigAreRefused), subquery
// nesting (1473) and view expansion (countExpansion, TestDoublingViewsAreRefused). Every parse
// of the engine, the handler's and the planner's, goes through it.
type systemParser struct {
	next sql.Parser
}

var _ sql.Parser = systemParser{}

// newSystemParser is the parser of one engine: the engine parses every text through its
// catalog's parser override, the handler's and the planner's parses and also the body of a
// stored procedure on every CALL, the body of a trigger, and the statements of events (a
// procedure's `DELETE FROM t WHERE d = 1.499` must delete what the same statement sent by a
// client deletes, and a procedure's `PREPARE S ...; EXECUTE s` must find its statement:
// engine.Rewrite).
func newSystemParser() sql.Parser {
	return systemParser{next: sql.NewMysqlParser()}
}

func (p systemParser) ParseSimple(query string) (ast.Statement, error) {
	out, _, err := parseSettled(query, func(text string) (parsed, error) {
		stmt, err := p.next.ParseSimple(text)
		return parsed{stmt: stmt}, err
	})
	return out.stmt, err
}

func (p systemParser) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	if err := checkSize(query); err != nil {
		return nil, "", "", err
	}
	out, _, err := parseSettled(query, func(text string) (parsed, error) {
		stmt, first, rest, err := p.next.Parse(ctx, text, multi)
		return parsed{stmt: stmt, first: first, rest: rest}, err
	})
	return out.stmt, out.first, out.rest, err
}

func (p systemParser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options ast.ParserOptions) (ast.Statement, string, string, error) {
	if err := checkSize(query); err != nil {
		return nil, "", "", err
	}
	if err := countExpansion(ctx, query); err != nil {
		return nil, "", "", err
	}
	out, _, err := parseSettled(query, func(text string) (parsed, error) {
		stmt, first, rest, err := p.next.ParseWithOptions(ctx, text, delimiter, multi, options)
		return parsed{stmt: stmt, first: first, rest: rest}, err
	})
	return out.stmt, out.first, out.rest, err
}

// parsed is what one of the engine parser's methods returns.
type parsed struct {
	stmt        ast.Statement
	first, rest string
	end         int
}

// parseSettled parses query with parse, after MariaDB's executable comments are made plain
// (statement.PlainMariaDBComments) and the `system` rewrite (statement.RewriteSystem),
// and again with its column expressions parenthesized when that fails (columnExpressions), and
// settles the statement; it returns the text that was parsed.
func parseSettled(query string, parse func(text string) (parsed, error)) (parsed, string, error) {
	query = statement.PlainMariaDBComments(query) // the same length: offsets stay the caller's
	rewritten := statement.RewriteSystem(query)
	out, err := parse(rewritten)
	if err != nil {
		if again, ok := columnExpressions(rewritten); ok {
			if out2, err2 := parse(again); err2 == nil {
				out, err, rewritten = out2, nil, again
			}
		}
	}
	out.stmt = settle(out.stmt, query, rewritten)
	return out, rewritten, err
}

// columnExpressions is the text to parse again when query failed to parse: query with the
// expressions of its generated columns and column defaults in a second pair of parentheses
// (statement.ParenthesizeColumnExpressions), and whether that differs from query. The engine's
// grammar refuses a comparison there (b INT AS (d > 1)), which MySQL takes. The second parse
// is kept only when it succeeds: a statement that fails for another reason fails with the
// error of the text as written.
func columnExpressions(query string) (string, bool) {
	again := statement.ParenthesizeColumnExpressions(query)
	return again, again != query
}

// countExpansion adds query to the text parsed for the client's statement on ctx when it is not
// that statement itself, and fails when that text passes statement.MaxViewExpansion. The engine
// parses a view's definition again at each reference to the view, during the planning of the
// statement that names it, so views that each join the one before to itself doubled the
// planning at each level, deaf to KILL QUERY, which the CTE limit, read from the statement's
// text alone, cannot see. Procedure bodies and other text the engine parses for the statement
// count too; they are small beside the limit.
func countExpansion(ctx context.Context, query string) error {
	f, ok := ctx.Value(inFlightKey{}).(*inFlight)
	if !ok || f.query == query {
		return nil
	}
	if n := f.expanded.Add(int64(len(query))); n > statement.MaxViewExpansion {
		return &statement.TooManyViewReferencesError{Bytes: n}
	}
	return nil
}

// checkSize is statement.CheckExpressionSize, with MySQL's error for subqueries nested too deep.
func checkSize(query string) error {
	err := statement.CheckExpressionSize(query)
	if tooDeep, ok := err.(*statement.TooDeepError); ok {
		return mysqlerr.New(mysqlerr.ERTooHighLevelOfNestingForSelect, "%s", tooDeep.Error())
	}
	return err
}

// settle is what the parser does to each statement the engine's parser returns: see
// restoreColumnNames and engine.Rewrite.
func settle(stmt ast.Statement, query, rewritten string) ast.Statement {
	return engine.Rewrite(restoreColumnNames(stmt, query, rewritten))
}

// restoreColumnNames gives the select-list expressions of a statement parsed from rewritten
// the text the client wrote: an expression without alias names its result column by its text
// (SELECT MAX(system.metrics.value) shows that, not MAX(`system`.metrics.value)).
func restoreColumnNames(stmt ast.Statement, original, rewritten string) ast.Statement {
	if stmt == nil || rewritten == original {
		return stmt
	}
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		e, ok := node.(*ast.AliasedExpr)
		if !ok || e.InputExpression == "" || e.StartParsePos < 0 || e.EndParsePos > len(rewritten) ||
			e.StartParsePos > e.EndParsePos || rewritten[e.StartParsePos:e.EndParsePos] != e.InputExpression {
			return true, nil
		}
		start, end := originalOffset(original, rewritten, e.StartParsePos), originalOffset(original, rewritten, e.EndParsePos)
		e.InputExpression = original[start:end]
		return true, nil
	}, stmt)
	return stmt
}

// ParseOneWithOptions returns an index into the caller's query, so an index into the rewritten
// text is mapped back past the backquotes the rewrite added.
func (p systemParser) ParseOneWithOptions(ctx context.Context, query string, options ast.ParserOptions) (ast.Statement, int, error) {
	if err := checkSize(query); err != nil {
		return nil, 0, err
	}
	query = statement.PlainMariaDBComments(query)
	out, rewritten, err := parseSettled(query, func(text string) (parsed, error) {
		stmt, end, err := p.next.ParseOneWithOptions(ctx, text, options)
		return parsed{stmt: stmt, end: end}, err
	})
	if rewritten != query {
		out.end = originalOffset(query, rewritten, out.end)
	}
	return out.stmt, out.end, err
}

// originalOffset maps an offset in rewritten to the same place in original, where rewritten is
// original with backquotes (and parentheses beside parentheses) inserted.
func originalOffset(original, rewritten string, offset int) int {
	i := 0
	for j := 0; j < offset && j < len(rewritten); j++ {
		if i < len(original) && original[i] == rewritten[j] {
			i++
		}
	}
	return i
}
