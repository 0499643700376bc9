package keys

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
)

// alphabet holds the characters where collations disagree: case pairs, accents, ß/ss,
// combining marks, dotted and dotless i, spaces and NUL, CJK, emoji, the replacement
// character and the last code point.
var alphabet = []rune{
	'a', 'A', 'b', 'B', 's', 'S', 'ß', 'ẞ', 'ä', 'Ä', 'á', 'å', 'e', 'é', 'E', 'É', 'z', 'Z',
	'\u0301', '\u0308', ' ', '\x00', '\t', '\n', '0', '9', '_', '-', '.', 'i', 'I', 'İ', 'ı',
	'ω', 'Ω', 'ж', 'Ж', '日', '本', '中', '한', '😀', '👍', '\uFFFD', '\U0010FFFF', '\u00A0',
	'ǅ', 'ﬁ', 'f',
}

var specialStrings = []string{
	"", "\x00", "\x00\x00", " ", "  ", "a", "a ", "a  ", "A", "A ", "a\x00", "\x00a", "a\x01",
	"ss", "ß", "SS", "Straße", "STRASSE", "strasse", "日本語", "日本", "😀😀", "e\u0301", "é",
	"ﬁ", "fi", "abc", "ABC", "abd", "ab", "\U0010FFFF", "\uFFFD",
}

func randomString(rng *rand.Rand, anyRune bool) string {
	n := rng.Intn(7)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if anyRune && rng.Intn(4) == 0 {
			r := rune(rng.Intn(utf8.MaxRune + 1))
			if !utf8.ValidRune(r) {
				r = 'x'
			}
			b.WriteRune(r)
			continue
		}
		b.WriteRune(alphabet[rng.Intn(len(alphabet))])
	}
	return b.String()
}

func stringValues(tb testing.TB, t sql.Type, rng *rand.Rand, n int, anyRune bool) []any {
	tb.Helper()
	var values []any
	for _, s := range specialStrings {
		if v, ok := convert(t, s); ok {
			values = append(values, v)
		}
	}
	for len(values) < n {
		if v, ok := convert(t, randomString(rng, anyRune)); ok {
			values = append(values, v)
		}
	}
	return values
}

var testCollations = []sql.CollationID{
	sql.Collation_utf8mb4_0900_ai_ci,
	sql.Collation_utf8mb4_0900_as_cs,
	sql.Collation_utf8mb4_general_ci,
	sql.Collation_utf8mb4_unicode_ci,
	sql.Collation_utf8mb4_0900_bin,
	sql.Collation_utf8mb4_bin,
	sql.Collation_utf8mb3_general_ci,
	sql.Collation_latin1_swedish_ci,
	sql.Collation_latin1_bin,
	sql.Collation_ascii_general_ci,
	sql.Collation_utf16_bin,
}

func TestStringOrder(t *testing.T) {
	for i, coll := range testCollations {
		for j, base := range []query.Type{sqltypes.VarChar, sqltypes.Char, sqltypes.Text} {
			length := int64(255)
			if base == sqltypes.Char {
				length = 20
			}
			typ := types.MustCreateString(base, length, coll)
			t.Run(typ.String()+"_"+coll.Name(), func(t *testing.T) {
				rng := newRand(1000 + int64(10*i+j))
				checkOrder(t, typ, stringValues(t, typ, rng, 3000, false), rng, pairs)
			})
		}
	}
}

func TestBinaryOrder(t *testing.T) {
	alpha := []byte{0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF, 'a', 'A', ' '}
	for i, typ := range []sql.Type{
		types.MustCreateBinary(sqltypes.VarBinary, 100),
		types.MustCreateBinary(sqltypes.Binary, 8),
		types.Blob,
		types.MustCreateString(sqltypes.VarChar, 50, sql.Collation_binary),
	} {
		t.Run(typ.String(), func(t *testing.T) {
			rng := newRand(2000 + int64(i))
			var values []any
			for _, s := range specialStrings {
				if v, ok := convert(typ, []byte(s)); ok {
					values = append(values, v)
				}
			}
			for k := 0; k < 3000; k++ {
				b := make([]byte, rng.Intn(8))
				for n := range b {
					b[n] = alpha[rng.Intn(len(alpha))]
				}
				if v, ok := convert(typ, b); ok {
					values = append(values, v)
				}
			}
			checkOrder(t, typ, values, rng, pairs)
		})
	}
}

// Every collation the engine can sort, with random code points from the whole range.
func TestEveryCollation(t *testing.T) {
	tested := 0
	for id := 0; id < 1024; id++ {
		coll := sql.CollationID(id)
		if sorterOf(coll) == nil || coll == sql.Collation_Unspecified {
			continue
		}
		typ, err := types.CreateString(sqltypes.VarChar, 100, coll)
		if err != nil {
			continue
		}
		tested++
		rng := newRand(3000 + int64(id))
		checkOrder(t, typ, stringValues(t, typ, rng, 300, true), rng, 3000)
	}
	if tested < 150 {
		t.Fatalf("only %d collations tested", tested)
	}
	t.Logf("%d collations", tested)
}

