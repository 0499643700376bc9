package server

import (
	"context"
	"fmt"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// checkedVariableType is a system-variable type whose conversion errors are MySQL's
// ER_WRONG_VALUE_FOR_VAR (1231, 42000) with what the variable accepts, instead of the engine's
// generic 1105.
type checkedVariableType struct {
	sql.SystemVariableType
	name    string
	accepts string // e.g. "a number >= 0"
	// unsigned is set for the types that hold no negative value.
	unsigned bool
}

// negative reports whether v is a number below zero.
func negative(v any) bool {
	switch n := v.(type) {
	case int8:
		return n < 0
	case int16:
		return n < 0
	case int32:
		return n < 0
	case int64:
		return n < 0
	case int:
		return n < 0
	case float32:
		return n < 0
	case float64:
		return n < 0
	case interface{ Sign() int }:
		return n.Sign() < 0
	}
	return false
}

func (t checkedVariableType) Convert(ctx context.Context, v any) (any, sql.ConvertInRange, error) {
	out, inRange, err := t.SystemVariableType.Convert(ctx, v)
	if err == nil && t.unsigned && negative(v) {
		// The engine's unsigned type wraps a negative number around instead of refusing it.
		err = fmt.Errorf("negative value for an unsigned variable")
	}
	if err != nil {
		return nil, inRange, mysqlerr.New(mysql.ERWrongValueForVar,
			"Variable '%s' can't be set to the value of '%s': it must be %s", t.name, mysqlerr.Clipped(shown(v), mysqlerr.QuotedValue), t.accepts)
	}
	return out, inRange, nil
}

func shown(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}
