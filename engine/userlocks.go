package engine

import (
	"fmt"
	"unicode/utf8"

	"overloadsql/mysqlerr"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a user-level lock name longer
// than maxLockName characters fails with 3057 (the engine takes a name of any length).
// Test: TestLockNamesAreBounded fails without it.
//
// User-level locks (GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK) take names of at most
// maxLockName characters, as in MySQL 8: a longer name is error 3057 (ER_USER_LOCK_WRONG_NAME,
// 42000), with the name quoted clipped, so that what a held lock keeps is bounded. NULL keeps the
// engine's answer (NULL).

// maxLockName is MySQL's bound on a lock name, in characters.
const maxLockName = 64

// lockFunctions are the engine's functions that take a lock name as their first argument.
var lockFunctions = map[string]bool{"get_lock": true, "release_lock": true, "is_free_lock": true, "is_used_lock": true}

// CheckLockNames makes the lock functions of e check their name: e's database provider (a
// BoundedProvider, asked before the built-ins) answers their names with the engine's own
// functions over e's lock subsystem, their first argument checked.
func CheckLockNames(e *sqle.Engine) {
	p, ok := e.Analyzer.Catalog.DbProvider.(BoundedProvider)
	if !ok {
		panic(fmt.Sprintf("engine: the engine's provider is a %T, not the BoundedProvider", e.Analyzer.Catalog.DbProvider))
	}
	for _, f := range function.GetLockingFuncs(sql.NewEmptyContext(), e.LS) {
		name := f.FunctionName()
		if !lockFunctions[name] {
			continue
		}
		p.functions[name] = sql.FunctionN{Name: name, Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			if len(args) > 0 {
				args = append([]sql.Expression{&lockName{value: args[0]}}, args[1:]...)
			}
			return f.NewInstance(ctx, args)
		}}
	}
}

// lockName is a lock function's name argument, checked before the engine uses it.
type lockName struct {
	value sql.Expression
}

var _ sql.Expression = (*lockName)(nil)

func (l *lockName) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := l.value.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return v, nil // a number: the engine converts it to a short name
	}
	if n := utf8.RuneCountInString(s); n > maxLockName {
		return nil, mysqlerr.New(mysqlerr.ERUserLockWrongName,
			"Incorrect user-level lock name '%s': a lock name has at most %d characters, this one has %d",
			mysqlerr.Clipped(s, mysqlerr.QuotedLockName), maxLockName, n)
	}
	return v, nil
}

func (l *lockName) Resolved() bool                   { return l.value.Resolved() }
func (l *lockName) String() string                   { return l.value.String() }
func (l *lockName) Type(ctx *sql.Context) sql.Type   { return l.value.Type(ctx) }
func (l *lockName) IsNullable(ctx *sql.Context) bool { return l.value.IsNullable(ctx) }
func (l *lockName) Children() []sql.Expression       { return []sql.Expression{l.value} }

func (l *lockName) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(l, len(children), 1)
	}
	return &lockName{value: children[0]}, nil
}

func (l *lockName) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	if c, ok := l.value.(sql.CollationCoercible); ok {
		return c.CollationCoercibility(ctx)
	}
	return sql.Collation_binary, 5
}
