package rowcodec

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// boundaryValues are values at the edges of each kind the engine hands the storage.
func boundaryValues() []any {
	dec, _, _ := apd.NewFromString("-99999999999999999999.000000001")
	return []any{
		int8(math.MinInt8), int8(math.MaxInt8), int16(math.MinInt16), int32(math.MaxInt32),
		int64(math.MinInt64), int64(math.MaxInt64), int(-1), uint8(255), uint16(65535),
		uint32(math.MaxUint32), uint64(math.MaxUint64), float32(math.Copysign(0, -1)), math.Copysign(0, -1),
		math.Inf(1), math.SmallestNonzeroFloat64, true, false, "", "\x00", "trailing  ", "Ω≠é",
		[]byte{}, []byte{0, 255}, time.Date(1000, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC), types.Timespan(-838 * 3600 * 1000000),
		dec,
	}
}

// TestRowsRoundTrip: a row decodes to the same values, each of the same Go type, NULLs stay
// NULL, a projection decodes only what it asks for, and a schema that dropped or added columns
// reads the old rows (seeded random rows of the boundary values).
func TestRowsRoundTrip(t *testing.T) {
	ctx := context.Background()
	values := boundaryValues()
	rng := rand.New(rand.NewPCG(7, 11))
	for n := range 500 {
		width := 1 + rng.IntN(8)
		tags := make([]uint32, width)
		row := make(sql.Row, width)
		for i := range tags {
			tags[i] = uint32(width - i) // descending: the codec orders by tag, not position
			if rng.IntN(5) > 0 {
				row[i] = values[rng.IntN(len(values))]
			}
		}
		c := New(tags)
		enc, err := c.Encode(ctx, nil, row)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := c.Encode(ctx, nil, row)
		if string(again) != string(enc) {
			t.Fatalf("row %d: two encodings of one row differ", n)
		}
		got := make(sql.Row, width)
		if err := c.Decode(enc, got, nil); err != nil {
			t.Fatalf("row %d: %v", n, err)
		}
		for i := range row {
			if !sameValue(row[i], got[i]) {
				t.Fatalf("row %d column %d: %#v (%T) decoded as %#v (%T)", n, i, row[i], row[i], got[i], got[i])
			}
		}
		// a projection of the first column only
		want := make([]bool, width)
		want[0] = true
		part := make(sql.Row, width)
		if err := c.Decode(enc, part, want); err != nil {
			t.Fatal(err)
		}
		if !sameValue(part[0], row[0]) || (width > 1 && part[1] != nil) {
			t.Fatalf("row %d: projection decoded %#v", n, part)
		}
		// a later schema without the last column and with a new one (tag 100)
		if width > 1 {
			next := New(append(append([]uint32(nil), tags[:width-1]...), 100))
			later := make(sql.Row, width)
			if err := next.Decode(enc, later, nil); err != nil {
				t.Fatal(err)
			}
			if later[width-1] != nil || !sameValue(later[0], row[0]) {
				t.Fatalf("row %d under the later schema: %#v", n, later)
			}
		}
	}
}

func sameValue(a, b any) bool {
	if da, ok := a.(*apd.Decimal); ok {
		db, ok := b.(*apd.Decimal)
		return ok && da.Cmp(db) == 0
	}
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && math.Float64bits(fa) == math.Float64bits(fb)
	}
	if fa, ok := a.(float32); ok {
		fb, ok := b.(float32)
		return ok && math.Float32bits(fa) == math.Float32bits(fb)
	}
	if ta, ok := a.(time.Time); ok {
		tb, ok := b.(time.Time)
		return ok && ta.Equal(tb)
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.DeepEqual(a, b)
}

func TestCorruptRowsAreErrors(t *testing.T) {
	c := New([]uint32{1})
	for _, src := range [][]byte{nil, {9}, {version, 0x80}, {version, 1, kString, 5, 'a'}, {version, 1, 250}} {
		if err := c.Decode(src, make(sql.Row, 1), nil); err == nil {
			t.Errorf("Decode(%v) gave no error", src)
		}
	}
}
