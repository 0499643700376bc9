package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	gmsjson "github.com/dolthub/go-mysql-server/sql/expression/function/json"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a large LIKE match stops at
// KILL QUERY, the client leaving and the memory guard (Hooks.Stopped).
// Test: TestLongLikeMatchesStop fails without it.
//
// cancellableLikes, an analyzer rule, has each LIKE match its large cases (the text's characters
// times the pattern's above likeSmallCost) with likeMatch, which splits the pattern at its '%'
// and finds each part in turn, leftmost, as the engine's matcher would: a part without '_' by
// Knuth-Morris-Pratt, in time proportional to the text, a part with '_' by trying each place,
// in time proportional to the text times the part. It looks at the statement's context every
// likeCheckEvery characters it reads, so KILL QUERY, the client leaving and the memory guard stop
// it. Small cases keep the engine's matcher.

// likeSmallCost is the largest text length times pattern length, in characters, that the
// engine's matcher still gets: about a millisecond in its worst case.
var likeSmallCost = 1 << 16

// likeCheckEvery is how many characters likeMatch reads between two looks at the context.
const likeCheckEvery = 1 << 14

var cancellableLikes = planRule(func(_ *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if l, ok := e.(*expression.Like); ok {
		return newCancellableLike(l), transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}, func(_ *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return n, transform.SameTree, nil
})

// cancellableLike is the engine's LIKE with its large cases matched by likeMatch.
type cancellableLike struct {
	*expression.Like
	// constant is the matcher of a constant pattern, made at the first row and shared by the
	// rows after it (a LikeMatcher only reads itself), as the engine's LIKE keeps one; nil when
	// the pattern or the escape character is not a literal.
	constant *constantLikeMatcher
}

type constantLikeMatcher struct {
	once    sync.Once
	matcher expression.LikeMatcher
	err     error
}

func newCancellableLike(l *expression.Like) cancellableLike {
	c := cancellableLike{Like: l}
	_, literalPattern := l.RightChild.(*expression.Literal)
	_, literalEscape := l.Escape.(*expression.Literal)
	if literalPattern && (l.Escape == nil || literalEscape) {
		c.constant = &constantLikeMatcher{}
	}
	return c
}

// matcher is the engine's matcher of pattern.
func (l cancellableLike) matcher(collation sql.CollationID, pattern string, escape rune) (expression.LikeMatcher, error) {
	if l.constant == nil {
		return expression.ConstructLikeMatcher(collation, pattern, escape)
	}
	l.constant.once.Do(func() {
		l.constant.matcher, l.constant.err = expression.ConstructLikeMatcher(collation, pattern, escape)
	})
	return l.constant.matcher, l.constant.err
}

var (
	_ sql.Expression         = cancellableLike{}
	_ sql.CollationCoercible = cancellableLike{}
)

func (l cancellableLike) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	e, err := l.Like.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	like, ok := e.(*expression.Like)
	if !ok {
		return e, nil
	}
	return newCancellableLike(like), nil
}

// Eval evaluates the operands as the engine's LIKE does.
func (l cancellableLike) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	left, err := likeOperand(ctx, l.LeftChild, row)
	if err != nil || left == nil {
		return nil, err
	}
	right, err := likeOperand(ctx, l.RightChild, row)
	if err != nil || right == nil {
		return nil, err
	}
	escape := '\\'
	if l.Escape != nil {
		v, err := l.Escape.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v != nil {
			if _, ok := v.(string); !ok {
				if v, _, err = types.LongText.Convert(ctx, v); err != nil {
					return nil, err
				}
			}
			s := v.(string)
			if s == "" || utf8.RuneCountInString(s) > 1 { // one character; the engine fails on ""
				return nil, sql.ErrInvalidArgument.New("ESCAPE")
			}
			escape, _ = utf8.DecodeRuneInString(s)
		}
	}
	collation, _ := l.CollationCoercibility(ctx)
	matcher, err := l.matcher(collation, *right, escape)
	if err != nil {
		return nil, err
	}
	if collation == sql.Collation_Unspecified {
		return false, nil
	}
	text := *left
	if cost := uint64(len(text)) * uint64(len(*right)); cost <= uint64(likeSmallCost) {
		return matcher.Match(text), nil
	}
	return likeMatch(ctx, collation, *right, escape, text)
}

// likeOperand is an operand of LIKE as text.
func likeOperand(ctx *sql.Context, e sql.Expression, row sql.Row) (*string, error) {
	v, err := e.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return nil, err
	}
	if _, ok := v.(string); !ok {
		if v, _, err = types.LongText.Convert(ctx, v); err != nil {
			return nil, err
		}
	}
	s := v.(string)
	return &s, nil
}

