package server

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// ruleFunc is an analyzer rule's function.
type ruleFunc = func(*sql.Context, *analyzer.Analyzer, sql.Node, *plan.Scope, analyzer.RuleSelector, *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error)

// nodeRule is an analyzer rule that applies f to each node of a plan, bottom-up, the plans of
// its subqueries included (the engine's walks of a plan do not enter those).
func nodeRule(f func(*sql.Context, sql.Node) (sql.Node, transform.TreeIdentity, error)) ruleFunc {
	var rule ruleFunc
	rule = func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		inner := func(q sql.Node) (sql.Node, transform.TreeIdentity, error) { return rule(ctx, a, q, scope, sel, qFlags) }
		return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
			n, sameSub, err := transform.OneNodeExpressions(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
					if sub, ok := e.(*plan.Subquery); ok {
						return inSubquery(sub, inner)
					}
					return e, transform.SameTree, nil
				})
			})
			if err != nil {
				return nil, transform.SameTree, err
			}
			out, same, err := f(ctx, n)
			return out, same && sameSub, err
		})
	}
	return rule
}

// expressionRule is an analyzer rule that applies f to each expression of a plan, bottom-up,
// those of its subqueries' plans included.
func expressionRule(f func(*sql.Context, sql.Expression) (sql.Expression, transform.TreeIdentity, error)) ruleFunc {
	var rule ruleFunc
	rule = func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		inner := func(q sql.Node) (sql.Node, transform.TreeIdentity, error) { return rule(ctx, a, q, scope, sel, qFlags) }
		return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				if sub, ok := e.(*plan.Subquery); ok {
					return inSubquery(sub, inner)
				}
				return f(ctx, e)
			})
		})
	}
	return rule
}

// inSubquery applies rule to the plan of a subquery expression.
func inSubquery(sub *plan.Subquery, rule func(sql.Node) (sql.Node, transform.TreeIdentity, error)) (sql.Expression, transform.TreeIdentity, error) {
	q, same, err := rule(sub.Query)
	if same || err != nil {
		return sub, transform.SameTree, err
	}
	return sub.WithQuery(q), transform.NewTree, nil
}
