package rowcodec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

const version = 1

// Value kinds.
const (
	kInt8 byte = iota + 1
	kInt16
	kInt32
	kInt64
	kUint8
	kUint16
	kUint32
	kUint64
	kFloat32
	kFloat64
	kString
	kBytes
	kTime
	kTimespan
	kDecimal
	kJSON
	kGeometry
	kBool
	kInt
)

// Codec maps schema positions to tags for one version of a table's schema.
type Codec struct {
	// tags[i] is the tag of schema column i.
	tags []uint32
	// order lists the schema positions in ascending tag order.
	order []int
	// pos maps a tag to its schema position.
	pos map[uint32]int
}

// New is the codec of a schema whose column i has tag tags[i]. Every column is stored, virtual
// ones too: their values are what the indexes over them were built from, so a row's entries
// can always be found again (the engine recomputes them on read).
func New(tags []uint32) *Codec {
	c := &Codec{tags: append([]uint32(nil), tags...), pos: make(map[uint32]int, len(tags))}
	for i, tag := range tags {
		c.pos[tag] = i
		c.order = append(c.order, i)
	}
	// insertion sort by tag: schemas are small
	for i := 1; i < len(c.order); i++ {
		for j := i; j > 0 && c.tags[c.order[j]] < c.tags[c.order[j-1]]; j-- {
			c.order[j], c.order[j-1] = c.order[j-1], c.order[j]
		}
	}
	return c
}

