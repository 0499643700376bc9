package statement

import "strings"

// ParenthesizeColumnExpressions returns sql with the expression of each generated column (`AS
// (expr)`, `GENERATED ALWAYS AS (expr)`) and of each column default (`DEFAULT (expr)`) in its
// CREATE and ALTER statements put inside a second pair of parentheses: `b INT AS (d > 1)`
// becomes `b INT AS ((d > 1))`. The engine's grammar takes there only an expression without a
// comparison, IS, IN, LIKE, BETWEEN, NOT, AND or OR at its top, and fails with a syntax error
// on the rest (MySQL takes any expression); inside parentheses it takes any. The parentheses
// change nothing else: MySQL's own SHOW CREATE TABLE writes them so (`AS ((d > 1))`).
//
// Left as they are: a parenthesized query after AS (CREATE TABLE ... AS (SELECT ...), CREATE
// VIEW ... AS (SELECT ...)), strings, comments and the SQL inside /*! */ comments. It returns
// sql itself, without allocating, when it adds nothing.
func ParenthesizeColumnExpressions(sql string) string {
	if !containsFoldASCII(sql, "as") && !containsFoldASCII(sql, "default") {
		return sql
	}
	lx := lexer{sql: sql}
	// The engine's tokenizer ends the text at a NUL byte; what follows is never read as SQL.
	if nul := strings.IndexByte(sql, 0); nul >= 0 {
		lx.sql = sql[:nul]
	}
	// The parentheses added, in order of their offsets: each '(' after the one it doubles, each
	// ')' before the one it doubles.
	type insert struct {
		at int
		c  byte
	}
	var inserts []insert
	var opens []bool // for each open parenthesis, whether one was added after it
	var first, prev token
	for {
		t := lx.nextSignificant()
		if t.kind == kindEnd {
			break
		}
		switch {
		case t.isPunct(sql, ';'):
			first, prev, opens = token{}, token{}, opens[:0]
			continue
		case first.kind == kindEnd:
			first = t
		case !first.is(sql, "create") && !first.is(sql, "alter"):
		case t.isPunct(sql, '('):
			add := (prev.is(sql, "as") || prev.is(sql, "default")) && !startsQuery(sql, lx.peekSignificant())
			if add {
				inserts = append(inserts, insert{t.end, '('})
			}
			opens = append(opens, add)
		case t.isPunct(sql, ')') && len(opens) > 0:
			if opens[len(opens)-1] {
				inserts = append(inserts, insert{t.start, ')'})
			}
			opens = opens[:len(opens)-1]
		}
		prev = t
	}
	if len(inserts) == 0 {
		return sql
	}
	var out strings.Builder
	out.Grow(len(sql) + len(inserts))
	copied := 0
	for _, in := range inserts {
		out.WriteString(sql[copied:in.at])
		out.WriteByte(in.c)
		copied = in.at
	}
	out.WriteString(sql[copied:])
	return out.String()
}

// startsQuery reports whether t begins a query (SELECT, WITH, VALUES, TABLE).
func startsQuery(sql string, t token) bool {
	return t.is(sql, "select") || t.is(sql, "with") || t.is(sql, "values") || t.is(sql, "table")
}
