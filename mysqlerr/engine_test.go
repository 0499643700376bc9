package mysqlerr

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

func TestForClient(t *testing.T) {
	for _, c := range []struct {
		err   error
		num   int
		state string
		msg   string
	}{
		{sql.ErrDatabaseNotFound.New("nope"), 1049, "42000", "Unknown database 'nope'"},
		{sql.ErrTableNotFound.New("t"), 1146, "42S02", "Table 't' doesn't exist"},
		{types.ErrLengthBeyondLimit.New("abcdef", "v"), 1406, "22001", "Data too long for column 'v'"},
		{sql.ErrUnknownSystemVariable.New("x"), 1193, "HY000", "Unknown system variable 'x'"},
		{sql.ErrUniqueKeyViolation.New(), 1062, "23000", ""},
		{sql.ErrStoredProcedureDoesNotExist.New("nope"), 1305, "42000", "PROCEDURE nope does not exist"},
		{sql.ErrForeignKeyChildViolation.New("c_ibfk_1", "c", "p", "[99]"), 1452, "23000",
			"Cannot add or update a child row: a foreign key constraint fails (`c`, CONSTRAINT `c_ibfk_1` REFERENCES `p`)"},
		{sql.ErrForeignKeyParentViolation.New("c_ibfk_1", "c", "p", "[1]"), 1451, "23000",
			"Cannot delete or update a parent row: a foreign key constraint fails (`c`, CONSTRAINT `c_ibfk_1` REFERENCES `p`)"},
		{fmt.Errorf("run: %w", mysql.NewSQLError(745, "HY000", "overloaded")), 745, "HY000", "overloaded"},
		{mysql.NewSQLError(1227, "42000", "denied"), 1227, "42000", "denied"},
		{mysql.NewSQLError(1146, "HY000", "Table 'main.t' doesn't exist"), 1146, "42S02", "Table 'main.t' doesn't exist"},
		// CREATE TABLE naming two indexes alike: the engine's words, MySQL's 1061.
		{sql.ErrIndexIDAlreadyRegistered.New("k"), 1061, "42000", "Duplicate key name 'k'"},
		{sql.ErrForeignKeyDropIndex.New("k", "fk"), 1553, "HY000", "Cannot drop index 'k': needed in a foreign key constraint"},
		{sql.ErrUnknownPreparedStatement.New("s"), 1243, "HY000", "Unknown prepared statement handler (s) given to EXECUTE"},
		{sql.ErrExistingView.New("v"), 1050, "42S01", "Table 'v' already exists"},
		{sql.ErrExistingView.New("main", "v"), 1050, "42S01", "Table 'v' already exists"},
		{sql.ErrCheckConstraintViolated.New("t_chk_1"), 3819, "HY000", "Check constraint 't_chk_1' is violated."},
		{errors.New("something else"), 1105, "HY000", "something else"},
		// What a client sent is quoted clipped: a table name of 300 bytes, the text near a
		// syntax error, a message of a megabyte.
		{sql.ErrTableNotFound.New(strings.Repeat("t", 300)), 1146, "42S02", "Table '" + strings.Repeat("t", 200) + "...' doesn't exist"},
		{errors.New("syntax error at position 9 near '" + strings.Repeat("x", 1<<20) + "'"), 1064, "42000",
			"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '" + strings.Repeat("x", 80) + "...'"},
		{mysql.NewSQLError(1231, "42000", "%s", strings.Repeat("v", 1<<20)), 1231, "42000",
			strings.Repeat("v", MaxMessage) + "... (message of 1048576 bytes cut)"},
	} {
		got := ForClient(c.err)
		if got.Num != c.num || got.State != c.state || (c.msg != "" && got.Message != c.msg) {
			t.Errorf("ForClient(%v) = %d (%s) %q, want %d (%s) %q", c.err, got.Num, got.State, got.Message, c.num, c.state, c.msg)
		}
	}
	if ForClient(nil) != nil {
		t.Error("ForClient(nil) is not nil")
	}
}

func TestClipped(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc..."},
		{"aé", 2, "a..."}, // é is two bytes: the cut does not split it
		{"ééé", 4, "éé..."},
		{"", 0, ""},
	} {
		if got := Clipped(c.in, c.n); got != c.want {
			t.Errorf("Clipped(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
