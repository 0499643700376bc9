package keys

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
)

// kind is the encoding family of a column type.
type kind uint8

const (
	kindNone     kind = iota
	kindSigned        // TINYINT … BIGINT, YEAR, TIME: 8 bytes, sign bit flipped
	kindUnsigned      // TINYINT UNSIGNED … BIGINT UNSIGNED, ENUM, SET, BIT: 8 bytes
	kindFloat         // FLOAT, DOUBLE: 8 bytes of the float64, ordered
	kindDecimal       // DECIMAL(p,s): sign, length, magnitude of the value × 10^s
	kindTime          // DATE, DATETIME, TIMESTAMP: signed µs since the Unix epoch
	kindBytes         // BINARY, VARBINARY, BLOB: escaped raw bytes
	kindString        // CHAR, VARCHAR, TEXT: escaped code points or a weight string
)

// typeInfo is what the encoder needs to know about a column type.
type typeInfo struct {
	kind kind
	// base is the engine's base type; Decode picks the Go value type from it.
	base query.Type
	// scale is the DECIMAL scale.
	scale int32
	// coll is the collation of a character string; coll.raw says whether the string is
	// encoded as code points (bytes) or as a weight string.
	coll *collation
}

// typeOf classifies t. It fails with a MySQL error for types that cannot be keys.
func typeOf(t sql.Type) (typeInfo, error) {
	if t == nil {
		return typeInfo{}, errInternal("no column type given")
	}
	base := t.Type()
	ti := typeInfo{base: base}
	switch base {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64,
		sqltypes.Year, sqltypes.Time:
		ti.kind = kindSigned
	case sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64,
		sqltypes.Enum, sqltypes.Set, sqltypes.Bit:
		ti.kind = kindUnsigned
	case sqltypes.Float32, sqltypes.Float64:
		ti.kind = kindFloat
	case sqltypes.Decimal:
		dt, ok := t.(sql.DecimalType)
		if !ok {
			return typeInfo{}, errNotKey(t, "a DECIMAL type without a scale")
		}
		ti.kind = kindDecimal
		ti.scale = int32(dt.Scale())
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		ti.kind = kindTime
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		ti.kind = kindBytes
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text:
		st, ok := t.(sql.StringType)
		if !ok {
			return typeInfo{}, errNotKey(t, "a character type without a collation")
		}
		c, err := collationOf(st.Collation())
		if err != nil {
			return typeInfo{}, err
		}
		if c.binaryCharset {
			// A character type in the binary character set holds bytes.
			ti.kind = kindBytes
			break
		}
		ti.kind = kindString
		ti.coll = c
	default:
		return typeInfo{}, errNotKey(t, "")
	}
	return ti, nil
}
