package statement

import (
	"fmt"
	"strings"
)

// Limits on the size of one expression and on the nesting of subqueries. The engine's planning
// and evaluation of an expression take time that grows faster than its number of operators (an
// arithmetic node asks its whole subtree for its type, once per node and per row; a chain of NOT,
// CASE or IS costs the square of its length), and the planning of nested subqueries grows
// exponentially with their depth (a subquery in a select list is asked for its type and printed
// for its column name by each level above it, each of which does the same for the level below).
// None of that work looks at the statement's context, so neither KILL QUERY nor a client that
// leaves can stop it: the limits refuse such a statement before it is parsed.
const (
	// MaxArithmeticOperators bounds the arithmetic operators (+ - * / % DIV MOD & | ^ << >>)
	// of one arithmetic expression, parenthesized parts included.
	MaxArithmeticOperators = 32
	// MaxOperators bounds all operators of one expression, what lies between two commas of a
	// list, parenthesized parts included: the binary ones (arithmetic, comparisons, AND, OR,
	// XOR, LIKE, REGEXP) and the unary ones (NOT, !, BINARY, signs, ~, IS, CASE).
	MaxOperators = 2000
	// MaxAlterClauses bounds the clauses of one ALTER statement: the engine plans each added
	// column with a copy of the table's columns so far, so planning is quadratic in the clauses.
	MaxAlterClauses = 1024
	// MaxSubqueryDepth bounds how deep subqueries nest in one another (MySQL's bound is 63).
	MaxSubqueryDepth = 16
	// MaxSelectListCost bounds the planning cost of subqueries nested in select lists: each
	// subquery in a select list counts its length (plus selectListOverhead) times 2.5 to the
	// power of its level, the number of subqueries in select lists it is nested in, itself
	// included (a subquery in a WHERE, FROM or other clause starts again at level 0).
	MaxSelectListCost  = 1 << 21
	selectListOverhead = 256
	// MaxCTEExpansion bounds the text the engine plans for the references to common table
	// expressions of a statement, beyond the statement's own length: it plans a CTE's body anew
	// at each reference, so a chain of CTEs each joining the one before it to itself doubles
	// at each step. A CTE weighs its length plus cteOverhead plus the weights of the CTEs its
	// body names; each name of a CTE after its definition (not qualifying or qualified by
	// another name) adds its weight.
	MaxCTEExpansion = 1 << 21
	cteOverhead     = 256
	// MaxViewExpansion bounds the text of the view definitions the engine parses while it plans
	// one statement: it parses a view's definition again at each reference, so views that each
	// join the one before to itself double the planning at each level, and planning a view's
	// text costs more than a CTE's (docs/reference.md, Limits, gives the figures).
	MaxViewExpansion = 1 << 19
)

// selectListWeight[k] is 2.5^k rounded up: the weight of a subquery at level k of a chain of
// subqueries in select lists.
var selectListWeight = [MaxSubqueryDepth + 1]int64{1, 3, 7, 16, 40, 98, 245, 611, 1526, 3815, 9537, 23842, 59605, 149012, 372529, 931323, 2328307}

// maxTrackedDepth is the parenthesis depth up to which levels are told apart; deeper levels
// share the deepest one, whose operator counts then only grow, so nesting never hides an
// operator, and a subquery that deep is refused (MaxSubqueryDepth).
const maxTrackedDepth = 63

// TooComplexError says which limit an expression exceeds and where.
type TooComplexError struct {
	What   string // "arithmetic operators" or "operators"
	Limit  int
	Offset int // byte offset of the operator that exceeded the limit
}

func (e *TooComplexError) Error() string {
	return fmt.Sprintf("expression too complex: more than %d %s in one expression (at byte %d); split it, or compute it in the application", e.Limit, e.What, e.Offset)
}

// TooManyCTEReferencesError says that the common table expressions of a statement expand to
// more than MaxCTEExpansion.
type TooManyCTEReferencesError struct {
	Offset int // byte offset of the reference that exceeded the limit
}

func (e *TooManyCTEReferencesError) Error() string {
	return fmt.Sprintf("common table expressions too big: the engine plans a CTE again at each reference, and the references of this statement's CTEs, "+
		"through the CTEs they name, add up to more than %d bytes of SQL (at byte %d). Refer to each CTE fewer times, or keep intermediate results in a temporary table", MaxCTEExpansion, e.Offset)
}

