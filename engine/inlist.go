package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): an IN list longer than
// maxIndexedInList is not planned as index ranges (quadratic planning).
// Test: TestLongInListsAreAnsweredPromptly fails without it.

// maxIndexedInList is the longest IN list the engine plans as index ranges.
const maxIndexedInList = 256

var unindexedInLists = planRule(func(_ *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	in, ok := e.(*expression.InTuple)
	if !ok {
		return e, transform.SameTree, nil
	}
	if list, ok := in.Right().(expression.Tuple); !ok || len(list) <= maxIndexedInList {
		return e, transform.SameTree, nil
	}
	return unindexedList{in}, transform.NewTree, nil
}, func(_ *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return n, transform.SameTree, nil
})

// unindexedList is an IN list that the engine's index planner does not read: it knows only its
// own expression types. The list is its only child, so the engine's other rules still see it
// (and hash it).
type unindexedList struct {
	in sql.Expression
}

var (
	_ sql.Expression         = unindexedList{}
	_ sql.CollationCoercible = unindexedList{}
)

func (u unindexedList) Eval(ctx *sql.Context, row sql.Row) (any, error) { return u.in.Eval(ctx, row) }
func (u unindexedList) Resolved() bool                                  { return u.in.Resolved() }
func (u unindexedList) String() string                                  { return u.in.String() }
func (u unindexedList) Type(ctx *sql.Context) sql.Type                  { return u.in.Type(ctx) }
func (u unindexedList) IsNullable(ctx *sql.Context) bool                { return u.in.IsNullable(ctx) }
func (u unindexedList) Children() []sql.Expression                      { return []sql.Expression{u.in} }

func (u unindexedList) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 1)
	}
	return unindexedList{children[0]}, nil
}

func (u unindexedList) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, u.in)
}
