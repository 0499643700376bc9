package keys

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// MySQL error numbers used here (MySQL 8 names).
const (
	erUnknownError         = 1105 // ER_UNKNOWN_ERROR, HY000
	erTooLongKey           = 1071 // ER_TOO_LONG_KEY, 42000
	erWrongSubKey          = 1089 // ER_WRONG_SUB_KEY, HY000
	erBlobKeyWithoutLength = 1170 // ER_BLOB_KEY_WITHOUT_LENGTH, 42000
	erNotSupportedYet      = 1235 // ER_NOT_SUPPORTED_YET, 42000
	erWarnDataOutOfRange   = 1264 // ER_WARN_DATA_OUT_OF_RANGE, 22003
	erIndexCorrupt         = 1712 // ER_INDEX_CORRUPT, HY000
	erJSONUsedAsKey        = 3152 // ER_JSON_USED_AS_KEY, 42000
)

// errInternal is a misuse of the package: a value whose Go type is not the one the engine
// holds for the column type.
func errInternal(format string, args ...any) error {
	return mysql.NewSQLError(erUnknownError, "HY000", "index key: "+format, args...)
}

// errCorrupt is a key that this package did not write.
func errCorrupt(format string, args ...any) error {
	return mysql.NewSQLError(erIndexCorrupt, "HY000", "Index key is corrupted: "+format, args...)
}

// errOutOfRange is a value that has no place in the index order (NaN, ±Inf).
func errOutOfRange(format string, args ...any) error {
	return mysql.NewSQLError(erWarnDataOutOfRange, "22003", "Out of range value for an index key: "+format, args...)
}

// errNotKey is a column type that cannot be an index key part at all.
func errNotKey(t sql.Type, what string) error {
	if what == "" {
		what = fmt.Sprintf("indexes on %s columns", t.String())
	}
	return mysql.NewSQLError(erNotSupportedYet, "42000", "This version of MySQL doesn't yet support '%s'", what)
}

// errBadValue is a value whose Go type the column type does not hold.
func errBadValue(t sql.Type, v any) error {
	return errInternal("a %s column cannot hold a Go %T (%v)", t.String(), v, v)
}
