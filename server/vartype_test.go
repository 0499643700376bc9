package server

import (
	"context"
	"math"
	"testing"

	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// A negative number for an unsigned setting is refused with MySQL's 1231: the engine's unsigned
// type wraps -5 around to 18446744073709551611, which the settings would then refuse with a
// message about a float.
func TestCheckedVariableTypeRefusesNegatives(t *testing.T) {
	unsigned := checkedVariableType{SystemVariableType: types.NewSystemUintType("max_queued_statements", 0, math.MaxUint64),
		name: "max_queued_statements", accepts: "a whole number >= 0", unsigned: true}
	double := checkedVariableType{SystemVariableType: types.NewSystemDoubleType("simulated_os_cpu_overload", -1, math.MaxFloat64),
		name: "simulated_os_cpu_overload", accepts: "a number >= 0, or -1 for off"}
	for _, c := range []struct {
		typ  checkedVariableType
		v    any
		fail bool
	}{
		{unsigned, int64(-5), true},
		{unsigned, int8(-1), true},
		{unsigned, -0.5, true},
		{unsigned, decimal.NewFromFloat(-2.5), true},
		{unsigned, int64(7), false},
		{unsigned, uint64(7), false},
		{double, int64(-1), false},
		{double, -1.0, false},
	} {
		_, _, err := c.typ.Convert(context.Background(), c.v)
		if !c.fail {
			if err != nil {
				t.Errorf("%s = %v: %v, want accepted", c.typ.name, c.v, err)
			}
			continue
		}
		se, ok := err.(*mysql.SQLError)
		if !ok || se.Num != mysql.ERWrongValueForVar {
			t.Errorf("%s = %v: %v, want error 1231", c.typ.name, c.v, err)
		}
	}
}