// TooManyViewReferencesError says that the views a statement names, through the views they
// name, expand to more than MaxViewExpansion bytes of SQL.
type TooManyViewReferencesError struct {
	Bytes int64 // the view definitions parsed so far for the statement
}

func (e *TooManyViewReferencesError) Error() string {
	return fmt.Sprintf("views too big: the engine plans a view's query again at each reference, and the views this statement names, "+
		"through the views they name, add up to more than %d bytes of SQL (%d so far). Refer to each view fewer times, or keep intermediate results in a table", MaxViewExpansion, e.Bytes)
}

// TooManyClausesError says that an ALTER statement has more than MaxAlterClauses clauses.
type TooManyClausesError struct {
	Offset int // byte offset of the comma that exceeded the limit
}

func (e *TooManyClausesError) Error() string {
	return fmt.Sprintf("ALTER statement too long: more than %d clauses (at byte %d); the engine's planning of each clause grows with the ones before it. Split it into several statements", MaxAlterClauses, e.Offset)
}

// TooDeepError says that subqueries nest too deep: more than MaxSubqueryDepth levels, or, in
// select lists, over MaxSelectListCost. It is MySQL's ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT.
type TooDeepError struct {
	SelectLists bool // over MaxSelectListCost, rather than MaxSubqueryDepth
	Offset      int  // byte offset of the subquery that exceeded the limit
}

func (e *TooDeepError) Error() string {
	if e.SelectLists {
		return fmt.Sprintf("Too high level of nesting for select: the subqueries in select lists that nest in subqueries in select lists are too long or too deep (at byte %d): "+
			"planning them costs 2.5 times more with each level. Move the inner ones into FROM (a derived table) or a join", e.Offset)
	}
	return fmt.Sprintf("Too high level of nesting for select: subqueries nest more than %d deep (at byte %d); planning them costs more with each level. Join, or use derived tables", MaxSubqueryDepth, e.Offset)
}

// level is what the check knows of one parenthesis level, or of the statement itself (level 0).
type level struct {
	counts
	// query: the level is a query's own (the statement's, or a subquery's): its SELECT opens a
	// select list and its FROM, WHERE, ... close it. Another level (a function's arguments, a
	// parenthesized expression) keeps what the query around it was in when it opened.
	query      bool
	selectList bool
	subqueries int // subqueries the level is in, its own included
	chain      int // its level in a chain of subqueries in select lists (see MaxSelectListCost)
	open       int // byte offset of its parenthesis
	// cteBody is 1 + the index in ctes.defined of the CTE whose body the level is, else 0.
	cteBody int
	// expanded is the weight of the CTE references read at the level (see MaxCTEExpansion).
	expanded int64
}

// cteState follows the definitions of common table expressions: WITH [RECURSIVE] name
// [(columns)] AS (body) [, name ...]. It allocates only for a statement that defines one.
type cteState struct {
	step    cteStep
	depth   int   // the parenthesis depth of the WITH
	name    token // the name being defined
	defined []cte
	byName  map[uint64]int // hash of a lower-case name → 1 + index of its last definition
}

type cteStep uint8

const (
	cteNone      cteStep = iota
	cteName              // after WITH [RECURSIVE] or a definition's comma: a name may follow
	cteAfterName         // after the name: a column list or AS
	cteColumns           // inside the column list
	cteAs                // after the column list: AS
	cteBodyNext          // after AS: the body's parenthesis
	cteAfterBody         // after the body: a comma for another definition
)

type cte struct {
	name   token
	weight int64 // 0 until the body is read: the body's references to its own name are recursion
	prev   int   // 1 + index of an earlier definition whose name has the same hash
}

