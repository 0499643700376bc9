package statement

import "fmt"

// Limits on the size of one expression. The engine's planning and evaluation of an expression
// take time that grows faster than its number of operators (an arithmetic node asks its whole
// subtree for its type, once per node and per row), and none of that work looks at the
// statement's context, so neither KILL QUERY nor a client that leaves can stop it: the limits
// refuse such a statement before it is parsed.
const (
	// MaxArithmeticOperators bounds the arithmetic operators (+ - * / % DIV MOD & | ^ << >>)
	// of one arithmetic expression, parenthesized parts included.
	MaxArithmeticOperators = 32
	// MaxOperators bounds all binary operators (arithmetic, comparisons, AND, OR, XOR) of one
	// expression: what lies between two commas of a list, parenthesized parts included.
	MaxOperators = 2000
)

// maxTrackedDepth is the parenthesis depth up to which operators are counted per level; deeper
// levels (which the parser refuses anyway) share the deepest counter.
const maxTrackedDepth = 255

// TooComplexError says which limit an expression exceeds and where.
type TooComplexError struct {
	What   string // "arithmetic operators" or "operators"
	Limit  int
	Offset int // byte offset of the operator that exceeded the limit
}

func (e *TooComplexError) Error() string {
	return fmt.Sprintf("expression too complex: more than %d %s in one expression (at byte %d); split it, or compute it in the application", e.Limit, e.What, e.Offset)
}

// counts are the operators counted at one parenthesis level since its last comma.
type counts struct{ arithmetic, all int }

// CheckExpressionSize returns a *TooComplexError when an expression of sql exceeds
// MaxArithmeticOperators or MaxOperators, nil otherwise. It reads the text once, with the same
// tokenizer as the rest of the package, and does not allocate.
func CheckExpressionSize(sql string) error {
	var levels [maxTrackedDepth + 1]counts
	depth := 0
	lx := lexer{sql: sql}
	var prev token
	for {
		t := lx.nextSignificant()
		if t.kind == kindEnd {
			return nil
		}
		cur := &levels[depth]
		switch op := operatorAt(&lx, prev, t); {
		case t.isPunct(sql, '('):
			if depth < maxTrackedDepth {
				depth++
			}
			levels[depth] = counts{}
		case t.isPunct(sql, ')'):
			if depth > 0 {
				inner := levels[depth]
				depth--
				levels[depth].arithmetic += inner.arithmetic
				levels[depth].all += inner.all
			}
		case t.isPunct(sql, ','):
			*cur = counts{}
		case t.isPunct(sql, ';'):
			depth = 0
			levels[0] = counts{}
		case op == opArithmetic:
			cur.arithmetic++
			cur.all++
		case op == opOther:
			cur.arithmetic = 0
			cur.all++
		}
		if c := levels[depth]; c.arithmetic > MaxArithmeticOperators {
			return &TooComplexError{What: "arithmetic operators", Limit: MaxArithmeticOperators, Offset: t.start}
		} else if c.all > MaxOperators {
			return &TooComplexError{What: "operators", Limit: MaxOperators, Offset: t.start}
		}
		prev = t
	}
}

type operator uint8

const (
	opNone       operator = iota
	opArithmetic          // ends in an arithmetic node of the engine
	opOther               // a comparison or a logical operator
)

// operatorAt classifies t, read after prev, as a binary operator. Operators of two bytes
// (<<, >>, <=, >=, <>, !=, <=>, &&, ||) are read whole, so that they count once. + and - are
// binary only after an operand; * only after an operand (SELECT *, COUNT(*), t.* are not
// products).
func operatorAt(lx *lexer, prev, t token) operator {
	sql := lx.sql
	switch t.kind {
	case kindWord:
		switch {
		case t.is(sql, "div"), t.is(sql, "mod"):
			if endsOperand(sql, prev) {
				return opArithmetic
			}
		case t.is(sql, "and"), t.is(sql, "or"), t.is(sql, "xor"), t.is(sql, "like"),
			t.is(sql, "regexp"), t.is(sql, "rlike"):
			return opOther
		}
		return opNone
	case kindPunct:
	default:
		return opNone
	}
	c := sql[t.start]
	next := lx.peek(t.end)
	switch c {
	case '-':
		if next == '>' {
			// JSON's -> and ->>: a path, not arithmetic.
			lx.pos++
			if lx.at('>') {
				lx.pos++
			}
			return opNone
		}
		if endsOperand(sql, prev) {
			return opArithmetic
		}
	case '+', '*', '/', '%', '^':
		if endsOperand(sql, prev) {
			return opArithmetic
		}
	case '&', '|':
		if next == c {
			lx.pos++
			return opOther
		}
		return opArithmetic
	case '<', '>':
		if next == c {
			lx.pos++
			return opArithmetic
		}
		if next == '=' || next == '>' {
			lx.pos++
			if lx.at('>') {
				lx.pos++
			}
		}
		return opOther
	case '=':
		return opOther
	case '!':
		if next == '=' {
			lx.pos++
			return opOther
		}
	}
	return opNone
}

// endsOperand reports whether t can end an operand, so that a following + - * is binary.
func endsOperand(sql string, t token) bool {
	switch t.kind {
	case kindNumber, kindString, kindQuoted, kindVariable, kindBindVar:
		return true
	case kindPunct:
		return t.isPunct(sql, ')')
	case kindWord:
		return !isAnyWord(sql, t, operandStarters)
	}
	return false
}

// operandStarters are keywords after which + - * start an operand (a sign or a star).
var operandStarters = []string{
	"select", "distinct", "all", "and", "or", "xor", "not", "where", "having", "when", "then",
	"else", "case", "in", "is", "like", "between", "on", "by", "set", "return", "values",
	"interval", "binary", "div", "mod", "regexp", "rlike", "limit", "offset", "as", "escape",
}
