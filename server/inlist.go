package server

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Long IN lists. The engine's planner turns `a IN (...)` on an indexed column into one range per
// value and merges them, in time that grows with the square of the list, and `a NOT IN (...)`
// into ranges it splits at every value, faster still: deaf to KILL QUERY and to the client
// leaving. `SELECT ... WHERE a IN (0, 1, ..., 39999)` (230 KB) planned for 31 s, `NOT IN` of
// 20 000 values for 111 s, on a table of two rows. unindexedInLists, an analyzer rule that runs
// before the engine's, hides an IN list of more than maxIndexedInList values from the index
// planner: the statement reads the table and tests each row against the list (hashed, when its
// values are constants), as MySQL does past range_optimizer_max_mem_size. The in-memory
// engine's index lookups read every row anyway (docs/compatibility.md, Known limitations).

// maxIndexedInList is the longest IN list the engine plans as index ranges: 1.2 ms for IN,
// 18 ms for NOT IN.
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
