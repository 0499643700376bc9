package keys

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

const pairs = 20000

func TestIntegerOrder(t *testing.T) {
	cases := []struct {
		typ      sql.Type
		min, max int64
	}{
		{types.Int8, math.MinInt8, math.MaxInt8},
		{types.Boolean, math.MinInt8, math.MaxInt8},
		{types.Int16, math.MinInt16, math.MaxInt16},
		{types.Int24, -1 << 23, 1<<23 - 1},
		{types.Int32, math.MinInt32, math.MaxInt32},
		{types.Int64, math.MinInt64, math.MaxInt64},
	}
	for i, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			rng := newRand(int64(i))
			raw := []int64{c.min, c.min + 1, -1, 0, 1, c.max - 1, c.max}
			for k := 0; k < 2000; k++ {
				raw = append(raw, c.min+int64(rng.Uint64()%uint64(c.max-c.min)))
				raw = append(raw, int64(rng.Intn(21)-10))
			}
			var values []any
			for _, r := range raw {
				v, ok := convert(c.typ, r)
				if !ok {
					t.Fatalf("Convert(%d) failed", r)
				}
				values = append(values, v)
			}
			checkOrder(t, c.typ, values, rng, pairs)
		})
	}
}

func TestUnsignedOrder(t *testing.T) {
	cases := []struct {
		typ sql.Type
		max uint64
	}{
		{types.Uint8, math.MaxUint8},
		{types.Uint16, math.MaxUint16},
		{types.Uint24, 1<<24 - 1},
		{types.Uint32, math.MaxUint32},
		{types.Uint64, math.MaxUint64},
		{types.MustCreateBitType(1), 1},
		{types.MustCreateBitType(10), 1<<10 - 1},
		{types.MustCreateBitType(64), math.MaxUint64},
	}
	for i, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			rng := newRand(100 + int64(i))
			raw := []uint64{0, 1, c.max - 1, c.max}
			for k := 0; k < 2000; k++ {
				if c.max == math.MaxUint64 {
					raw = append(raw, rng.Uint64())
				} else {
					raw = append(raw, rng.Uint64()%(c.max+1))
				}
				raw = append(raw, min(uint64(rng.Intn(10)), c.max))
			}
			var values []any
			for _, r := range raw {
				v, ok := convert(c.typ, r)
				if !ok {
					t.Fatalf("Convert(%d) failed", r)
				}
				values = append(values, v)
			}
			checkOrder(t, c.typ, values, rng, pairs)
		})
	}
}

func TestFloatOrder(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		math.MaxFloat64, -math.MaxFloat64, 1, -1, 0.1, -0.1, 1e-300, -1e-300, 1e300, -1e300,
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 2.2250738585072014e-308, 1.5, 1.5000000000000002}
	for i, typ := range []sql.Type{types.Float64, types.Float32} {
		t.Run(typ.String(), func(t *testing.T) {
			rng := newRand(200 + int64(i))
			var raw []float64
			raw = append(raw, specials...)
			for k := 0; k < 3000; k++ {
				f := math.Float64frombits(rng.Uint64())
				if math.IsNaN(f) || math.IsInf(f, 0) {
					continue
				}
				raw = append(raw, f, float64(rng.Intn(7)-3)/2)
				raw = append(raw, rng.NormFloat64()*math.Pow(10, float64(rng.Intn(40)-20)))
			}
			var values []any
			for _, r := range raw {
				v, ok := convert(typ, r)
				if !ok {
					t.Fatalf("Convert(%v) failed", r)
				}
				values = append(values, v)
			}
			checkOrder(t, typ, values, rng, pairs)
		})
	}
}

func TestNegativeZeroIsPositiveZero(t *testing.T) {
	neg := math.Copysign(0, -1)
	for _, c := range []struct {
		typ      sql.Type
		neg, pos any
	}{
		{types.Float64, neg, 0.0},
		{types.Float32, float32(neg), float32(0)},
	} {
		a, b := mustAppend(t, c.typ, c.neg), mustAppend(t, c.typ, c.pos)
		if string(a) != string(b) {
			t.Errorf("%s: -0 keyed %x, +0 keyed %x", c.typ, a, b)
		}
		if Decodable(c.typ) {
			t.Errorf("%s: Decodable, but -0 decodes as +0", c.typ)
		}
	}
	d := types.MustCreateColumnDecimalType(5, 2)
	negZero, _, _ := apd.NewFromString("-0.00")
	if a, b := mustAppend(t, d, negZero), mustAppend(t, d, apd.New(0, -2)); string(a) != string(b) {
		t.Errorf("DECIMAL -0.00 keyed %x, 0.00 keyed %x", a, b)
	}
}