// nameHash hashes the identifier of t in lower case (FNV-1a).
func nameHash(sql string, t token) (uint64, bool) {
	name, ok := t.name(sql)
	if !ok {
		return 0, false
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h, true
}

// weightOf returns the weight of the CTE that t names, 0 if it names none.
func (c *cteState) weightOf(sql string, t token) int64 {
	if len(c.defined) == 0 {
		return 0
	}
	h, ok := nameHash(sql, t)
	if !ok {
		return 0
	}
	name, _ := t.name(sql)
	for i := c.byName[h]; i > 0; i = c.defined[i-1].prev {
		// A CTE whose body is still being read is skipped: a reference to its name in its own
		// body is recursion, or names an outer CTE of the same name.
		d := c.defined[i-1]
		if other, _ := d.name.name(sql); d.weight > 0 && strings.EqualFold(other, name) {
			return d.weight
		}
	}
	return 0
}

// follow moves the reading of CTE definitions past t, read at parenthesis depth, and reports
// whether t may be a reference to a CTE (it is not the name being defined).
func (c *cteState) follow(sql string, t token, depth int) bool {
	reference := true
	switch c.step {
	case cteName:
		c.step = cteNone
		if t.is(sql, "recursive") {
			c.step = cteName
		} else if _, ok := t.name(sql); ok {
			c.name, c.step, reference = t, cteAfterName, false
		}
	case cteAfterName:
		switch {
		case t.isPunct(sql, '('):
			c.step = cteColumns
		case t.is(sql, "as"):
			c.step = cteBodyNext
		default:
			c.step = cteNone
		}
	case cteColumns:
		if t.isPunct(sql, ')') && depth == c.depth+1 {
			c.step = cteAs
		}
	case cteAs:
		c.step = cteNone
		if t.is(sql, "as") {
			c.step = cteBodyNext
		}
	case cteBodyNext:
		if !t.isPunct(sql, '(') {
			c.step = cteNone
		}
	case cteAfterBody:
		c.step = cteNone
		if t.isPunct(sql, ',') && depth == c.depth {
			c.step = cteName
		}
	}
	if t.is(sql, "with") {
		c.step, c.depth = cteName, depth
	}
	return reference
}

// reset forgets the CTEs of a statement, at the ';' that ends it.
func (c *cteState) reset() {
	c.step = cteNone
	c.defined = c.defined[:0]
	clear(c.byName)
}

// define records the name of a CTE whose body opens and returns 1 + its index.
func (c *cteState) define(sql string, name token) int {
	h, _ := nameHash(sql, name)
	if c.byName == nil {
		c.byName = map[uint64]int{}
	}
	c.defined = append(c.defined, cte{name: name, prev: c.byName[h]})
	c.byName[h] = len(c.defined)
	return len(c.defined)
}

// counts are the operators counted at one parenthesis level since its last comma.
type counts struct{ arithmetic, all int32 }

// CheckExpressionSize returns a *TooComplexError when an expression of sql exceeds
// MaxArithmeticOperators or MaxOperators, a *TooDeepError when its subqueries nest deeper than
// MaxSubqueryDepth or cost more than MaxSelectListCost, a *TooManyCTEReferencesError when its
// common table expressions expand to more than MaxCTEExpansion (beyond the statement's own
// length), nil otherwise. It reads the text once, SQL in version comments included, with the
// same tokenizer as the rest of the package, and allocates only for a statement that defines a
// common table expression.
func CheckExpressionSize(sql string) error {
	var levels [maxTrackedDepth + 1]level
	levels[0].query = true
	depth := 0
	var selectListCost int64
	var ctes cteState
	maxExpansion := MaxCTEExpansion + int64(len(sql))
	versionCommentEnd := -1
	lx := lexer{sql: sql}
	var prev token
	alter, alterClauses := false, 0 // the statement is ALTER ...: its clauses so far
	for {
		t := lx.nextSignificant()
		if t.kind == kindEnd {
			return nil
		}
		// The engine's parser reads the SQL inside /*!NNNNN ... */ as part of the statement;
		// so does the check, once (a nested one ends at the same */).
		if t.kind == kindVersionComment {
			lx.pos = scanDigits(sql, t.start+len("/*!"))
			if t.end-lx.pos >= 2 && sql[t.end-2:t.end] == "*/" {
				versionCommentEnd = t.end - 2
			}
			continue
		}
		if t.start == versionCommentEnd {
			lx.pos, versionCommentEnd = t.start+2, -1
			continue
		}
		if depth == 0 && (prev.kind == kindEnd || prev.isPunct(sql, ';')) && t.is(sql, "alter") {
			alter = true
		}
		cur := &levels[min(depth, maxTrackedDepth)]
		reference := true
		if ctes.step != cteNone || t.kind == kindWord && t.end-t.start == len("with") {
			reference = ctes.follow(sql, t, depth)
		}
		if reference && len(ctes.defined) > 0 {
			if w := ctes.weightOf(sql, t); w > 0 && !prev.isPunct(sql, '.') && lx.peek(t.end) != '.' {
				if cur.expanded += w; cur.expanded > maxExpansion {
					return &TooManyCTEReferencesError{Offset: t.start}
				}
			}
		}
		switch op := operatorAt(&lx, prev, t); {
		case t.isPunct(sql, '('):
			outer := *cur
			depth++
			next := lx.peekSignificant()
			subquery := next.is(sql, "select") || next.is(sql, "with")
			if depth > maxTrackedDepth {
				if subquery {
					return &TooDeepError{Offset: t.start}
				}
				break
			}
			in := level{selectList: outer.selectList, subqueries: outer.subqueries, chain: outer.chain, open: t.start}
			if ctes.step == cteBodyNext {
				in.cteBody, ctes.step = ctes.define(sql, ctes.name), cteNone
			}
			if subquery {
				in.query, in.selectList = true, false
				in.subqueries++
				if in.subqueries > MaxSubqueryDepth {
					return &TooDeepError{Offset: t.start}
				}
				in.chain = 0
				if outer.selectList {
					in.chain = outer.chain + 1
				}
			}
			levels[depth] = in
		case t.isPunct(sql, ')'):
			switch {
			case depth > maxTrackedDepth:
				depth--
			case depth > 0:
				inner := levels[depth]
				depth--
				levels[depth].arithmetic += inner.arithmetic
				levels[depth].all += inner.all
				if inner.cteBody > 0 {
					ctes.defined[inner.cteBody-1].weight = int64(t.end-inner.open+cteOverhead) + inner.expanded
					ctes.step, ctes.depth = cteAfterBody, depth
				} else if levels[depth].expanded += inner.expanded; levels[depth].expanded > maxExpansion {
					return &TooManyCTEReferencesError{Offset: t.start}
				}
				if inner.query && inner.chain > 0 {
					selectListCost += selectListWeight[inner.chain] * int64(t.end-inner.open+selectListOverhead)
					if selectListCost > MaxSelectListCost {
						return &TooDeepError{SelectLists: true, Offset: inner.open}
					}
				}
			}
		case t.isPunct(sql, ','):
			cur.counts = counts{}
			if alter && depth == 0 {
				if alterClauses++; alterClauses >= MaxAlterClauses {
					return &TooManyClausesError{Offset: t.start}
				}
			}
		case t.isPunct(sql, ';'):
			alter, alterClauses = false, 0
			depth = 0
			levels[0] = level{query: true}
			selectListCost = 0
			ctes.reset()
		case op == opArithmetic:
			cur.arithmetic++
			cur.all++
		case op == opOther:
			cur.arithmetic = 0
			cur.all++
		case op == opUnary:
			cur.all++
		case cur.query && t.kind == kindWord:
			if t.is(sql, "select") {
				cur.selectList = true
			} else if isAnyWord(sql, t, selectListEnds) {
				cur.selectList = false
			}
		}
		if c := levels[min(depth, maxTrackedDepth)]; c.arithmetic > MaxArithmeticOperators {
			return &TooComplexError{What: "arithmetic operators", Limit: MaxArithmeticOperators, Offset: t.start}
		} else if c.all > MaxOperators {
			return &TooComplexError{What: "operators", Limit: MaxOperators, Offset: t.start}
		}
		prev = t
	}
}

// selectListEnds are the words that end a select list at its query's level.
var selectListEnds = []string{"from", "where", "group", "having", "window", "order", "limit", "into", "for", "lock", "union", "except", "intersect"}

type operator uint8

const (
	opNone       operator = iota
	opArithmetic          // ends in an arithmetic node of the engine
	opOther               // a comparison or a logical operator
	opUnary               // NOT, !, BINARY, a sign, ~, IS, CASE
)

// operatorAt classifies t, read after prev, as an operator. Operators of two bytes
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
		case t.is(sql, "not"), t.is(sql, "binary"), t.is(sql, "case"), t.is(sql, "is"):
			return opUnary
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
		return opUnary
	case '+':
		if endsOperand(sql, prev) {
			return opArithmetic
		}
		return opUnary
	case '*', '/', '%', '^':
		if endsOperand(sql, prev) {
			return opArithmetic
		}
	case '~':
		return opUnary
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
		return opUnary
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