// likeAnyOne is the weight of '_' in a part of a pattern: it matches any one character.
const likeAnyOne = -1

// likePattern is a LIKE pattern: its parts between '%', each a list of character weights
// (likeAnyOne for '_'), and whether it has a '%' at all.
type likePattern struct {
	parts   [][]int32
	percent bool
}

// parseLike reads pattern as the engine's ConstructLikeMatcher does, which has already accepted it.
func parseLike(collation sql.CollationID, pattern string, escape rune) likePattern {
	enc := collation.CharacterSet().Encoder()
	sorter := collation.Sorter()
	p := likePattern{parts: [][]int32{nil}}
	for i := 0; i < len(pattern); {
		r, n := enc.NextRune(pattern[i:])
		i += n
		last := len(p.parts) - 1
		switch r {
		case '_':
			p.parts[last] = append(p.parts[last], likeAnyOne)
		case '%':
			p.parts = append(p.parts, nil)
			p.percent = true
		case escape:
			r, n = enc.NextRune(pattern[i:])
			i += n
			p.parts[last] = append(p.parts[last], weight(sorter, r))
		default:
			p.parts[last] = append(p.parts[last], weight(sorter, r))
		}
	}
	return p
}

// weight is a pattern character's weight; the engine's matcher takes a negative one for '_'.
func weight(sorter func(rune) int32, r rune) int32 {
	if w := sorter(r); w >= 0 {
		return w
	}
	return likeAnyOne
}

// likeText reads a text's characters with their weights, and looks at the statement's context
// every likeCheckEvery characters.
type likeText struct {
	ctx    context.Context
	enc    interface{ NextRune(string) (rune, int) }
	sorter func(rune) int32
	s      string
	read   int
}

// next returns the weight of the character at byte at and the byte after it.
func (t *likeText) next(at int) (int32, int, error) {
	if t.read++; t.read%likeCheckEvery == 0 {
		select {
		case <-t.ctx.Done():
			return 0, 0, context.Cause(t.ctx)
		default:
		}
		if err := stopped(t.ctx); err != nil {
			return 0, 0, err
		}
	}
	r, n := t.enc.NextRune(t.s[at:])
	return t.sorter(r), at + n, nil
}

// likeMatch reports whether text matches pattern, as the engine's LikeMatcher, in time
// proportional to the text's length for parts of the pattern without '_'. It fails with the
// context's error when the statement is stopped.
func likeMatch(ctx context.Context, collation sql.CollationID, pattern string, escape rune, text string) (bool, error) {
	enc := collation.CharacterSet().Encoder()
	// The engine's matcher matches no text that holds a character it cannot read.
	for i := 0; i < len(text); {
		r, n := enc.NextRune(text[i:])
		if r == utf8.RuneError {
			return false, nil
		}
		i += n
	}
	p := parseLike(collation, pattern, escape)
	t := &likeText{ctx: ctx, enc: enc, sorter: collation.Sorter(), s: text}
	first, last := p.parts[0], p.parts[len(p.parts)-1]
	at, ok, err := t.matchAt(0, first)
	if err != nil || !ok {
		return false, err
	}
	if !p.percent {
		return at == len(text), nil
	}
	for _, part := range p.parts[1 : len(p.parts)-1] {
		if at, ok, err = t.find(at, part); err != nil || !ok {
			return false, err
		}
	}
	// The last part ends the text: it starts len(last) characters before the end.
	left := 0
	for i := at; i < len(text); left++ {
		_, n := enc.NextRune(text[i:])
		i += n
	}
	if left < len(last) {
		return false, nil
	}
	for range left - len(last) {
		_, n := enc.NextRune(text[at:])
		at += n
	}
	end, ok, err := t.matchAt(at, last)
	return ok && end == len(text), err
}

// matchAt matches part at byte at of the text and returns the byte after it.
func (t *likeText) matchAt(at int, part []int32) (int, bool, error) {
	for _, w := range part {
		if at >= len(t.s) {
			return 0, false, nil
		}
		got, next, err := t.next(at)
		if err != nil {
			return 0, false, err
		}
		if w != likeAnyOne && got != w {
			return 0, false, nil
		}
		at = next
	}
	return at, true, nil
}

