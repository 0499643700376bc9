package engine

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"slices"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): in strict mode, UPDATE of an
// integer column to a value out of its range fails with 1264.
// Test: TestUpdateOutOfRangeFails fails without it.
//
// rangeCheckedAssignments, part of the analyzer rule correctExecution (planwalk.go) that runs
// after the engine's, has each assignment of UPDATE and of INSERT ... ON DUPLICATE KEY UPDATE to
// an integer column check the value first (checkedValue), unless the statement has IGNORE or the
// session's sql_mode is not strict: there MySQL stores the nearest value with a warning, as the
// engine does (without the warning).

// rangeCheckedAssignments is n, an UPDATE's source of rows or an INSERT, with its assignments'
// values checked.
func rangeCheckedAssignments(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	switch n := n.(type) {
	case *plan.UpdateSource:
		if n.Ignore || !strictMode(ctx) {
			return n, transform.SameTree, nil
		}
		exprs, same := checkedAssignments(ctx, n.UpdateExprs.AllExpressions())
		if same {
			return n, transform.SameTree, nil
		}
		out, err := n.WithExpressions(ctx, exprs...)
		return out, transform.NewTree, err
	case *plan.InsertInto:
		if n.Ignore || !n.OnDupExprs.HasUpdates() || !strictMode(ctx) {
			return n, transform.SameTree, nil
		}
		exprs, same := checkedAssignments(ctx, n.OnDupExprs.AllExpressions())
		if same {
			return n, transform.SameTree, nil
		}
		out := *n
		dup, err := n.OnDupExprs.WithExpressions(exprs)
		if err != nil {
			return nil, transform.SameTree, err
		}
		out.OnDupExprs = dup
		return &out, transform.NewTree, nil
	}
	return n, transform.SameTree, nil
}

// strictMode reports whether the session's sql_mode is strict. It is read (and parsed) only for
// a statement that assigns.
func strictMode(ctx *sql.Context) bool {
	mode := sql.LoadSqlMode(ctx)
	return mode.ModeEnabled("STRICT_TRANS_TABLES") || mode.ModeEnabled("STRICT_ALL_TABLES")
}

// checkedAssignments is exprs with the value of each assignment to an integer column checked.
func checkedAssignments(ctx *sql.Context, exprs []sql.Expression) ([]sql.Expression, bool) {
	var out []sql.Expression // a copy of exprs, made at the first change
	for i, e := range exprs {
		set, ok := e.(*expression.SetField)
		if !ok {
			continue
		}
		column, ok := set.LeftChild.(*expression.GetField)
		if !ok || !types.IsInteger(column.Type(ctx)) {
			continue
		}
		switch set.RightChild.(type) {
		case checkedValue, *sql.ColumnDefaultValue: // SET c = DEFAULT: the engine looks for it
			continue
		}
		if out == nil {
			out = slices.Clone(exprs)
		}
		out[i] = expression.NewSetField(column, checkedValue{value: set.RightChild, column: column})
	}
	if out == nil {
		return exprs, true
	}
	return out, false
}

// checkedValue is a value assigned to column: it fails with 1264 when the column's type cannot
// hold it.
type checkedValue struct {
	value  sql.Expression
	column *expression.GetField
}

func (c checkedValue) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.value.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	if _, inRange, err := c.column.Type(ctx).Convert(ctx, v); err == nil && inRange != sql.InRange {
		return nil, mysqlerr.New(mysql.ERWarnDataOutOfRange, "Out of range value for column '%s'", c.column.Name())
	}
	return v, nil
}

func (c checkedValue) Resolved() bool                   { return c.value.Resolved() }
func (c checkedValue) String() string                   { return c.value.String() }
func (c checkedValue) Type(ctx *sql.Context) sql.Type   { return c.value.Type(ctx) }
func (c checkedValue) IsNullable(ctx *sql.Context) bool { return c.value.IsNullable(ctx) }
func (c checkedValue) Children() []sql.Expression       { return []sql.Expression{c.value} }

func (c checkedValue) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	return checkedValue{value: children[0], column: c.column}, nil
}
