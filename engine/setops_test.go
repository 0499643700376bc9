package engine

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// parseRewritten parses query with the engine's parser, then applies Rewrite.
func parseRewritten(query string) (ast.Statement, error) {
	stmt, err := sql.NewMysqlParser().ParseSimple(query)
	if err != nil {
		return nil, err
	}
	return Rewrite(stmt), nil
}

func TestSetOpChainsAreBalanced(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		{"select 1 union all select 2", "(1 union all 2)"},
		{"select 1 union all select 2 union all select 3 union all select 4 union all select 5",
			"((1 union all 2) union all (3 union all (4 union all 5)))"},
		{"select 1 union select 2 union distinct select 3 union select 4 order by 1 limit 2",
			"((1 union 2) union (3 union 4))"},
		// Another operation ends a chain: UNION after UNION ALL removes the duplicates of
		// everything before it, so the UNION ALLs stay inside.
		{"select 1 union all select 2 union all select 3 union select 4",
			"((1 union all (2 union all 3)) union 4)"},
		{"select 1 except select 2 except select 3 except select 4",
			"(((1 except 2) except 3) except 4)"},
		{"select 1 intersect select 2 intersect select 3 intersect select 4",
			"((1 intersect 2) intersect (3 intersect 4))"},
		// A parenthesized part with its own LIMIT is one operand.
		{"(select 1 union all select 2 limit 1) union all select 3 union all select 4",
			"((1 union all 2) union all (3 union all 4))"},
		// Chains inside subqueries, derived tables, CTEs, INSERT ... SELECT and CREATE ... AS.
		{"select (select 1 union all select 2 union all select 3 union all select 4 limit 1)",
			"((1 union all 2) union all (3 union all 4))"},
		{"select * from (select 1 union all select 2 union all select 3 union all select 4) d",
			"((1 union all 2) union all (3 union all 4))"},
		{"with c as (select 1 union all select 2 union all select 3 union all select 4) select * from c",
			"((1 union all 2) union all (3 union all 4))"},
		{"insert into t select 1 union all select 2 union all select 3 union all select 4",
			"((1 union all 2) union all (3 union all 4))"},
		{"create table u as select 1 union all select 2 union all select 3 union all select 4",
			"((1 union all 2) union all (3 union all 4))"},
		// The top of a recursive CTE stays as written: its right side is the recursive part.
		{"with recursive r (n) as (select 1 union all select 2 union all select 3 union all select n + 1 from r where n < 9) select * from r",
			"(((1 union all 2) union all 3) union all n + 1)"},
	} {
		stmt, err := parseRewritten(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got := setOpShape(firstSetOp(stmt)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.query, got, c.want)
		}
	}
}

// setOpShape prints the tree of a set operation, each SELECT as its select list.
func setOpShape(s ast.SelectStatement) string {
	switch s := s.(type) {
	case *ast.SetOp:
		return "(" + setOpShape(s.Left) + " " + s.Type + " " + setOpShape(s.Right) + ")"
	case *ast.ParenSelect:
		return setOpShape(s.Select)
	case *ast.Select:
		return ast.String(s.SelectExprs)
	}
	return "?"
}

// firstSetOp finds the first set operation of stmt, in CTEs and CREATE ... AS too.
func firstSetOp(stmt ast.Statement) ast.SelectStatement {
	var found ast.SelectStatement
	var visit ast.Visit
	visit = func(node ast.SQLNode) (bool, error) {
		if found != nil {
			return false, nil
		}
		switch n := node.(type) {
		case *ast.SetOp:
			found = n
			return false, nil
		case *ast.With:
			if n == nil {
				break
			}
			for _, cte := range n.Ctes {
				_ = ast.Walk(visit, cte.Expr)
			}
		case *ast.DDL:
			if n != nil && n.OptSelect != nil {
				_ = ast.Walk(visit, n.OptSelect.Select)
			}
		}
		return true, nil
	}
	_ = ast.Walk(visit, stmt)
	return found
}

// TestLongSetOpChainIsShallow: a chain of 10000 UNIONs becomes a tree 14 levels deep.
func TestLongSetOpChainIsShallow(t *testing.T) {
	stmt, err := parseRewritten(strings.Repeat("select 1 union all ", 9999) + "select 1")
	if err != nil {
		t.Fatal(err)
	}
	var depth func(s ast.SelectStatement) int
	depth = func(s ast.SelectStatement) int {
		if op, ok := s.(*ast.SetOp); ok {
			return 1 + max(depth(op.Left), depth(op.Right))
		}
		return 0
	}
	if d := depth(stmt.(ast.SelectStatement)); d != 14 {
		t.Errorf("depth %d, want 14", d)
	}
}

// TestRepeatedColumnsOfNestedSetOps: in the first SELECT of a set operation inside another, a
// column named again gets an alias of its own name; other SELECTs stay as written.
func TestRepeatedColumnsOfNestedSetOps(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		{"select a, a from t union select a, a from t", "(a a union a a)"},
		{"select a, a from t union select a, b from t union select a, a from t", "(a a union (a b union a a))"},
		{"select a, a from t union select a, a from t union select a, A from t", "(a a union (a a=a union a A))"},
		{"(select a, a from t union select a, a from t) except select t.a, a from t", "((a a=a union a a) except t.a a)"},
		{"select *, a, b from t union all select *, a from t union all select 1, 2, 3", "(* a b union all (* a=a union all 1 2 3))"},
		{"select a, a x, a + 0, a from t union all select a, a from t union all select 1, 2", "(a a=x a + 0 a union all (a a=a union all 1 2))"},
	} {
		stmt, err := parseRewritten(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got := aliasShape(firstSetOp(stmt)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.query, got, c.want)
		}
	}
}

// aliasShape prints the tree of a set operation, each column of a SELECT as its expression and
// its alias (=alias) if it has one.
func aliasShape(s ast.SelectStatement) string {
	switch s := s.(type) {
	case *ast.SetOp:
		return "(" + aliasShape(s.Left) + " " + s.Type + " " + aliasShape(s.Right) + ")"
	case *ast.ParenSelect:
		return aliasShape(s.Select)
	case *ast.Select:
		var cols []string
		for _, e := range s.SelectExprs {
			col := ast.String(e)
			if a, ok := e.(*ast.AliasedExpr); ok {
				col = ast.String(a.Expr)
				if !a.As.IsEmpty() {
					col += "=" + a.As.String()
				}
			}
			cols = append(cols, col)
		}
		return strings.Join(cols, " ")
	}
	return "?"
}
