package statement

import "strings"

// RewriteSystem backquotes the bare word SYSTEM wherever it is an identifier (the database name),
// so that `SELECT * FROM system.warnings`, `USE system`, `SHOW TABLES FROM system`, `DESC system.x`
// and `SELECT system.warnings.message FROM system.warnings` parse.
//
// Left untouched: string literals, comments (including /*! ... */ and /*+ ... */), quoted
// identifiers, words that merely contain "system" (system_time, mysystem), the grammar's own
// SPATIAL REFERENCE SYSTEM and WITH SYSTEM VERSIONING, user and system variables (@@system), and
// SYSTEM as the first word of a statement (SYSTEM RELOAD CONFIG, which the server handles itself).
// The original spelling is kept inside the backquotes, and a backquoted name written right
// beside the word stays a separate token (a space is added between them).
//
// It returns sql itself, without allocating, when nothing changes.
func RewriteSystem(sql string) string {
	if !containsFoldASCII(sql, "system") {
		return sql
	}
	var out strings.Builder
	copied := 0
	// The engine's tokenizer ends the text at a NUL byte; what follows is never read as SQL.
	lx := lexer{sql: sql}
	if nul := strings.IndexByte(sql, 0); nul >= 0 {
		lx.sql = sql[:nul]
	}
	// The two significant tokens before the current one; zero (kindEnd) at a statement's start.
	var prev, prev2 token
	for {
		t := lx.next()
		if t.kind == kindEnd {
			break
		}
		if t.kind == kindComment || t.kind == kindHint {
			continue
		}
		if t.is(sql, "system") && systemIsIdentifier(sql, prev2, prev, lx) {
			if copied == 0 {
				out.Grow(len(sql) + 8)
			}
			out.WriteString(sql[copied:t.start])
			// A backquote right beside the word would join the two quoted names into one
			// (system`x` -> `system``x`), so a space keeps them apart.
			if t.start > 0 && sql[t.start-1] == '`' {
				out.WriteByte(' ')
			}
			out.WriteByte('`')
			out.WriteString(t.text(sql))
			out.WriteByte('`')
			if t.end < len(sql) && sql[t.end] == '`' {
				out.WriteByte(' ')
			}
			copied = t.end
		}
		prev2, prev = prev, t
		if t.isPunct(sql, ';') {
			prev2, prev = token{}, token{}
		}
	}
	if copied == 0 {
		return sql
	}
	out.WriteString(sql[copied:])
	return out.String()
}

// systemIsIdentifier decides whether the word SYSTEM, preceded by prev2 and prev and followed by
// what lx reads next, names something rather than being part of the grammar.
func systemIsIdentifier(sql string, prev2, prev token, lx lexer) bool {
	switch {
	case prev.kind == kindEnd:
		// First word of a statement: SYSTEM RELOAD CONFIG and friends.
		return false
	case prev.is(sql, "reference") && prev2.is(sql, "spatial"):
		return false
	case prev.is(sql, "with") && lx.peekSignificant().is(sql, "versioning"):
		return false
	}
	return true
}

// containsFoldASCII reports whether s contains lower (lower-case ASCII), ignoring ASCII case.
func containsFoldASCII(s, lower string) bool {
	first := lower[0]
	for i := 0; i+len(lower) <= len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c == first && equalFoldASCII(s[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}

// PlainMariaDBComments makes every MariaDB executable comment a plain comment by writing a space
// for its '!'. Strings, quoted identifiers and other comments are left alone; the text keeps its
// length (offsets into it stay those of sql). It returns sql itself when nothing changes.
//
// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a MariaDB executable
// comment (/*M! ... */) is a plain comment, as in MySQL (the engine's parser runs its content).
// Test: TestMariadbDumpRestore fails without it.
func PlainMariaDBComments(sql string) string {
	if !strings.Contains(sql, "/*M!") {
		return sql
	}
	var out []byte
	lx := lexer{sql: sql}
	for {
		t := lx.next()
		if t.kind == kindEnd {
			break
		}
		if t.kind == kindComment && strings.HasPrefix(sql[t.start:], "/*M!") {
			if out == nil {
				out = []byte(sql)
			}
			out[t.start+3] = ' '
		}
	}
	if out == nil {
		return sql
	}
	return string(out)
}