// Encode appends the stored form of row to dst.
func (c *Codec) Encode(ctx context.Context, dst []byte, row sql.Row) ([]byte, error) {
	dst = append(dst, version)
	for _, i := range c.order {
		if i >= len(row) || row[i] == nil {
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(c.tags[i]))
		var err error
		dst, err = appendValue(ctx, dst, row[i])
		if err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// Decode fills row (len = schema width) from the stored form. want, when not nil, says which
// schema positions to decode; the others stay nil.
func (c *Codec) Decode(src []byte, row sql.Row, want []bool) error {
	if len(src) == 0 || src[0] != version {
		return Corrupt("unknown row codec version")
	}
	src = src[1:]
	for len(src) > 0 {
		tag, n := binary.Uvarint(src)
		if n <= 0 {
			return Corrupt("bad tag")
		}
		src = src[n:]
		i, ok := c.pos[uint32(tag)]
		if !ok || (want != nil && !want[i]) {
			var err error
			if src, err = skipValue(src); err != nil {
				return err
			}
			continue
		}
		v, rest, err := decodeValue(src)
		if err != nil {
			return err
		}
		row[i] = v
		src = rest
	}
	return nil
}

// Corrupt is the error of a stored row that cannot be read.
func Corrupt(what string) error {
	return fmt.Errorf("storage: corrupt row: %s", what)
}

func appendValue(ctx context.Context, dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case int8:
		return append(dst, kInt8, byte(x)), nil
	case int16:
		return binary.BigEndian.AppendUint16(append(dst, kInt16), uint16(x)), nil
	case int32:
		return binary.BigEndian.AppendUint32(append(dst, kInt32), uint32(x)), nil
	case int64:
		return binary.BigEndian.AppendUint64(append(dst, kInt64), uint64(x)), nil
	case int:
		return binary.BigEndian.AppendUint64(append(dst, kInt), uint64(x)), nil
	case uint8:
		return append(dst, kUint8, x), nil
	case uint16:
		return binary.BigEndian.AppendUint16(append(dst, kUint16), x), nil
	case uint32:
		return binary.BigEndian.AppendUint32(append(dst, kUint32), x), nil
	case uint64:
		return binary.BigEndian.AppendUint64(append(dst, kUint64), x), nil
	case float32:
		return binary.BigEndian.AppendUint32(append(dst, kFloat32), math.Float32bits(x)), nil
	case float64:
		return binary.BigEndian.AppendUint64(append(dst, kFloat64), math.Float64bits(x)), nil
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		return append(dst, kBool, b), nil
	case string:
		dst = binary.AppendUvarint(append(dst, kString), uint64(len(x)))
		return append(dst, x...), nil
	case []byte:
		dst = binary.AppendUvarint(append(dst, kBytes), uint64(len(x)))
		return append(dst, x...), nil
	case time.Time:
		// seconds and nanoseconds keep every value the engine holds, and the location is UTC
		// as the engine's DATETIME values are.
		dst = binary.BigEndian.AppendUint64(append(dst, kTime), uint64(x.Unix()))
		return binary.BigEndian.AppendUint32(dst, uint32(x.Nanosecond())), nil
	case types.Timespan:
		return binary.BigEndian.AppendUint64(append(dst, kTimespan), uint64(x)), nil
	case *apd.Decimal:
		s := x.Text('f')
		dst = binary.AppendUvarint(append(dst, kDecimal), uint64(len(s)))
		return append(dst, s...), nil
	case apd.Decimal:
		s := x.Text('f')
		dst = binary.AppendUvarint(append(dst, kDecimal), uint64(len(s)))
		return append(dst, s...), nil
	case types.GeometryValue:
		b := x.Serialize()
		dst = binary.AppendUvarint(append(dst, kGeometry), uint64(len(b)))
		return append(dst, b...), nil
	case sql.JSONWrapper:
		b, err := types.MarshallJson(ctx, x)
		if err != nil {
			return nil, err
		}
		dst = binary.AppendUvarint(append(dst, kJSON), uint64(len(b)))
		return append(dst, b...), nil
	}
	return nil, fmt.Errorf("storage: cannot store a value of Go type %T", v)
}

func fixedSize(kind byte) int {
	switch kind {
	case kInt8, kUint8, kBool:
		return 1
	case kInt16, kUint16:
		return 2
	case kInt32, kUint32, kFloat32:
		return 4
	case kInt64, kUint64, kFloat64, kTimespan, kInt:
		return 8
	case kTime:
		return 12
	}
	return -1
}

func skipValue(src []byte) ([]byte, error) {
	if len(src) == 0 {
		return nil, Corrupt("missing kind")
	}
	kind := src[0]
	src = src[1:]
	if n := fixedSize(kind); n >= 0 {
		if len(src) < n {
			return nil, Corrupt("short value")
		}
		return src[n:], nil
	}
	l, n := binary.Uvarint(src)
	if n <= 0 || uint64(len(src)-n) < l {
		return nil, Corrupt("bad length")
	}
	return src[n+int(l):], nil
}

func decodeValue(src []byte) (any, []byte, error) {
	if len(src) == 0 {
		return nil, nil, Corrupt("missing kind")
	}
	kind := src[0]
	src = src[1:]
	if n := fixedSize(kind); n >= 0 {
		if len(src) < n {
			return nil, nil, Corrupt("short value")
		}
		b, rest := src[:n], src[n:]
		switch kind {
		case kInt8:
			return int8(b[0]), rest, nil
		case kUint8:
			return b[0], rest, nil
		case kBool:
			return b[0] != 0, rest, nil
		case kInt16:
			return int16(binary.BigEndian.Uint16(b)), rest, nil
		case kUint16:
			return binary.BigEndian.Uint16(b), rest, nil
		case kInt32:
			return int32(binary.BigEndian.Uint32(b)), rest, nil
		case kUint32:
			return binary.BigEndian.Uint32(b), rest, nil
		case kFloat32:
			return math.Float32frombits(binary.BigEndian.Uint32(b)), rest, nil
		case kInt64:
			return int64(binary.BigEndian.Uint64(b)), rest, nil
		case kInt:
			return int(binary.BigEndian.Uint64(b)), rest, nil
		case kUint64:
			return binary.BigEndian.Uint64(b), rest, nil
		case kFloat64:
			return math.Float64frombits(binary.BigEndian.Uint64(b)), rest, nil
		case kTimespan:
			return types.Timespan(binary.BigEndian.Uint64(b)), rest, nil
		case kTime:
			sec := int64(binary.BigEndian.Uint64(b))
			nsec := int64(binary.BigEndian.Uint32(b[8:]))
			return time.Unix(sec, nsec).UTC(), rest, nil
		}
	}
	l, n := binary.Uvarint(src)
	if n <= 0 || uint64(len(src)-n) < l {
		return nil, nil, Corrupt("bad length")
	}
	b, rest := src[n:n+int(l)], src[n+int(l):]
	switch kind {
	case kString:
		return string(b), rest, nil
	case kBytes:
		return append([]byte{}, b...), rest, nil
	case kDecimal:
		d, _, err := apd.NewFromString(string(b))
		if err != nil {
			return nil, nil, Corrupt("bad decimal")
		}
		return d, rest, nil
	case kJSON:
		return types.NewLazyJSONDocument(append([]byte{}, b...)), rest, nil
	case kGeometry:
		g, _, err := types.GeometryType{}.Convert(context.Background(), append([]byte{}, b...))
		if err != nil {
			return nil, nil, Corrupt("bad geometry")
		}
		return g, rest, nil
	}
	return nil, nil, Corrupt(fmt.Sprintf("unknown kind %d", kind))
}
