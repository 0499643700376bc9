package keys

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// maxPrefixBytes is MySQL's (InnoDB DYNAMIC) limit on one key part's prefix.
const maxPrefixBytes = 3072

// Check reports whether column col of type t can be a part of an index key, whole
// (prefix ≤ 0) or by its first prefix characters (bytes for binary strings). The error is
// the one MySQL 8 gives, with its number and SQLSTATE:
//
//	1170 42000  a BLOB or TEXT column without a prefix length
//	1089 HY000  a prefix on a column that is not a string, or longer than the column
//	1071 42000  a prefix longer than 3072 bytes
//	3152 42000  a JSON column
//	1235 42000  GEOMETRY and VECTOR columns (SPATIAL and VECTOR indexes are not stored),
//	            and any type this package cannot order
func Check(col string, t sql.Type, prefix int64) error {
	if t == nil {
		return errInternal("no column type given for %q", col)
	}
	switch t.Type() {
	case sqltypes.TypeJSON:
		return mysqlerr.New(mysqlerr.ERJSONUsedAsKey,
			"JSON column '%s' supports indexing only via generated columns on a specified JSON path.", col)
	case sqltypes.Geometry:
		return errNotKey(t, "indexes on GEOMETRY columns")
	case sqltypes.Vector:
		return errNotKey(t, "indexes on VECTOR columns")
	}
	ti, err := typeOf(t)
	if err != nil {
		return err
	}
	isString := ti.kind == kindBytes || ti.kind == kindString
	if prefix <= 0 {
		if t.Type() == sqltypes.Text || t.Type() == sqltypes.Blob {
			return mysqlerr.New(mysql.ERBlobKeyWithoutLength,
				"BLOB/TEXT column '%s' used in key specification without a key length", col)
		}
		return nil
	}
	if !isString {
		return errWrongSubKey()
	}
	st, ok := t.(sql.StringType)
	if !ok {
		return errWrongSubKey()
	}
	if ti.kind == kindBytes {
		if prefix > maxPrefixBytes {
			return errTooLongKey()
		}
		if prefix > st.MaxByteLength() {
			return errWrongSubKey()
		}
		return nil
	}
	if prefix*st.CharacterSet().MaxLength() > maxPrefixBytes {
		return errTooLongKey()
	}
	if prefix > st.MaxCharacterLength() {
		return errWrongSubKey()
	}
	return nil
}

func errWrongSubKey() error {
	return mysqlerr.New(mysql.ERWrongSubKey,
		"Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys")
}

func errTooLongKey() error {
	return mysqlerr.New(mysql.ERTooLongKey, "Specified key was too long; max key length is %d bytes", maxPrefixBytes)
}
