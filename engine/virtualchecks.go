package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): the CHECK constraints of a
// table with a VIRTUAL column hold like those of any table: INSERT, REPLACE, LOAD DATA and UPDATE
// refuse a row that violates one (3819), SHOW CREATE TABLE shows them, ALTER TABLE ... DROP CHECK
// drops them, DROP COLUMN and RENAME COLUMN see them. (The engine wraps such a table in a
// plan.VirtualColumnTable, which hides the table's sql.CheckTable: the planner loads no checks,
// so the violating row is stored and SHOW CREATE TABLE leaves the checks out, although the
// storage keeps them; dolthub/dolt#7868.) CREATE TABLE ... LIKE such a table still copies no checks:
// the engine's plan of it keeps no trace of the source table.
// Test: TestColumnExpressions/VirtualColumnChecks fails without it.
//
// virtualTableChecks adds the checks the planner left out to each node that holds checks: it
// builds them against the node's table (each table an UPDATE with joins changes) as the planner
// does for a table without VIRTUAL columns. A check the node already holds is not added again, so
// the rule may run more than once.
func virtualTableChecks(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		cn, ok := n.(sql.CheckConstraintNode)
		if !ok {
			return n, transform.SameTree, nil
		}
		var targets []checkTarget
		forShow := false
		switch m := n.(type) {
		case *plan.InsertInto:
			targets = tableTargets(m.Destination, nil, 1)
		case *plan.Update:
			if m.IsJoin {
				targets = tableTargets(m.Child, plan.GetTablesToBeUpdated(ctx, m.Child), -1)
			} else {
				targets = tableTargets(m.Child, nil, 1)
			}
		case *plan.ShowCreateTable:
			targets, forShow = tableTargets(m.Child, nil, 1), true
		case *plan.DropColumn:
			targets = tableTargets(m.Table, nil, 1)
		case *plan.RenameColumn:
			targets = tableTargets(m.Table, nil, 1)
		}
		// A check is known by its name and its expression: two tables of a join may have checks
		// of the same name.
		key := func(c *sql.CheckConstraint) string { return strings.ToLower(c.Name) + "\x00" + c.Expr.String() }
		have := map[string]bool{}
		for _, c := range cn.Checks() {
			have[key(c)] = true
		}
		checks := cn.Checks()
		added := false
		for _, target := range targets {
			loaded, err := virtualColumnTableChecks(ctx, a, target)
			if err != nil {
				return nil, transform.SameTree, err
			}
			for _, c := range loaded {
				if forShow {
					c.Expr, _, err = transform.Expr(ctx, c.Expr, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
						if gf, ok := e.(*expression.GetField); ok {
							return expression.NewUnresolvedColumn("`" + gf.Name() + "`"), transform.NewTree, nil
						}
						return e, transform.SameTree, nil
					})
					if err != nil {
						return nil, transform.SameTree, err
					}
				}
				if have[key(c)] {
					continue // added by an earlier run of the rule
				}
				checks = append(slices.Clip(checks), c)
				added = true
			}
		}
		if !added {
			return n, transform.SameTree, nil
		}
		return cn.WithChecks(checks), transform.NewTree, nil
	})
}

// checkTarget is a table whose checks a node applies: the resolved table and the name and
// column ids under which the statement reads it (its alias's, if it has one).
type checkTarget struct {
	rt   *plan.ResolvedTable
	name string
	cols sql.ColSet
}

// tableTargets returns the tables under n, at most limit of them (all when limit < 0), in the
// order of the plan, only those whose names (or aliases, in lower case) are in only when only is
// not nil.
func tableTargets(n sql.Node, only map[string]struct{}, limit int) []checkTarget {
	if n == nil {
		return nil
	}
	var out []checkTarget
	add := func(t checkTarget) {
		if only != nil {
			if _, ok := only[strings.ToLower(t.name)]; !ok {
				return
			}
		}
		if limit < 0 || len(out) < limit {
			out = append(out, t)
		}
	}
	transform.Inspect(n, func(n sql.Node) bool {
		if limit >= 0 && len(out) >= limit {
			return false
		}
		switch t := n.(type) {
		case *plan.TableAlias:
			if rt, ok := t.Child.(*plan.ResolvedTable); ok {
				add(checkTarget{rt: rt, name: t.Name(), cols: t.Columns()})
				return false
			}
		case *plan.ResolvedTable:
			add(checkTarget{rt: t, name: t.Name(), cols: t.Columns()})
			return false
		}
		return true
	})
	return out
}

// virtualColumnTable is the table rt wraps in a plan.VirtualColumnTable, as the sql.CheckTable
// the wrapper hides; nil when rt has no VIRTUAL columns or its table keeps no checks.
func virtualColumnTable(rt *plan.ResolvedTable) sql.CheckTable {
	vct, ok := rt.Table.(*plan.VirtualColumnTable)
	if !ok {
		return nil
	}
	for t := vct.Underlying(); t != nil; {
		if ct, ok := t.(sql.CheckTable); ok {
			return ct
		}
		tw, ok := t.(sql.TableWrapper)
		if !ok {
			return nil
		}
		t = tw.Underlying()
	}
	return nil
}