// The keys reproduce the engine where it is not MySQL; these are the documented cases.
func TestEngineDeviationsAreKept(t *testing.T) {
	for _, c := range []struct {
		coll sql.CollationID
		a, b string
		want int // the engine's order, which MySQL does not share
	}{
		{sql.Collation_utf8mb4_general_ci, "a", "a ", -1}, // PAD SPACE: MySQL 0
		{sql.Collation_utf8mb4_bin, "a", "a ", -1},        // PAD SPACE: MySQL 0
		{sql.Collation_latin1_swedish_ci, "A", "a ", -1},  // PAD SPACE: MySQL 0
		{sql.Collation_utf8mb4_0900_ai_ci, "ß", "ss", 1},  // no expansion: MySQL 0
		{sql.Collation_utf8mb4_0900_ai_ci, "a", "A", 0},   // as MySQL
		{sql.Collation_utf8mb4_0900_ai_ci, "a", "á", 0},   // as MySQL
		{sql.Collation_utf8mb4_0900_as_cs, "a", "A", -1},  // as MySQL
	} {
		typ := types.MustCreateString(sqltypes.VarChar, 10, c.coll)
		if got := engineCompare(t, typ, c.a, c.b); got != c.want {
			t.Errorf("%s: the engine orders %q, %q as %d, not %d: update the package doc", c.coll.Name(), c.a, c.b, got, c.want)
		}
		if got := sign(bytes.Compare(mustAppend(t, typ, c.a), mustAppend(t, typ, c.b))); got != c.want {
			t.Errorf("%s: keys order %q, %q as %d, want %d", c.coll.Name(), c.a, c.b, got, c.want)
		}
	}
}

// Strings that are not valid UTF-8 (the engine's Convert never holds them for a column)
// are keyed as the engine reads them: each bad byte as U+FFFD.
func TestInvalidUTF8(t *testing.T) {
	rng := newRand(4000)
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_bin, sql.Collation_utf8mb4_0900_ai_ci} {
		typ := types.MustCreateString(sqltypes.VarChar, 100, coll)
		values := []any{"\xff", "\uFFFD", "a\xffb", "a\uFFFDb", "\xe6\x97", "\xc3", "a", "\U0010FFFF"}
		for k := 0; k < 300; k++ {
			b := []byte(randomString(rng, false))
			if len(b) > 0 {
				b[rng.Intn(len(b))] = byte(0x80 + rng.Intn(0x80))
			}
			values = append(values, string(b))
		}
		for _, a := range values {
			for _, b := range values {
				want := engineCompare(t, typ, a, b)
				if got := sign(bytes.Compare(mustAppend(t, typ, a), mustAppend(t, typ, b))); got != want {
					t.Errorf("%s: keys order %q, %q as %d, the engine as %d", coll.Name(), a, b, got, want)
				}
			}
		}
	}
}

