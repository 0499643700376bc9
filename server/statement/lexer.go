package statement

import "strings"

// kind is the lexical class of a token.
type kind uint8

const (
	kindEnd            kind = iota
	kindWord                // unquoted identifier or keyword
	kindQuoted              // `backquoted identifier`
	kindString              // '...' or "..." (also the quoted part of x'..', b'..')
	kindNumber              // 12, 1.5e3, 0x1F, .5
	kindVariable            // @user or @@system.variable
	kindBindVar             // ?, :name
	kindComment             // /* */, -- , #, //
	kindHint                // /*+ optimizer hints */
	kindVersionComment      // /*! SQL that MySQL executes */
	kindPunct               // one operator or punctuation byte
)

// token is a span of the statement text; it holds offsets, never a copy.
type token struct {
	kind       kind
	start, end int
}

// text returns the token's text within sql.
func (t token) text(sql string) string { return sql[t.start:t.end] }

// is reports whether t is a word equal to lower (which must be lower-case ASCII), ignoring case.
func (t token) is(sql, lower string) bool {
	return t.kind == kindWord && equalFoldASCII(t.text(sql), lower)
}

// isPunct reports whether t is the punctuation byte c.
func (t token) isPunct(sql string, c byte) bool {
	return t.kind == kindPunct && sql[t.start] == c
}

// name returns the identifier a word or backquoted token names (backquotes removed, doubled
// backquotes left as written) and whether the token is an identifier at all.
func (t token) name(sql string) (string, bool) {
	switch t.kind {
	case kindWord:
		return t.text(sql), true
	case kindQuoted:
		end := t.end
		if end-t.start >= 2 && sql[end-1] == '`' {
			end--
		}
		return sql[t.start+1 : end], true
	}
	return "", false
}

// lexer splits SQL text into tokens the way the engine's parser (vitess) does, so that what the
// lexer calls a word, a string or a comment is what the parser will see. A lexer is a small value:
// copying it gives a look-ahead that does not disturb the original.
type lexer struct {
	sql string
	pos int
	// account is set when '@' directly follows an identifier or a string ('user'@'host'): the
	// parser then reads that '@' alone, not as the start of a variable.
	account bool
	// The last search for the end of a comment: from searchFrom, "*/" found at found (-1: none).
	searched   bool
	searchFrom int
	found      int
}

// commentEnd returns the offset of the first "*/" at or after from, or -1. It reuses its last
// answer when that answers this search too: comments opened inside one another (a reader that
// looks into /*!/*!/*! ... ) would otherwise each search the text to its end.
func (lx *lexer) commentEnd(from int) int {
	if lx.searched && lx.searchFrom <= from && (lx.found < 0 || from <= lx.found) {
		return lx.found
	}
	found := strings.Index(lx.sql[from:], "*/")
	if found >= 0 {
		found += from
	}
	lx.searched, lx.searchFrom, lx.found = true, from, found
	return found
}