// virtualColumnTableChecks builds the checks of the target's table when the engine's
// VirtualColumnTable hides them, nil otherwise. Each check's column references are those of the
// target: its column ids and its name, so the engine places them in the rows it checks as it
// places the checks it builds itself.
func virtualColumnTableChecks(ctx *sql.Context, a *analyzer.Analyzer, target checkTarget) (sql.CheckConstraints, error) {
	rt := target.rt
	ct := virtualColumnTable(rt)
	if ct == nil {
		return nil, nil
	}
	defs, err := ct.GetChecks(ctx)
	if err != nil || len(defs) == 0 {
		return nil, err
	}
	ids := map[string]sql.ColumnId{}
	cols := target.cols
	id, _ := cols.Next(1)
	for _, c := range rt.Schema(ctx) {
		if id == 0 {
			break
		}
		ids[strings.ToLower(c.Name)] = id
		id, _ = cols.Next(id + 1)
	}
	parser := sql.DefaultMySQLParser
	if p := a.Catalog.Overrides().Builder.Parser; p != nil {
		parser = p
	}
	dbName := ""
	if rt.SqlDatabase != nil {
		dbName = rt.SqlDatabase.Name()
	}
	from := &ast.AliasedTableExpr{Expr: ast.TableName{
		Name:        ast.NewTableIdent(rt.Name()),
		DbQualifier: ast.NewTableIdent(dbName),
	}}
	checks := make(sql.CheckConstraints, 0, len(defs))
	for _, def := range defs {
		expr, err := buildCheckExpression(ctx, a, parser, from, def.CheckExpression)
		if err != nil {
			return nil, fmt.Errorf("check constraint %s of table %s: %w", def.Name, rt.Name(), err)
		}
		expr, _, err = transform.Expr(ctx, expr, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			gf, ok := e.(*expression.GetField)
			if !ok {
				return e, transform.SameTree, nil
			}
			gf = gf.WithTable(target.name)
			if id, ok := ids[strings.ToLower(gf.Name())]; ok {
				return gf.WithId(id).(*expression.GetField), transform.NewTree, nil
			}
			return gf, transform.NewTree, nil
		})
		if err != nil {
			return nil, err
		}
		checks = append(checks, &sql.CheckConstraint{
			Name:       def.Name,
			Expr:       expr,
			Enforced:   def.Enforced,
			IsNotValid: def.IsNotValid,
		})
	}
	return checks, nil
}

// buildCheckExpression builds the check expression text against the table of from, with the
// parser of the statements (so the corrections of Rewrite apply as to any check), without the
// privilege checks of the statement (the statement has its own).
func buildCheckExpression(ctx *sql.Context, a *analyzer.Analyzer, parser sql.Parser, from ast.TableExpr, text string) (expr sql.Expression, err error) {
	stmt, err := parser.ParseSimple("select " + text)
	if err != nil {
		return nil, err
	}
	sel, ok := stmt.(*ast.Select)
	if !ok || len(sel.SelectExprs) != 1 {
		return nil, sql.ErrInvalidCheckConstraint.New(text)
	}
	ae, ok := sel.SelectExprs[0].(*ast.AliasedExpr)
	if !ok {
		return nil, sql.ErrInvalidCheckConstraint.New(text)
	}
	b := planbuilder.New(ctx, a.Catalog, nil)
	b.DisableAuth()
	// The builder reports its errors by panicking; they become this function's error.
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			expr, err = nil, e
		}
	}()
	return b.BuildScalarWithTable(ae.Expr, from), nil
}

// loadVirtualTableChecks wraps the engine's validateAlterTable: DROP COLUMN and RENAME COLUMN
// get the checks of a table with VIRTUAL columns (virtualTableChecks) before the engine
// validates them against its checks (3959: a column a check uses is not renamed).
func loadVirtualTableChecks(validate ruleFunc) ruleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		loaded, same, err := virtualTableChecks(ctx, a, n, scope, sel, qFlags)
		if err != nil {
			return nil, transform.SameTree, err
		}
		out, same2, err := validate(ctx, a, loaded, scope, sel, qFlags)
		return out, same && same2, err
	}
}

// dropChecksOfVirtualTables wraps the engine's resolveDropConstraint and validateDropConstraint:
// ALTER TABLE ... DROP CHECK and DROP CONSTRAINT find the checks of a table with VIRTUAL
// columns (the engine looks for them on the VirtualColumnTable and fails with 1105 "the table
// does not support check constraint operations").
func dropChecksOfVirtualTables(resolve ruleFunc) ruleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		unwrapped, same, err := transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
			switch m := n.(type) {
			case *plan.DropConstraint:
				rt, ok := m.Child.(*plan.ResolvedTable)
				if !ok {
					return n, transform.SameTree, nil
				}
				plain, err := withoutVirtualColumnTable(ctx, rt)
				if err != nil || plain == rt {
					return n, transform.SameTree, err
				}
				c, err := m.WithChildren(ctx, plain)
				return c, transform.NewTree, err
			case *plan.DropCheck:
				plain, err := withoutVirtualColumnTable(ctx, m.Table)
				if err != nil || plain == m.Table {
					return n, transform.SameTree, err
				}
				c := *m
				c.Table = plain
				return &c, transform.NewTree, nil
			}
			return n, transform.SameTree, nil
		})
		if err != nil {
			return nil, transform.SameTree, err
		}
		out, same2, err := resolve(ctx, a, unwrapped, scope, sel, qFlags)
		return out, same && same2, err
	}
}

// withoutVirtualColumnTable is rt over the table its VirtualColumnTable wraps when that table
// keeps checks, else rt.
func withoutVirtualColumnTable(ctx *sql.Context, rt *plan.ResolvedTable) (*plan.ResolvedTable, error) {
	if rt == nil || virtualColumnTable(rt) == nil {
		return rt, nil
	}
	plain, err := rt.ReplaceTable(ctx, rt.Table.(*plan.VirtualColumnTable).Underlying())
	if err != nil {
		return nil, fmt.Errorf("table %s without its virtual columns: %w", rt.Name(), err)
	}
	prt, ok := plain.(*plan.ResolvedTable)
	if !ok {
		return rt, nil
	}
	return prt, nil
}