// find finds the first place at or after byte at where part matches, and returns the byte
// after it.
func (t *likeText) find(at int, part []int32) (int, bool, error) {
	if len(part) == 0 {
		return at, true, nil
	}
	for _, w := range part {
		if w == likeAnyOne {
			return t.findEach(at, part)
		}
	}
	// Knuth-Morris-Pratt over the weights.
	fail := make([]int, len(part))
	for i, k := 1, 0; i < len(part); i++ {
		for k > 0 && part[i] != part[k] {
			k = fail[k-1]
		}
		if part[i] == part[k] {
			k++
		}
		fail[i] = k
	}
	k := 0
	for at < len(t.s) {
		w, next, err := t.next(at)
		if err != nil {
			return 0, false, err
		}
		at = next
		for k > 0 && w != part[k] {
			k = fail[k-1]
		}
		if w == part[k] {
			k++
		}
		if k == len(part) {
			return at, true, nil
		}
	}
	return 0, false, nil
}

// findEach tries part at each character from byte at on.
func (t *likeText) findEach(at int, part []int32) (int, bool, error) {
	for at < len(t.s) {
		end, ok, err := t.matchAt(at, part)
		if err != nil || ok {
			return end, ok, err
		}
		_, n := t.enc.NextRune(t.s[at:])
		at += n
	}
	return 0, false, nil
}

// likeMatches is LIKE's answer for text: the engine's matcher for a small case, likeMatch for
// a large one.
func likeMatches(ctx context.Context, collation sql.CollationID, pattern string, escape rune, text string) (bool, error) {
	if uint64(len(text))*uint64(len(pattern)) <= uint64(likeSmallCost) {
		m, err := expression.ConstructLikeMatcher(collation, pattern, escape)
		if err != nil {
			return false, err
		}
		return m.Match(text), nil
	}
	return likeMatch(ctx, collation, pattern, escape, text)
}

// cancellableJSONSearch is the engine's JSON_SEARCH, which matches each string of the document
// with the engine's LIKE matcher, as deaf to KILL: the strings are matched first by
// likeMatches, each replaced by "1" when it matches and by "0" when not, and the engine's
// JSON_SEARCH then looks for '1' in that document, of the same paths.
type cancellableJSONSearch struct {
	*gmsjson.JSONSearch
}

var _ sql.FunctionExpression = cancellableJSONSearch{}

func (j cancellableJSONSearch) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	e, err := j.JSONSearch.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	search, ok := e.(*gmsjson.JSONSearch)
	if !ok {
		return e, nil
	}
	return cancellableJSONSearch{search}, nil
}

func (j cancellableJSONSearch) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	doc, err := j.JSON.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	search, err := j.Search.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	var value any
	switch d := doc.(type) {
	case string:
		err = json.Unmarshal([]byte(d), &value)
	case sql.JSONWrapper:
		value, err = d.ToInterface(ctx)
	default:
		err = errors.New("not a document")
	}
	if err != nil || search == nil {
		return j.JSONSearch.Eval(ctx, row) // the engine's answer: NULL or its error
	}
	if search, _, err = types.Text.Convert(ctx, search); err != nil {
		return nil, err
	}
	escape := '\\'
	if j.Escape != nil {
		e, err := j.Escape.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if e != nil {
			if e, _, err = types.Text.Convert(ctx, e); err != nil {
				return nil, err
			}
			if s := e.(string); len(s) > 1 {
				return j.JSONSearch.Eval(ctx, row) // the engine's error
			} else if len(s) == 1 {
				escape = rune(s[0])
			}
		}
	}
	collation, _ := j.CollationCoercibility(ctx)
	pattern := search.(string)
	if _, err := expression.ConstructLikeMatcher(collation, pattern, escape); err != nil {
		return nil, err
	}
	var mark func(v any) (any, error)
	mark = func(v any) (any, error) {
		switch v := v.(type) {
		case string:
			ok, err := likeMatches(ctx, collation, pattern, escape, v)
			if ok {
				return "1", err
			}
			return "0", err
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				if out[i], err = mark(x); err != nil {
					return nil, err
				}
			}
			return out, nil
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, x := range v {
				if out[k], err = mark(x); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		return v, nil
	}
	marked, err := mark(value)
	if err != nil {
		return nil, err
	}
	children := j.JSONSearch.Children()
	args := append([]sql.Expression{
		expression.NewLiteral(types.JSONDocument{Val: marked}, types.JSON),
		children[1],
		expression.NewLiteral("1", types.LongText),
	}, children[3:]...)
	call, err := gmsjson.NewJSONSearch(ctx, args...)
	if err != nil {
		return nil, err
	}
	return call.Eval(ctx, row)
}