// next returns the next token, comments included, and kindEnd at the end of the text.
func (lx *lexer) next() token {
	sql := lx.sql
	for lx.pos < len(sql) && isBlank(sql[lx.pos]) {
		lx.pos++
	}
	start := lx.pos
	if start >= len(sql) {
		return token{kind: kindEnd, start: start, end: start}
	}
	account := lx.account
	lx.account = false
	c := sql[start]
	k := kindPunct
	switch {
	case isLetter(c):
		if (c|0x20 == 'x' || c|0x20 == 'b') && start+1 < len(sql) && sql[start+1] == '\'' {
			lx.pos = start + 2
			k = lx.scanRadixLiteral(c | 0x20)
			break
		}
		lx.pos = lx.scanWord(start + 1)
		k = kindWord
		lx.account = lx.at('@')
	case c == '@':
		lx.pos = start + 1
		if account {
			break
		}
		k = kindVariable
		lx.scanVariable()
		lx.account = lx.at('@')
	case isDigit(c):
		k = lx.scanNumber(start)
		if k == kindWord {
			lx.account = lx.at('@')
		}
	case c == '.' && start+1 < len(sql) && isDigit(sql[start+1]):
		lx.pos = lx.scanFraction(start + 1)
		k = kindNumber
	case c == '\'' || c == '"':
		lx.pos = skipQuoted(sql, start+1, c, true)
		k = kindString
		lx.account = lx.at('@')
	case c == '`':
		lx.pos = skipQuoted(sql, start+1, '`', false)
		k = kindQuoted
		lx.account = lx.at('@')
	case c == '#':
		lx.pos = lineEnd(sql, start)
		k = kindComment
	case (c == '-' || c == '/') && lx.peek(start+1) == c:
		lx.pos = lineEnd(sql, start)
		k = kindComment
	case c == '/' && lx.peek(start+1) == '*':
		if end := lx.commentEnd(start + 2); end < 0 {
			lx.pos = len(sql)
		} else {
			lx.pos = end + 2
		}
		k = kindComment
		switch lx.peek(start + 2) {
		case '+':
			k = kindHint
		case '!':
			k = kindVersionComment
		}
	case c == ':':
		lx.pos = lx.scanColon(start)
		if lx.pos-start > 1 && sql[start+1] != '=' {
			k = kindBindVar
		}
	case c == '?':
		lx.pos = start + 1
		k = kindBindVar
	case isWordByte(c):
		// '$' and non-ASCII bytes: MySQL identifier characters that the engine's lexer rejects.
		// Read them as one word so that no part of it is ever taken for a separate word.
		lx.pos = lx.scanWord(start + 1)
		k = kindWord
	default:
		lx.pos = start + 1
	}
	return token{kind: k, start: start, end: lx.pos}
}

// nextSignificant returns the next token that is not a comment or a hint.
func (lx *lexer) nextSignificant() token {
	for {
		t := lx.next()
		if t.kind != kindComment && t.kind != kindHint {
			return t
		}
	}
}

// peekSignificant returns the next significant token without consuming it.
func (lx *lexer) peekSignificant() token {
	ahead := *lx
	return ahead.nextSignificant()
}

func (lx *lexer) peek(i int) byte {
	if i < len(lx.sql) {
		return lx.sql[i]
	}
	return 0
}

func (lx *lexer) at(c byte) bool { return lx.peek(lx.pos) == c }

// scanWord returns the end of a word whose first byte precedes i.
func (lx *lexer) scanWord(i int) int {
	for i < len(lx.sql) && isWordByte(lx.sql[i]) {
		i++
	}
	return i
}

// scanVariable reads @name, @`name`, @@name, @@session.name (the parser takes '.', quotes and
// backquotes as part of a system variable's token); lx.pos is just after the first '@'.
func (lx *lexer) scanVariable() {
	sql := lx.sql
	system := lx.at('@')
	if system {
		lx.pos++
	}
	for lx.pos < len(sql) {
		c := sql[lx.pos]
		if !isLetter(c) && !isDigit(c) && !(system && isVariableQuote(c)) {
			break
		}
		lx.pos++
	}
	if !lx.at('`') {
		return
	}
	lx.pos++
	for lx.pos < len(sql) {
		c := sql[lx.pos]
		if !isLetter(c) && !isDigit(c) && !isVariableQuote(c) && !isUnicodeSpaceByte(c) {
			return
		}
		lx.pos++
		if c == '`' {
			return
		}
	}
}

