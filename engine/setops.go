package engine

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a UNION chain is planned as a
// balanced tree (a left-deep chain plans in cubic time, deaf to KILL).
// Test: TestLongUnionChainsAreAnsweredPromptly fails without it.

// balanceSetOps rebuilds each chain of one kind of set operation (UNION ALL, UNION [DISTINCT],
// INTERSECT ALL, INTERSECT [DISTINCT]) as a balanced tree of the same SELECTs in the same order.
// Each of those operations is associative, so the result is the same; the columns are still
// named by the first SELECT. A chain stops at another operation (UNION ALL after UNION, EXCEPT,
// which is not associative) and at a parenthesized part with its own ORDER BY or LIMIT; the
// top of a recursive common table expression is left as written (the engine reads its right
// side as the recursive part).
func balanceSetOps(stmt ast.Statement) ast.Statement {
	if stmt != nil {
		_ = ast.Walk(balanceVisit, stmt)
	}
	return stmt
}

// balanceVisit is the ast.Walk visitor of balanceSetOps. Walk does not look into the SELECT of
// CREATE TABLE ... AS, or a set operation's WITH, ORDER BY and LIMIT, so the visitor walks them
// itself, and common table expressions, to leave a recursive one's top as it is.
func balanceVisit(node ast.SQLNode) (bool, error) {
	switch n := node.(type) {
	case *ast.SetOp:
		if n != nil {
			walkSetOp(n, true)
			return false, nil
		}
	case *ast.With:
		if n == nil {
			break
		}
		for _, cte := range n.Ctes {
			sub, ok := cte.Expr.(*ast.Subquery)
			if !ok {
				continue
			}
			if top, ok := sub.Select.(*ast.SetOp); ok && n.Recursive {
				walkSetOp(top, false)
				continue
			}
			walkAll(sub)
		}
		return false, nil
	case *ast.DDL:
		if n != nil && n.OptSelect != nil {
			walkAll(n.OptSelect.Select)
		}
	}
	return true, nil
}

// walkSetOp balances the chain under top, if rebuild, and walks its operands and clauses.
func walkSetOp(top *ast.SetOp, rebuild bool) {
	kind := setOpKind(top.Type)
	var operands []ast.SelectStatement
	if kind == "" {
		operands = []ast.SelectStatement{top.Left, top.Right}
	} else {
		operands = chain(top.Left, kind, nil)
		operands = chain(top.Right, kind, operands)
	}
	if rebuild && len(operands) > 2 {
		mid := len(operands) / 2
		top.Left, top.Right = balancedTree(top.Type, operands[:mid]), balancedTree(top.Type, operands[mid:])
	}
	distinctSetOpColumns(top)
	for _, o := range operands {
		walkAll(o)
	}
	walkAll(top.With, top.OrderBy, top.Limit)
}

func walkAll(nodes ...ast.SQLNode) {
	for _, n := range nodes {
		_ = ast.Walk(balanceVisit, n)
	}
}

// chain appends to operands those of the chain of kind that s is part of, in order: the
// parser builds a chain to the left (SELECT ... UNION ALL SELECT ...), or to the right (in a
// common table expression).
func chain(s ast.SelectStatement, kind string, operands []ast.SelectStatement) []ast.SelectStatement {
	for {
		op, ok := s.(*ast.SetOp)
		if !ok || !chainable(op, kind) {
			return append(operands, s)
		}
		operands = chain(op.Left, kind, operands)
		s = op.Right
	}
}

func balancedTree(typ string, operands []ast.SelectStatement) ast.SelectStatement {
	if len(operands) == 1 {
		return operands[0]
	}
	mid := len(operands) / 2
	return &ast.SetOp{Type: typ, Left: balancedTree(typ, operands[:mid]), Right: balancedTree(typ, operands[mid:])}
}

// chainable reports whether op, a side of a set operation of kind, belongs to its chain: the
// same operation, without clauses of its own.
func chainable(op *ast.SetOp, kind string) bool {
	return setOpKind(op.Type) == kind && len(op.OrderBy) == 0 && op.Limit == nil && op.With == nil &&
		op.Into == nil && op.Lock == nil
}

// setOpKind names the associative set operations, UNION DISTINCT and UNION as one; "" for the
// others (EXCEPT).
func setOpKind(typ string) string {
	switch typ {
	case ast.UnionStr, ast.UnionDistinctStr:
		return ast.UnionStr
	case ast.UnionAllStr:
		return ast.UnionAllStr
	case ast.IntersectStr, ast.IntersectDistinctStr:
		return ast.IntersectStr
	case ast.IntersectAllStr:
		return ast.IntersectAllStr
	}
	return ""
}
