package keys

import (
	"context"
	"encoding/binary"
	"math"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
)

// Version is the version of the encoding. A stored index written with another version must
// be rebuilt. It is also hashed into every CollationFingerprint.
const Version = 1

// Frame bytes: every column value starts with one of them.
const (
	tagNull  = 0x00
	tagValue = 0x01
)

// Append appends the order-preserving encoding of v, a value of column type t as the engine
// holds it after t.Convert (nil for NULL), to dst.
func Append(dst []byte, t sql.Type, v any) ([]byte, error) {
	return AppendPrefix(dst, t, v, 0)
}

// AppendPrefix appends the encoding of the first n characters of v (n bytes for binary
// strings), the key of a prefix index part c(n). n ≤ 0 means the whole value, as Append.
// Prefix keys are monotone: a ≤ b implies prefix(a) ≤ prefix(b) in bytes, so a range over
// the column becomes an inclusive range over the prefix, and rows must then be filtered.
func AppendPrefix(dst []byte, t sql.Type, v any, n int) ([]byte, error) {
	ti, err := typeOf(t)
	if err != nil {
		return dst, err
	}
	if v == nil {
		return append(dst, tagNull), nil
	}
	if w, ok := v.(sql.AnyWrapper); ok {
		if v, err = w.UnwrapAny(context.Background()); err != nil {
			return dst, err
		}
		if v == nil {
			return append(dst, tagNull), nil
		}
	}
	if n > 0 && ti.kind != kindBytes && ti.kind != kindString {
		return dst, errWrongSubKey()
	}
	switch ti.kind {
	case kindSigned:
		i, ok := signedValue(ti.base, v)
		if !ok {
			return dst, errBadValue(t, v)
		}
		return appendSigned(append(dst, tagValue), i), nil
	case kindUnsigned:
		u, ok := unsignedValue(v)
		if !ok {
			return dst, errBadValue(t, v)
		}
		return binary.BigEndian.AppendUint64(append(dst, tagValue), u), nil
	case kindFloat:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		default:
			return dst, errBadValue(t, v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return dst, errOutOfRange("%v", f)
		}
		return appendFloat(append(dst, tagValue), f), nil
	case kindDecimal:
		d, ok := v.(*apd.Decimal)
		if !ok {
			return dst, errBadValue(t, v)
		}
		return appendDecimal(append(dst, tagValue), d, ti.scale)
	case kindTime:
		tm, ok := v.(time.Time)
		if !ok {
			return dst, errBadValue(t, v)
		}
		if ti.base == sqltypes.Date {
			// The engine compares DATE values truncated to the day.
			tm = tm.Truncate(24 * time.Hour)
		}
		if tm.Nanosecond()%1000 != 0 {
			return dst, errInternal("a %s value %v has a fraction of a microsecond", t.String(), tm)
		}
		return appendSigned(append(dst, tagValue), tm.UnixMicro()), nil
	case kindBytes:
		var s string
		switch x := v.(type) {
		case []byte:
			s = encodings.BytesToString(x)
		case string:
			s = x
		default:
			return dst, errBadValue(t, v)
		}
		if n > 0 && n < len(s) {
			s = s[:n]
		}
		return appendEscaped(append(dst, tagValue), s), nil
	case kindString:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = encodings.BytesToString(x)
		default:
			return dst, errBadValue(t, v)
		}
		if n > 0 {
			s = firstRunes(s, n)
		}
		dst = append(dst, tagValue)
		if ti.coll.raw {
			return appendCodePoints(dst, s), nil
		}
		return appendWeights(dst, ti.coll, s), nil
	}
	return dst, errNotKey(t, "")
}

// Decode decodes the value at the start of src, written by Append for column type t, and
// returns it with the rest of src. The value has the Go type the engine holds for t (see
// the package documentation). Strings of a collation that is not a code-point collation are
// encoded by their weights and cannot be decoded; Decode fails for them (see Decodable).
// A value written by AppendPrefix decodes to the prefix.
func Decode(src []byte, t sql.Type) (v any, rest []byte, err error) {
	ti, err := typeOf(t)
	if err != nil {
		return nil, src, err
	}
	if len(src) == 0 {
		return nil, src, errCorrupt("empty key part for a %s column", t.String())
	}
	switch src[0] {
	case tagNull:
		return nil, src[1:], nil
	case tagValue:
	default:
		return nil, src, errCorrupt("frame byte %#x for a %s column", src[0], t.String())
	}
	p := src[1:]
	switch ti.kind {
	case kindSigned:
		if len(p) < 8 {
			return nil, src, errCorrupt("short integer")
		}
		i := int64(binary.BigEndian.Uint64(p) ^ 1<<63)
		v, ok := signedGo(ti.base, i)
		if !ok {
			return nil, src, errCorrupt("%d does not fit a %s column", i, t.String())
		}
		return v, p[8:], nil
	case kindUnsigned:
		if len(p) < 8 {
			return nil, src, errCorrupt("short integer")
		}
		u := binary.BigEndian.Uint64(p)
		v, ok := unsignedGo(ti.base, u)
		if !ok {
			return nil, src, errCorrupt("%d does not fit a %s column", u, t.String())
		}
		return v, p[8:], nil
	case kindFloat:
		if len(p) < 8 {
			return nil, src, errCorrupt("short float")
		}
		bits := binary.BigEndian.Uint64(p)
		if bits>>63 == 1 {
			bits &^= 1 << 63
		} else {
			bits = ^bits
		}
		f := math.Float64frombits(bits)
		if ti.base == sqltypes.Float32 {
			return float32(f), p[8:], nil
		}
		return f, p[8:], nil
	case kindDecimal:
		d, rest, err := decodeDecimal(p, ti.scale)
		if err != nil {
			return nil, src, err
		}
		return d, rest, nil
	case kindTime:
		if len(p) < 8 {
			return nil, src, errCorrupt("short time")
		}
		us := int64(binary.BigEndian.Uint64(p) ^ 1<<63)
		return time.UnixMicro(us).UTC(), p[8:], nil
	case kindBytes:
		b, rest, err := unescape(p)
		if err != nil {
			return nil, src, err
		}
		return b, rest, nil
	case kindString:
		if !ti.coll.raw {
			return nil, src, errInternal("strings in the collation %s are keyed by their weights and cannot be decoded", ti.coll.id.Name())
		}
		b, rest, err := unescape(p)
		if err != nil {
			return nil, src, err
		}
		return string(b), rest, nil
	}
	return nil, src, errNotKey(t, "")
}

