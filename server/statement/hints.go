package statement

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"overloadsql/mysqlerr"
)

// Hint is one SET_VAR optimizer hint: /*+ SET_VAR(name = value) */ (MySQL 8 syntax), which sets a
// setting for one statement only, e.g.
// SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 1.5) */ 1.
type Hint struct {
	Name  string // lower-cased
	Value string // as written: number text, a word, or a quoted string without its quotes
}

// Number reads a threshold's value in a hint: a number >= 0.
func (h Hint) Number() (float64, error) {
	f, err := strconv.ParseFloat(h.Value, 64)
	if err == nil && (f < 0 || math.IsNaN(f)) {
		err = fmt.Errorf("%s is not a number >= 0", mysqlerr.Clipped(h.Value, mysqlerr.QuotedValue))
	}
	return f, err
}

// Hints returns the SET_VAR hints of a statement the server did not summarize (the engine's own
// statement text), nil when there are none; see Summary.Hints.
func Hints(sql string) []Hint {
	lx := lexer{sql: sql}
	first := lx.nextSignificant()
	if !first.is(sql, "select") && !first.is(sql, "insert") && !first.is(sql, "replace") &&
		!first.is(sql, "update") && !first.is(sql, "delete") {
		return nil
	}
	return readHints(lx)
}

// readHints reads the hint comments that follow a statement's first keyword; it allocates only
// when it finds SET_VAR hints.
func readHints(lx lexer) []Hint {
	sql := lx.sql
	var hints []Hint
	for {
		t := lx.next()
		switch t.kind {
		case kindComment:
		case kindHint:
			if body := hintBody(t.text(sql)); containsFoldASCII(body, "set_var") {
				hints = appendSetVars(hints, body)
			}
		default:
			return hints
		}
	}
}

// hintBody returns the text inside /*+ ... */.
func hintBody(comment string) string {
	return strings.TrimSuffix(comment[len("/*+"):], "*/")
}

// appendSetVars appends the SET_VAR hints found in the body of a hint comment.
func appendSetVars(hints []Hint, body string) []Hint {
	lx := lexer{sql: body}
	for {
		t := lx.nextSignificant()
		switch {
		case t.kind == kindEnd:
			return hints
		case t.is(body, "set_var") && lx.peekSignificant().isPunct(body, '('):
			lx.nextSignificant()
			if h, ok := readSetVar(&lx); ok {
				hints = append(hints, h)
			}
		}
	}
}

// readSetVar reads `name = value )`, what follows SET_VAR(.
func readSetVar(lx *lexer) (Hint, bool) {
	body := lx.sql
	name := lx.nextSignificant()
	if name.kind != kindWord || !lx.nextSignificant().isPunct(body, '=') {
		return Hint{}, false
	}
	v := lx.nextSignificant()
	value := v.text(body)
	switch {
	case v.isPunct(body, '-') || v.isPunct(body, '+'):
		n := lx.nextSignificant()
		if n.kind != kindNumber {
			return Hint{}, false
		}
		value = body[v.start:n.end]
	case v.kind == kindString:
		value = unquote(value)
	case v.kind != kindNumber && v.kind != kindWord:
		return Hint{}, false
	}
	if !lx.nextSignificant().isPunct(body, ')') {
		return Hint{}, false
	}
	return Hint{Name: strings.ToLower(name.text(body)), Value: value}, true
}

// unquote strips the quotes of a quoted string token (escapes are left as written); other
// string tokens (x'1F', b'101') are returned as written.
func unquote(s string) string {
	if s[0] != '\'' && s[0] != '"' {
		return s
	}
	if len(s) >= 2 && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s[1:]
}
