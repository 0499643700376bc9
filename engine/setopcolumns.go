package engine

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a repeated column of a nested
// set operation's first SELECT is aliased apart (else wrong rows).
// Test: TestUnionRepeatingAColumn fails without it.
//
// distinctSetOpColumns gives each repetition of a column in such a SELECT an alias of its own
// name (a, a AS a); walkSetOp calls it for the top of each chain it walks.
func distinctSetOpColumns(op *ast.SetOp) {
	if op == nil {
		return
	}
	kind := setOpKind(op.Type)
	for _, side := range []ast.SelectStatement{op.Left, op.Right} {
		inner, ok := unparen(side).(*ast.SetOp)
		if !ok || inner == nil {
			continue
		}
		aliasRepeatedColumns(firstSelect(inner))
		if direct, ok := side.(*ast.SetOp); ok && kind != "" && chainable(direct, kind) {
			distinctSetOpColumns(inner)
		}
	}
}

// unparen returns s without the parentheses around it.
func unparen(s ast.SelectStatement) ast.SelectStatement {
	for {
		p, ok := s.(*ast.ParenSelect)
		if !ok || p == nil {
			return s
		}
		s = p.Select
	}
}

// firstSelect returns the SELECT whose columns name those of the set operation s, or nil.
func firstSelect(s ast.SelectStatement) *ast.Select {
	for {
		switch n := unparen(s).(type) {
		case *ast.SetOp:
			if n == nil {
				return nil
			}
			s = n.Left
		case *ast.Select:
			return n
		default:
			return nil
		}
	}
}

// aliasRepeatedColumns gives the columns of sel's list that may name a column an earlier one
// names (the same name, or any column beside a *) an alias of their own name.
func aliasRepeatedColumns(sel *ast.Select) {
	if sel == nil {
		return
	}
	star := false
	for _, e := range sel.SelectExprs {
		if _, ok := e.(*ast.StarExpr); ok {
			star = true
		}
	}
	seen := map[string]bool{}
	for _, e := range sel.SelectExprs {
		a, ok := e.(*ast.AliasedExpr)
		if !ok || !a.As.IsEmpty() {
			continue
		}
		col, ok := a.Expr.(*ast.ColName)
		if !ok {
			continue
		}
		name := strings.ToLower(col.Name.String())
		if star || seen[name] {
			a.As = ast.NewColIdent(col.Name.String())
		}
		seen[name] = true
	}
}
