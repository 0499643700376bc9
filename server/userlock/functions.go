package userlock

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Charge counts size bytes for a lock named key that the session of ctx holds against the
// session's memory account; size 0 gives them back. It refuses with the account's error when
// they do not fit.
type Charge func(ctx *sql.Context, key string, size int64) error

// heldOverhead is what a held lock keeps besides its name, in bytes: its entries in the
// table's maps and the lock itself.
const heldOverhead = 160

// heldSize is what a held lock named key is charged.
func heldSize(key string) int64 { return heldOverhead + int64(len(key)) }

// maxTimeout bounds GET_LOCK's timeout (a year, in seconds); the statement's own time limit,
// KILL QUERY and the client's leaving end a wait before that.
const maxTimeout = 365 * 24 * 3600

// function is one of the locking functions: its name, argument count and result type.
type function struct {
	name  string
	args  int
	typ   sql.Type
	about string
}

var functions = []function{
	{"get_lock", 2, types.Int8, "takes the named lock, waiting up to timeout seconds: 1, or 0 when the time ran out"},
	{"release_lock", 1, types.Int8, "releases the named lock: 1, 0 when another session holds it, NULL when none does"},
	{"release_all_locks", 0, types.Int32, "releases every named lock the session holds; returns how many GET_LOCKs it undid"},
	{"is_free_lock", 1, types.Int8, "whether the named lock is free: 1 or 0"},
	{"is_used_lock", 1, types.Uint32, "the connection id of the session holding the named lock, NULL when free"},
}

// Functions are the engine functions over t, charging held locks with charge (nil: nothing is
// counted), to be asked before the engine's own functions of the same names.
func (t *Table) Functions(charge Charge) []sql.Function {
	out := make([]sql.Function, 0, len(functions))
	for _, f := range functions {
		out = append(out, sql.FunctionN{Name: f.name, Fn: func(_ *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			if len(args) != f.args {
				return nil, sql.ErrInvalidArgumentNumber.New(strings.ToUpper(f.name), f.args, len(args))
			}
			return &call{function: f, args: args, table: t, charge: charge}, nil
		}})
	}
	return out
}

// call is a locking function applied to its arguments.
type call struct {
	function
	args   []sql.Expression
	table  *Table
	charge Charge
}

var (
	_ sql.FunctionExpression         = (*call)(nil)
	_ sql.NonDeterministicExpression = (*call)(nil)
	_ sql.CollationCoercible         = (*call)(nil)
)

func (c *call) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	session := ctx.Session.ID()
	if c.name == "release_all_locks" {
		undone, keys := c.table.ReleaseAll(session)
		for _, key := range keys {
			c.uncharge(ctx, key)
		}
		return int32(undone), nil
	}
	name, ok, err := c.lockName(ctx, row)
	if err != nil || !ok {
		return nil, err
	}
	switch c.name {
	case "get_lock":
		timeout, err := c.timeout(ctx, row)
		if err != nil {
			return nil, err
		}
		acquired, first, err := c.table.Get(session, name, timeout, ctx.Done(), ctx.Err)
		if err != nil || !acquired {
			return int8(0), err
		}
		if first && c.charge != nil {
			if err := c.charge(ctx, Key(name), heldSize(Key(name))); err != nil {
				c.table.Release(session, name)
				return nil, err
			}
		}
		return int8(1), nil
	case "release_lock":
		released, exists, freed := c.table.Release(session, name)
		if freed {
			c.uncharge(ctx, Key(name))
		}
		switch {
		case released:
			return int8(1), nil
		case exists:
			return int8(0), nil
		}
		return nil, nil
	case "is_free_lock":
		if c.table.Owner(name) == 0 {
			return int8(1), nil
		}
		return int8(0), nil
	case "is_used_lock":
		if owner := c.table.Owner(name); owner != 0 {
			return owner, nil
		}
		return nil, nil
	}
	return nil, fmt.Errorf("userlock: unknown function %s", c.name)
}

// uncharge gives back what a lock named key was charged.
func (c *call) uncharge(ctx *sql.Context, key string) {
	if c.charge != nil {
		_ = c.charge(ctx, key, 0)
	}
}

// lockName is the first argument as a lock name; ok is false for NULL (the function returns
// NULL). An empty name and one over MaxName characters are error 3057.
func (c *call) lockName(ctx *sql.Context, row sql.Row) (name string, ok bool, err error) {
	v, err := c.args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return "", false, err
	}
	name, err = types.ConvertToString(ctx, v, types.LongText, nil)
	if err != nil {
		return "", false, err
	}
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return "", false, mysqlerr.New(mysqlerr.ERUserLockWrongName, "Incorrect user-level lock name '': a lock name is not empty")
	case n > MaxName:
		return "", false, mysqlerr.New(mysqlerr.ERUserLockWrongName,
			"Incorrect user-level lock name '%s': a lock name has at most %d characters, this one has %d",
			mysqlerr.Clipped(name, mysqlerr.QuotedLockName), MaxName, n)
	}
	return name, true, nil
}

// timeout is GET_LOCK's second argument in seconds (fractions kept): NULL is 0, a negative
// value waits without end (-1), and at most maxTimeout.
func (c *call) timeout(ctx *sql.Context, row sql.Row) (time.Duration, error) {
	v, err := c.args[1].Eval(ctx, row)
	if err != nil || v == nil {
		return 0, err
	}
	f, _, err := types.Float64.Convert(ctx, v)
	if err != nil {
		return 0, fmt.Errorf("GET_LOCK: timeout %v is not a number: %w", v, err)
	}
	seconds := f.(float64)
	switch {
	case math.IsNaN(seconds):
		return 0, nil
	case seconds < 0:
		return -1, nil
	}
	return time.Duration(min(seconds, maxTimeout) * float64(time.Second)), nil
}

func (c *call) FunctionName() string       { return c.name }
func (c *call) Description() string        { return c.about }
func (c *call) IsNonDeterministic() bool   { return true }
func (c *call) Resolved() bool             { return expressionsResolved(c.args) }
func (c *call) Children() []sql.Expression { return c.args }
func (c *call) Type(*sql.Context) sql.Type { return c.typ }

// IsNullable: every function of a lock name is NULL for a NULL name.
func (c *call) IsNullable(*sql.Context) bool { return len(c.args) > 0 }

func (c *call) String() string {
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", c.name, strings.Join(parts, ", "))
}

func (c *call) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(c.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), len(c.args))
	}
	return &call{function: c.function, args: children, table: c.table, charge: c.charge}, nil
}

func (c *call) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func expressionsResolved(es []sql.Expression) bool {
	for _, e := range es {
		if !e.Resolved() {
			return false
		}
	}
	return true
}