// Skip returns src after the value at its start, written by Append or AppendPrefix for
// column type t, without decoding it. It works for every type, weight strings included.
func Skip(src []byte, t sql.Type) (rest []byte, err error) {
	ti, err := typeOf(t)
	if err != nil {
		return src, err
	}
	if len(src) == 0 {
		return src, errCorrupt("empty key part for a %s column", t.String())
	}
	switch src[0] {
	case tagNull:
		return src[1:], nil
	case tagValue:
	default:
		return src, errCorrupt("frame byte %#x for a %s column", src[0], t.String())
	}
	p := src[1:]
	switch ti.kind {
	case kindSigned, kindUnsigned, kindFloat, kindTime:
		if len(p) < 8 {
			return src, errCorrupt("short fixed-width value")
		}
		return p[8:], nil
	case kindDecimal:
		return skipDecimal(p)
	case kindBytes:
		return skipEscaped(p)
	case kindString:
		if ti.coll.raw {
			return skipEscaped(p)
		}
		return skipWeights(p)
	}
	return src, errNotKey(t, "")
}

// Decodable reports whether Decode returns exactly the value that was appended, with the
// same Go type. It is false for strings in collations keyed by weights, and for FLOAT and
// DOUBLE, whose −0 is keyed (and decodes) as +0 because the engine compares them equal.
// For other types a covering index can answer from the key alone; for these the row must
// be read. A DECIMAL decodes at exponent −s with zero unsigned, the form Convert gives a
// column value (a −0.00 the engine kept from a literal decodes as 0.00).
func Decodable(t sql.Type) bool {
	ti, err := typeOf(t)
	if err != nil {
		return false
	}
	switch ti.kind {
	case kindFloat:
		return false
	case kindString:
		return ti.coll.raw
	}
	return true
}

// PrefixEnd returns the smallest key greater than every key that starts with prefix, for
// an exclusive upper bound of a scan, or nil when there is none (prefix is empty or all
// 0xFF). Because every encoded value is self-delimiting, the keys whose first parts equal
// Append(…) of some values are exactly the keys in [prefix, PrefixEnd(prefix)).
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func appendSigned(dst []byte, i int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(i)^1<<63)
}

// appendFloat orders float64 values: −0 becomes +0; a negative value has all bits flipped,
// a positive one only the sign bit.
func appendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		f = 0
	}
	bits := math.Float64bits(f)
	if bits>>63 == 1 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(dst, bits)
}

// signedValue reads a value of a signed column: any Go integer that fits an int64, or a
// types.Timespan for TIME.
func signedValue(base query.Type, v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case types.Timespan:
		return int64(x), base == sqltypes.Time
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	case uint:
		return int64(x), uint64(x) <= math.MaxInt64
	}
	return 0, false
}

// unsignedValue reads a value of an unsigned column (ENUM, SET and BIT included): any Go
// integer that is not negative.
func unsignedValue(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	case uint:
		return uint64(x), true
	case int8:
		return uint64(x), x >= 0
	case int16:
		return uint64(x), x >= 0
	case int32:
		return uint64(x), x >= 0
	case int64:
		return uint64(x), x >= 0
	case int:
		return uint64(x), x >= 0
	}
	return 0, false
}

// signedGo returns i as the Go type the engine holds for base.
func signedGo(base query.Type, i int64) (any, bool) {
	switch base {
	case sqltypes.Int8:
		return int8(i), i >= math.MinInt8 && i <= math.MaxInt8
	case sqltypes.Int16:
		return int16(i), i >= math.MinInt16 && i <= math.MaxInt16
	case sqltypes.Year:
		return int16(i), i >= math.MinInt16 && i <= math.MaxInt16
	case sqltypes.Int24, sqltypes.Int32:
		return int32(i), i >= math.MinInt32 && i <= math.MaxInt32
	case sqltypes.Time:
		return types.Timespan(i), true
	}
	return i, true
}

// unsignedGo returns u as the Go type the engine holds for base.
func unsignedGo(base query.Type, u uint64) (any, bool) {
	switch base {
	case sqltypes.Uint8:
		return uint8(u), u <= math.MaxUint8
	case sqltypes.Uint16, sqltypes.Enum:
		return uint16(u), u <= math.MaxUint16
	case sqltypes.Uint24, sqltypes.Uint32:
		return uint32(u), u <= math.MaxUint32
	}
	return u, true
}

// firstRunes returns the first n characters of s as the engine reads them: UTF-8, one
// character per byte that is not valid UTF-8.
func firstRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
