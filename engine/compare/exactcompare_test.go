package compare

import (
	"math"
	"testing"

	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

func TestExactDecimalLiterals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"select * from t where d > 1.499", "select * from t where d > CAST(1.499 as decimal(5, 3))"},
		{"select * from t where 1.5 = d", "select * from t where CAST(1.5 as decimal(3, 1)) = d"},
		{"select * from t where d = 0.001", "select * from t where d = CAST(0.001 as decimal(5, 3))"},
		{"select * from t where d > 1.5e0", "select * from t where d > 1.5e0"},
		{"select * from t where d > 15", "select * from t where d > 15"},
		{"select 1.499 from t", "select 1.499 from t"},
		{"explain select * from t where d = 1.25", "explain select * from t where d = CAST(1.25 as decimal(4, 2))"},
		{"delete from t where d = 1.499", "delete from t where d = CAST(1.499 as decimal(5, 3))"},
	} {
		stmt, err := ast.Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := ast.String(ExactDecimalLiterals(stmt)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestHolds(t *testing.T) {
	d := func(s string) decimal.Decimal { return trimZeros(decimal.RequireFromString(s)) }
	dec82 := types.MustCreateDecimalType(8, 2)
	for _, c := range []struct {
		name string
		typ  interface{ String() string }
		v    string
		want bool
	}{
		{"tinyint 127", types.Int8, "127", true},
		{"tinyint 128", types.Int8, "128", false},
		{"tinyint -128", types.Int8, "-128", true},
		{"tinyint 5.5", types.Int8, "5.5", false},
		{"tinyint 5.0", types.Int8, "5.0", true},
		{"unsigned -1", types.Uint64, "-1", false},
		{"unsigned max", types.Uint64, "18446744073709551615", true},
		{"unsigned max+1", types.Uint64, "18446744073709551616", false},
		{"decimal(8,2) 1.49", dec82, "1.49", true},
		{"decimal(8,2) 1.490", dec82, "1.490", true},
		{"decimal(8,2) 1.499", dec82, "1.499", false},
		{"decimal(8,2) 999999.99", dec82, "999999.99", true},
		{"decimal(8,2) 1000000", dec82, "1000000", false},
		{"decimal(8,2) 0", dec82, "0", true},
	} {
		var ok bool
		switch typ := c.typ.(type) {
		case types.NumberTypeImpl_:
			ok = holds(typ, d(c.v))
		case types.DecimalType_:
			ok = holds(typ, d(c.v))
		}
		if ok != c.want {
			t.Errorf("%s: holds = %v, want %v", c.name, ok, c.want)
		}
	}
}

// TestExactDecimalLiteralsInInsert: the rows of INSERT ... VALUES are walked only where they are
// not literals, the rest of the statement as any other.
func TestExactDecimalLiteralsInInsert(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"insert into t values (1, 1.499), (2, 2.5)", "insert into t values (1, 1.499), (2, 2.5)"},
		{"insert into t values (1, (select max(d) from u where d < 1.499))",
			"insert into t values (1, (select max(d) from u where d < CAST(1.499 as decimal(5, 3))))"},
		{"insert into t values (1, 1.5) as n on duplicate key update d = if(d > 1.499, n.d, 0)",
			"insert into t values (1, 1.5) AS n on duplicate key update d = if(d > CAST(1.499 as decimal(5, 3)), n.d, 0)"},
		{"insert into t select * from u where d = 1.499",
			"insert into t select * from u where d = CAST(1.499 as decimal(5, 3))"},
	} {
		stmt, err := ast.Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := ast.String(ExactDecimalLiterals(stmt)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestNumericPrefix(t *testing.T) {
	for _, tc := range []struct {
		text  string
		value float64
		whole bool
	}{
		{"1", 1, true},
		{" 1 ", 1, true},
		{"-1.5", -1.5, true},
		{".5", 0.5, true},
		{"1.", 1, true},
		{"2.5e1", 25, true},
		{"1x", 1, false},
		{"2.5e1zz", 25, false},
		{"2.5e", 2.5, false},
		{"2.5e+", 2.5, false},
		{"abc", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{".", 0, false},
		{"0x10", 0, false},
		{"inf", 0, false},
		{"1e999", math.Inf(1), false},
		{"+7 apples", 7, false},
	} {
		if v, whole := numericPrefix(tc.text); v != tc.value || whole != tc.whole {
			t.Errorf("numericPrefix(%q) = %v, %v; want %v, %v", tc.text, v, whole, tc.value, tc.whole)
		}
	}
}
