package keys

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// seed is fixed so that a failure reproduces; each test derives its own stream from it.
const seed = 20260819

func newRand(salt int64) *rand.Rand { return rand.New(rand.NewSource(seed + salt)) }

var ctx = sql.NewEmptyContext()

// engineCompare is the engine's order with NULL first: t.Compare itself ranks NULL last.
func engineCompare(tb testing.TB, t sql.Type, a, b any) int {
	tb.Helper()
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	c, err := t.Compare(ctx, a, b)
	if err != nil {
		tb.Fatalf("%s: engine Compare(%#v, %#v): %v", t, a, b, err)
	}
	return sign(c)
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

func mustAppend(tb testing.TB, t sql.Type, v any) []byte {
	tb.Helper()
	k, err := Append(nil, t, v)
	if err != nil {
		tb.Fatalf("%s: Append(%#v): %v", t, v, err)
	}
	return k
}

// convert returns v as the engine holds it for t, and false when t refuses it.
func convert(t sql.Type, v any) (any, bool) {
	c, _, err := t.Convert(ctx, v)
	if err != nil {
		return nil, false
	}
	return c, true
}

// checkOrder holds the key order against the engine's comparison: over all pairs when
// the values are few, else over that many random pairs and all neighbours in key order; then round trips and Skip per value.
func checkOrder(tb testing.TB, t sql.Type, values []any, rng *rand.Rand, pairs int) {
	tb.Helper()
	values = append([]any{nil}, values...)
	enc := make([][]byte, len(values))
	for i, v := range values {
		enc[i] = mustAppend(tb, t, v)
	}
	failures := 0
	check := func(i, j int) {
		want := engineCompare(tb, t, values[i], values[j])
		got := sign(bytes.Compare(enc[i], enc[j]))
		if got != want && failures < 10 {
			failures++
			tb.Errorf("%s: keys order %#v vs %#v as %d, the engine as %d (keys %x, %x)",
				t, values[i], values[j], got, want, enc[i], enc[j])
		}
	}
	n := len(values)
	if n*n <= pairs {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				check(i, j)
			}
		}
	} else {
		for k := 0; k < pairs; k++ {
			check(rng.Intn(n), rng.Intn(n))
		}
		// Neighbours in key order are where an order bug shows first.
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		sortByKey(idx, enc)
		for i := 1; i < n; i++ {
			check(idx[i-1], idx[i])
		}
	}
	for i, v := range values {
		checkValue(tb, t, v, enc[i])
	}
}

func sortByKey(idx []int, enc [][]byte) {
	sort.Slice(idx, func(a, b int) bool { return bytes.Compare(enc[idx[a]], enc[idx[b]]) < 0 })
}

// checkValue checks Skip, Decode and truncation on one encoded value.
func checkValue(tb testing.TB, t sql.Type, v any, k []byte) {
	tb.Helper()
	tail := []byte{0x07, 0x00, 0xFF}
	withTail := append(append([]byte(nil), k...), tail...)
	rest, err := Skip(withTail, t)
	if err != nil || !bytes.Equal(rest, tail) {
		tb.Errorf("%s: Skip(Append(%#v)+tail) = %x, %v; want the tail", t, v, rest, err)
	}
	for cut := 0; cut < len(k); cut++ {
		if _, err := Skip(k[:cut], t); err == nil {
			tb.Errorf("%s: Skip of %d of the %d key bytes of %#v succeeded", t, cut, len(k), v)
			break
		}
	}
	ti, _ := typeOf(t)
	if ti.kind == kindString && !ti.coll.raw && v != nil {
		if _, _, err := Decode(withTail, t); err == nil {
			tb.Errorf("%s: Decode of a weight string succeeded", t)
		}
		return
	}
	got, rest, err := Decode(withTail, t)
	if err != nil || !bytes.Equal(rest, tail) {
		tb.Errorf("%s: Decode(Append(%#v)+tail) rest %x, %v", t, v, rest, err)
		return
	}
	if v == nil {
		if got != nil {
			tb.Errorf("%s: NULL decodes as %#v", t, got)
		}
		return
	}
	if reflect.TypeOf(got) != reflect.TypeOf(v) {
		tb.Errorf("%s: %#v decodes as Go %T, want %T", t, v, got, v)
		return
	}
	if c := engineCompare(tb, t, v, got); c != 0 {
		tb.Errorf("%s: %#v decodes as %#v, which the engine does not compare equal", t, v, got)
	}
	if Decodable(t) && !identical(v, got) {
		tb.Errorf("%s: %#v decodes as %#v", t, v, got)
	}
	again := mustAppend(tb, t, got)
	if !bytes.Equal(again, k) {
		tb.Errorf("%s: %#v re-encodes after decoding as %x, was %x", t, v, again, k)
	}
}

// identical is equality of the Go value; DECIMAL by value and exponent.
func identical(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		return bytes.Equal(x, b.([]byte))
	case *apd.Decimal:
		y := b.(*apd.Decimal)
		return x.Cmp(y) == 0 && x.Exponent == y.Exponent
	case time.Time:
		return x == b.(time.Time)
	}
	return a == b
}

// wantSQLError asserts err is a MySQL error with the number and SQLSTATE.
func wantSQLError(tb testing.TB, what string, err error, num int, state string) {
	tb.Helper()
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		tb.Errorf("%s: error %v, want MySQL error %d (%s)", what, err, num, state)
		return
	}
	if se.Num != num || se.State != state {
		tb.Errorf("%s: error %d (%s) %q, want %d (%s)", what, se.Num, se.State, se.Message, num, state)
	}
}
