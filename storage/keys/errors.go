package keys

import (
	"fmt"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// errInternal is a misuse of the package: a value whose Go type is not the one the engine
// holds for the column type.
func errInternal(format string, args ...any) error {
	return mysqlerr.New(mysql.ERUnknownError, "index key: "+format, args...)
}

// errCorrupt is a key that this package did not write.
func errCorrupt(format string, args ...any) error {
	return mysqlerr.New(mysqlerr.ERIndexCorrupt, "Index key is corrupted: "+format, args...)
}

// errOutOfRange is a value that has no place in the index order (NaN, ±Inf).
func errOutOfRange(format string, args ...any) error {
	return mysqlerr.New(mysql.ERWarnDataOutOfRange, "Out of range value for an index key: "+format, args...)
}

// errNotKey is a column type that cannot be an index key part at all.
func errNotKey(t sql.Type, what string) error {
	if what == "" {
		what = fmt.Sprintf("indexes on %s columns", t.String())
	}
	return mysqlerr.New(mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support '%s'", what)
}

// errBadValue is a value whose Go type the column type does not hold.
func errBadValue(t sql.Type, v any) error {
	return errInternal("a %s column cannot hold a Go %T (%v)", t.String(), v, v)
}