func TestFloatsOutOfOrderAreRefused(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), math.Inf(-1), float32(math.Inf(1))} {
		_, err := Append(nil, types.Float64, v)
		wantSQLError(t, fmt.Sprint(v), err, 1264, "22003")
	}
}

// decimalString is a random decimal text with at most p digits, s of them after the point.
func decimalString(rng *rand.Rand, p, s int) string {
	intDigits := p - s
	var b strings.Builder
	if rng.Intn(2) == 0 {
		b.WriteByte('-')
	}
	n := rng.Intn(intDigits + 1)
	if n == 0 {
		b.WriteByte('0')
	}
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + rng.Intn(10)))
	}
	if s > 0 {
		b.WriteByte('.')
		f := rng.Intn(s + 1)
		if f == 0 {
			f = 1
		}
		for i := 0; i < f; i++ {
			b.WriteByte(byte('0' + rng.Intn(10)))
		}
	}
	return b.String()
}

func TestDecimalOrder(t *testing.T) {
	for i, ps := range [][2]int{{1, 0}, {1, 1}, {5, 2}, {10, 0}, {18, 9}, {19, 0}, {20, 0}, {38, 10}, {65, 0}, {65, 30}} {
		p, s := ps[0], ps[1]
		typ := types.MustCreateColumnDecimalType(uint8(p), uint8(s))
		t.Run(typ.String(), func(t *testing.T) {
			rng := newRand(300 + int64(i))
			nines := strings.Repeat("9", p-s)
			if s > 0 {
				nines += "." + strings.Repeat("9", s)
			}
			ulp := "1"
			if s > 0 {
				ulp = "0." + strings.Repeat("0", s-1) + "1"
			}
			raw := []string{"0", "-0", nines, "-" + nines, ulp, "-" + ulp}
			if p-s > 0 {
				raw = append(raw, "1", "-1")
			}
			if p-s > 1 {
				raw = append(raw, "10", "-10")
			}
			for k := 0; k < 3000; k++ {
				raw = append(raw, decimalString(rng, p, s))
			}
			var values []any
			for _, r := range raw {
				v, ok := convert(typ, r)
				if !ok {
					t.Fatalf("Convert(%q) failed", r)
				}
				values = append(values, v)
			}
			checkOrder(t, typ, values, rng, pairs)
		})
	}
}

// A DECIMAL value with more fraction digits than the scale is keyed as the engine's Compare
// sees it: rounded to the scale. Other exponents of the same value key the same.
func TestDecimalForms(t *testing.T) {
	typ := types.MustCreateColumnDecimalType(10, 2)
	for _, c := range []struct{ a, b string }{
		{"1.5", "1.50"}, {"1.005", "1.01"}, {"-1.005", "-1.01"}, {"1.004", "1.00"}, {"1E+2", "100.00"}, {"0.000", "0"},
	} {
		a, _, _ := apd.NewFromString(c.a)
		b, _, _ := apd.NewFromString(c.b)
		if cmp := engineCompare(t, typ, a, b); cmp != 0 {
			t.Fatalf("the engine orders %s and %s as %d; the test's premise is wrong", c.a, c.b, cmp)
		}
		if ka, kb := mustAppend(t, typ, a), mustAppend(t, typ, b); string(ka) != string(kb) {
			t.Errorf("%s keyed %x, %s keyed %x", c.a, ka, c.b, kb)
		}
	}
	got, _, err := Decode(mustAppend(t, typ, apd.New(15, -1)), typ)
	if err != nil || got.(*apd.Decimal).String() != "1.50" {
		t.Errorf("1.5 in DECIMAL(10,2) decodes as %v, %v; want 1.50", got, err)
	}
	for _, v := range []*apd.Decimal{{Form: apd.NaN}, {Form: apd.Infinite}, apd.New(1, 100000)} {
		_, err := Append(nil, typ, v)
		wantSQLError(t, v.String(), err, 1264, "22003")
	}
}

