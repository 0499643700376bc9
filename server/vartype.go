package server

import (
	"context"
	"fmt"

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
}

func (t checkedVariableType) Convert(ctx context.Context, v any) (any, sql.ConvertInRange, error) {
	out, inRange, err := t.SystemVariableType.Convert(ctx, v)
	if err != nil {
		return nil, inRange, mysql.NewSQLError(mysql.ERWrongValueForVar, "42000",
			"Variable '%s' can't be set to the value of '%s': it must be %s", t.name, shown(v), t.accepts)
	}
	return out, inRange, nil
}

func shown(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}