// scanNumber reads a number starting at start. As in the parser, a number followed by letters is
// an identifier (1e5x, 0x1Fsystem), unless it had a decimal point (then it is an error, read here
// as a number followed by a word).
func (lx *lexer) scanNumber(start int) kind {
	sql := lx.sql
	i := start
	if sql[i] == '0' && (lx.peek(i+1) == 'x' || lx.peek(i+1) == 'X') {
		i += 2
		for i < len(sql) && isHexDigit(sql[i]) {
			i++
		}
	} else {
		i = scanDigits(sql, i)
		if i < len(sql) && sql[i] == '.' {
			i = scanDigits(sql, i+1)
		}
		i = scanExponent(sql, i)
	}
	lx.pos = i
	if i < len(sql) && isLetter(sql[i]) && strings.IndexByte(sql[start:i], '.') < 0 {
		lx.pos = lx.scanWord(i)
		return kindWord
	}
	return kindNumber
}

// scanFraction returns the end of a number that starts with its decimal point (.5, .5e3); i is
// the first digit.
func (lx *lexer) scanFraction(i int) int {
	return scanExponent(lx.sql, scanDigits(lx.sql, i))
}

// scanRadixLiteral reads the rest of x'1F' or b'101' (lx.pos is after the quote).
func (lx *lexer) scanRadixLiteral(radix byte) kind {
	sql := lx.sql
	for lx.pos < len(sql) && (radix == 'x' && isHexDigit(sql[lx.pos]) || radix == 'b' && (sql[lx.pos] == '0' || sql[lx.pos] == '1')) {
		lx.pos++
	}
	if lx.at('\'') {
		lx.pos++
	}
	return kindString
}

// scanColon reads ':=', ':name', '::name' or a lone ':'.
func (lx *lexer) scanColon(start int) int {
	sql := lx.sql
	i := start + 1
	if i < len(sql) && sql[i] == ':' {
		i++
	}
	if i >= len(sql) || !isLetter(sql[i]) {
		if i < len(sql) && sql[i] == '=' {
			return i + 1
		}
		return i
	}
	for i < len(sql) && (isLetter(sql[i]) || isDigit(sql[i]) || sql[i] == '.') {
		i++
	}
	return i
}

// skipQuoted returns the end of a quoted string or identifier whose opening quote precedes i.
// A doubled quote stands for itself; in strings a backslash escapes the next byte.
// An unterminated quote runs to the end of the text.
func skipQuoted(sql string, i int, quote byte, backslash bool) int {
	for i < len(sql) {
		c := sql[i]
		switch {
		case backslash && c == '\\':
			i += 2
		case c == quote:
			if i+1 < len(sql) && sql[i+1] == quote {
				i += 2
				continue
			}
			return i + 1
		default:
			i++
		}
	}
	return len(sql)
}

// lineEnd returns the end of a comment that runs to the end of the line (newline included).
func lineEnd(sql string, i int) int {
	if nl := strings.IndexByte(sql[i:], '\n'); nl >= 0 {
		return i + nl + 1
	}
	return len(sql)
}

func scanDigits(sql string, i int) int {
	for i < len(sql) && isDigit(sql[i]) {
		i++
	}
	return i
}

func scanExponent(sql string, i int) int {
	if i >= len(sql) || sql[i]|0x20 != 'e' {
		return i
	}
	i++
	if i < len(sql) && (sql[i] == '+' || sql[i] == '-') {
		i++
	}
	return scanDigits(sql, i)
}

// isBlank matches the bytes the parser skips between tokens (fewer than MySQL accepts: the others
// make the parser fail, and are read here as punctuation).
func isBlank(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// isWordByte matches the bytes of an unquoted identifier: MySQL also allows '$' and any
// non-ASCII byte (the bytes of UTF-8 letters).
func isWordByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '$' || c >= 0x80 }

func isVariableQuote(c byte) bool { return c == '.' || c == '\'' || c == '"' || c == '`' }

// isUnicodeSpaceByte matches the bytes that unicode.IsSpace accepts, which the parser uses
// inside @`quoted` variable names.
func isUnicodeSpaceByte(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r' || c == 0x85 || c == 0xA0
}

// equalFoldASCII reports whether s equals lower (lower-case ASCII) ignoring ASCII case. Unlike
// strings.EqualFold it does not fold non-ASCII letters ("ſystem" is not "system").
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