func TestTemporalOrder(t *testing.T) {
	minDate := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	maxDate := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
	minTS := time.Unix(1, 0).UnixMicro()
	maxTS := time.Unix(math.MaxInt32, 999999000).UnixMicro()
	cases := []struct {
		typ    sql.Type
		lo, hi int64
	}{
		{types.Date, minDate, maxDate},
		{types.Datetime, minDate, maxDate},
		{types.Datetime3, minDate, maxDate},
		{types.DatetimeMaxPrecision, minDate, maxDate},
		{types.MustCreateDatetimeType(sqltypes.Timestamp, 6), minTS, maxTS},
		{types.Timestamp, minTS, maxTS},
	}
	for i, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			rng := newRand(400 + int64(i))
			raw := []time.Time{time.UnixMicro(c.lo), time.UnixMicro(c.hi), time.UnixMicro(c.lo + 1), time.Unix(86400, 0)}
			if c.typ.Type() != sqltypes.Timestamp {
				raw = append(raw, types.ZeroTime)
			}
			for k := 0; k < 2000; k++ {
				us := c.lo + rng.Int63n(c.hi-c.lo)
				raw = append(raw, time.UnixMicro(us), time.UnixMicro(us-us%86400000000))
			}
			var values []any
			for _, r := range raw {
				v, ok := convert(c.typ, r)
				if !ok {
					continue
				}
				values = append(values, v)
			}
			if len(values) < 1000 {
				t.Fatalf("only %d of %d values converted", len(values), len(raw))
			}
			checkOrder(t, c.typ, values, rng, pairs)
		})
	}
	t.Run("TIME", func(t *testing.T) {
		rng := newRand(450)
		const lim = 3020399000000 // 838:59:59
		values := []any{types.Timespan(-lim), types.Timespan(lim), types.Timespan(0), types.Timespan(-1), types.Timespan(1)}
		for k := 0; k < 3000; k++ {
			values = append(values, types.Timespan(rng.Int63n(2*lim+1)-lim))
		}
		checkOrder(t, types.Time, values, rng, pairs)
	})
	t.Run("YEAR", func(t *testing.T) {
		rng := newRand(460)
		var values []any
		for _, y := range []int{0, 1901, 1970, 1999, 2000, 2069, 2155} {
			v, ok := convert(types.Year, y)
			if !ok {
				t.Fatalf("Convert(%d) failed", y)
			}
			values = append(values, v)
		}
		for k := 0; k < 500; k++ {
			v, _ := convert(types.Year, 1901+rng.Intn(255))
			values = append(values, v)
		}
		checkOrder(t, types.Year, values, rng, pairs)
	})
	t.Run("sub-microsecond", func(t *testing.T) {
		_, err := Append(nil, types.DatetimeMaxPrecision, time.Unix(0, 1))
		wantSQLError(t, "1 ns", err, 1105, "HY000")
	})
}

func TestEnumSetOrder(t *testing.T) {
	rng := newRand(500)
	enum := types.MustCreateEnumType([]string{"zebra", "apple", "Mango", "", "b"}, sql.Collation_utf8mb4_0900_ai_ci)
	var values []any
	for _, s := range []any{"zebra", "apple", "Mango", "", "b", 1, 5} {
		v, ok := convert(enum, s)
		if !ok {
			t.Fatalf("enum Convert(%v) failed", s)
		}
		values = append(values, v)
	}
	checkOrder(t, enum, values, rng, pairs)

	set := types.MustCreateSetType([]string{"a", "b", "c", "d", "e", "f", "g", "h"}, sql.Collation_utf8mb4_0900_ai_ci)
	values = nil
	for k := 0; k < 256; k++ {
		v, ok := convert(set, uint64(k))
		if !ok {
			t.Fatalf("set Convert(%d) failed", k)
		}
		values = append(values, v)
	}
	v, _ := convert(set, "a,c")
	values = append(values, v)
	checkOrder(t, set, values, rng, pairs)
}

// Append takes any Go integer that fits, because the key is the number, not its width; a
// wrong Go type or a negative value for an unsigned column is an error, never a wrong key.
func TestIntegerGoTypes(t *testing.T) {
	if a, b := mustAppend(t, types.Int32, int32(-5)), mustAppend(t, types.Int32, int64(-5)); string(a) != string(b) {
		t.Errorf("int32 and int64 -5 key differently: %x %x", a, b)
	}
	if a, b := mustAppend(t, types.Int8, int8(7)), mustAppend(t, types.Int64, int64(7)); string(a) != string(b) {
		t.Errorf("TINYINT and BIGINT 7 key differently: %x %x", a, b)
	}
	for _, c := range []struct {
		typ sql.Type
		v   any
	}{
		{types.Uint32, int32(-1)},
		{types.Int64, uint64(math.MaxUint64)},
		{types.Int32, "5"},
		{types.Float64, int64(1)},
		{types.MustCreateColumnDecimalType(5, 2), 1.5},
		{types.Datetime, "2020-01-01"},
		{types.Time, time.Now()},
		{types.Text, 5},
	} {
		_, err := Append(nil, c.typ, c.v)
		wantSQLError(t, fmt.Sprintf("%s %T", c.typ, c.v), err, 1105, "HY000")
	}
}