func TestCodePointCollationsAreMonotone(t *testing.T) {
	for id := range codePointCollations {
		if id.CharacterSet() == sql.CharacterSet_binary {
			t.Errorf("%s: a binary character set is keyed as bytes, not as a code-point collation", id.Name())
		}
		if r, n := id.CharacterSet().Encoder().NextRune("é"); r != 'é' || n != 2 {
			t.Errorf("%s: the engine does not read its strings as UTF-8", id.Name())
		}
		sorter := id.Sorter()
		prev := sorter(0)
		for r := rune(1); r <= utf8.MaxRune; r++ {
			if !utf8.ValidRune(r) {
				continue
			}
			w := sorter(r)
			if w <= prev {
				t.Errorf("%s: weight(%U) = %d is not above the weight of the rune before it (%d)", id.Name(), r, w, prev)
				break
			}
			prev = w
		}
	}
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

func TestPrefix(t *testing.T) {
	typesUnder := []sql.Type{types.MustCreateBinary(sqltypes.VarBinary, 100), types.Blob}
	for _, coll := range testCollations {
		typesUnder = append(typesUnder, types.MustCreateString(sqltypes.VarChar, 100, coll), types.CreateText(coll))
	}
	for i, typ := range typesUnder {
		t.Run(typ.String()+"_"+typ.(sql.StringType).Collation().Name(), func(t *testing.T) {
			rng := newRand(5000 + int64(i))
			values := stringValues(t, typ, rng, 1500, false)
			for _, n := range []int{1, 2, 3} {
				pk := make([][]byte, len(values))
				for k, v := range values {
					p, err := AppendPrefix(nil, typ, v, n)
					if err != nil {
						t.Fatalf("AppendPrefix(%q, %d): %v", v, n, err)
					}
					pk[k] = p
					var cut any
					switch x := v.(type) {
					case []byte:
						cut = x[:min(n, len(x))]
					case string:
						cut = truncateRunes(x, n)
					}
					if whole := mustAppend(t, typ, cut); !bytes.Equal(p, whole) {
						t.Errorf("prefix %d of %q is %x, the key of %q is %x", n, v, p, cut, whole)
					}
					checkValue(t, typ, cut, p)
				}
				for k := 0; k < pairs/4; k++ {
					a, b := rng.Intn(len(values)), rng.Intn(len(values))
					if engineCompare(t, typ, values[a], values[b]) <= 0 && bytes.Compare(pk[a], pk[b]) > 0 {
						t.Errorf("%q ≤ %q, but their %d-prefix keys are %x > %x", values[a], values[b], n, pk[a], pk[b])
					}
				}
			}
		})
	}
	if _, err := AppendPrefix(nil, types.Int32, int32(5), 2); err == nil {
		t.Error("a prefix of an INT was encoded")
	}
}

// Keys of several columns compare column by column, NULL first in each.
func TestMultiColumnKeys(t *testing.T) {
	rng := newRand(6000)
	schema := []sql.Type{
		types.Int32,
		types.MustCreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_0900_ai_ci),
		types.MustCreateColumnDecimalType(10, 2),
		types.MustCreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_0900_bin),
		types.MustCreateBinary(sqltypes.VarBinary, 20),
		types.Float64,
	}
	column := func(c int) any {
		if rng.Intn(5) == 0 {
			return nil
		}
		var raw any
		switch c {
		case 0:
			raw = rng.Intn(5) - 2
		case 1, 3:
			raw = specialStrings[rng.Intn(8)]
		case 2:
			raw = decimalString(rng, 3, 2)
		case 4:
			raw = []byte(specialStrings[rng.Intn(8)])
		case 5:
			raw = float64(rng.Intn(3)-1) / 2
		}
		v, ok := convert(schema[c], raw)
		if !ok {
			t.Fatalf("Convert(%v) for %s failed", raw, schema[c])
		}
		return v
	}
	rows := make([][]any, 1500)
	enc := make([][]byte, len(rows))
	for i := range rows {
		rows[i] = make([]any, len(schema))
		for c := range schema {
			rows[i][c] = column(c)
			var err error
			if enc[i], err = Append(enc[i], schema[c], rows[i][c]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k := 0; k < pairs; k++ {
		a, b := rng.Intn(len(rows)), rng.Intn(len(rows))
		want := 0
		for c := range schema {
			if want = engineCompare(t, schema[c], rows[a][c], rows[b][c]); want != 0 {
				break
			}
		}
		if got := sign(bytes.Compare(enc[a], enc[b])); got != want {
			t.Fatalf("rows %v and %v: keys %d, engine %d", rows[a], rows[b], got, want)
		}
	}
	for i, key := range enc {
		rest := key
		for c, typ := range schema {
			if Decodable(typ) {
				v, r, err := Decode(rest, typ)
				if err != nil || !(v == nil && rows[i][c] == nil || v != nil && rows[i][c] != nil && identical(v, rows[i][c])) {
					t.Fatalf("row %v column %d decodes as %#v, %v", rows[i], c, v, err)
				}
				rest = r
				continue
			}
			var err error
			if rest, err = Skip(rest, typ); err != nil {
				t.Fatalf("row %v column %d: %v", rows[i], c, err)
			}
		}
		if len(rest) != 0 {
			t.Fatalf("row %v: %x left after the last column", rows[i], rest)
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte{1, 2, 3}, []byte{1, 2, 4}},
		{[]byte{1, 0xFF, 0xFF}, []byte{2}},
		{[]byte{0xFF}, nil},
		{nil, nil},
	} {
		if got := PrefixEnd(c.in); !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.in, got, c.want)
		}
	}
	// Every key that starts with the parts of (5, 'ab') lies in [prefix, PrefixEnd(prefix)).
	s := types.MustCreateString(sqltypes.VarChar, 20, sql.Collation_utf8mb4_0900_ai_ci)
	p, _ := Append(mustAppend(t, types.Int32, int32(5)), s, "ab")
	end := PrefixEnd(p)
	for _, tail := range []any{nil, "", "AB", "ab\x00", "abc", "a", "b"} {
		k, _ := Append(mustAppend(t, types.Int32, int32(5)), s, "ab")
		k, _ = Append(k, s, tail)
		if bytes.Compare(k, p) < 0 || bytes.Compare(k, end) >= 0 {
			t.Errorf("(5, 'ab', %q) is outside the prefix range", tail)
		}
	}
	for _, other := range []string{"abc", "a", "AB ", "b"} {
		k, _ := Append(mustAppend(t, types.Int32, int32(5)), s, other)
		if bytes.Compare(k, p) >= 0 && bytes.Compare(k, end) < 0 {
			t.Errorf("(5, %q) is inside the range of (5, 'ab')", other)
		}
	}
}
