package server

import (
	"errors"
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// This file is the one place where an error on its way to a client gets MySQL 8's error
// number, SQLSTATE and wording. The engine answers many errors as 1105 (HY000) with its own
// text, and gives known numbers SQLSTATE HY000; clients and ORMs branch on the number and the
// SQLSTATE. Errors made with mysql.NewSQLError by overloadsql itself (745, 1040, 1227, ...)
// pass through unchanged when their SQLSTATE is not HY000 or their number is not listed here.
//
// To add a mapping: an engine message that should get a MySQL number goes into
// engineMessages (pattern on the engine's text, MySQL's number and message); a number whose
// SQLSTATE is not HY000 in MySQL goes into sqlStates.

// erQueryInterrupted is ER_QUERY_INTERRUPTED: the statement was stopped by KILL QUERY.
const erQueryInterrupted = 1317

// erFKColumnCannotDrop is ER_FK_COLUMN_CANNOT_DROP: a column a foreign key of its table uses.
const erFKColumnCannotDrop = 1828

// erSPDoesNotExist is ER_SP_DOES_NOT_EXIST, also MySQL's error of a savepoint name that is not
// set.
const erSPDoesNotExist = 1305

// erDropIndexFK is ER_DROP_INDEX_FK: an index a foreign key needs.
const erDropIndexFK = 1553

// erCheckConstraintViolated is ER_CHECK_CONSTRAINT_VIOLATED: a row a CHECK constraint refuses.
const erCheckConstraintViolated = 3819

// sqlStates are MySQL 8's SQLSTATEs of the error numbers the engine or overloadsql may send
// with HY000.
var sqlStates = map[int]string{
	mysql.ERDBAccessDenied:          mysql.SSClientError,   // 1044
	mysql.ERAccessDeniedError:       "28000",               // 1045
	mysql.ERNoDb:                    "3D000",               // 1046
	mysql.ERBadNullError:            "23000",               // 1048
	mysql.ERBadDb:                   mysql.SSClientError,   // 1049
	mysql.ERTableExists:             "42S01",               // 1050
	mysql.ERBadTable:                mysql.SSUnknownTable,  // 1051
	mysql.ERBadFieldError:           mysql.SSBadFieldError, // 1054
	mysql.ERDupFieldName:            "42S21",               // 1060
	mysql.ERDupKeyName:              mysql.SSClientError,   // 1061
	mysql.ERDupEntry:                mysql.SSDupKey,        // 1062
	mysql.ERParseError:              mysql.SSClientError,   // 1064
	mysql.ERMultiplePriKey:          mysql.SSClientError,   // 1068
	mysql.ERWrongValueCountOnRow:    "21S01",               // 1136
	errTableAccessDenied:            mysql.SSClientError,   // 1142
	mysql.ERNoSuchTable:             mysql.SSUnknownTable,  // 1146
	mysql.ERSyntaxError:             mysql.SSClientError,   // 1149
	mysql.ERSpecifiedAccessDenied:   mysql.SSClientError,   // 1227
	mysql.ERWrongValueForVar:        mysql.SSClientError,   // 1231
	mysql.ERNotSupportedYet:         mysql.SSClientError,   // 1235
	mysql.ERIncorrectGlobalLocalVar: "HY000",               // 1238
	mysql.EROperandColumns:          "21000",               // 1241
	mysql.ERSubqueryNo1Row:          "21000",               // 1242
	mysql.ERDataOutOfRange:          "22003",               // 1264
	erSPDoesNotExist:                mysql.SSClientError,   // 1305
	erQueryInterrupted:              "70100",               // 1317
	mysql.ERDataTooLong:             mysql.SSDataTooLong,   // 1406
	mysql.ERRowIsReferenced2:        "23000",               // 1451
	mysql.ErNoReferencedRow2:        "23000",               // 1452
	mysql.ERLockDeadlock:            "40001",               // 1213
}

// engineMessage turns an engine message matching pattern into MySQL's number and message; the
// message is pattern's expansion template ($1, ...).
type engineMessage struct {
	pattern *regexp.Regexp
	number  int
	message string
}

var engineMessages = []engineMessage{
	{regexp.MustCompile(`^database not found: (.*)$`), mysql.ERBadDb, "Unknown database '$1'"},
	{regexp.MustCompile(`^table not found: (.*)$`), mysql.ERNoSuchTable, "Table '$1' doesn't exist"},
	{regexp.MustCompile(`^string '.*' is too large for column '(.*)'$`), mysql.ERDataTooLong, "Data too long for column '$1'"},
	{regexp.MustCompile(`^Unknown system variable '@{0,2}(.*)'$`), mysql.ERUnknownSystemVariable, "Unknown system variable '$1'"},
	{regexp.MustCompile(`^Variable '(.*)' is a read only variable$`), mysql.ERIncorrectGlobalLocalVar, "Variable '$1' is a read only variable"},
	{regexp.MustCompile(`^syntax error at position \d+ near '(.*)'$`), mysql.ERParseError,
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '$1'"},
	{regexp.MustCompile(`^unsupported feature: (.*)$`), mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support '$1'"},
	{regexp.MustCompile(`^context canceled$`), erQueryInterrupted, "Query execution was interrupted"},
	// The parser's refusal of subqueries nested too deep (checkSize), which the engine wraps.
	{regexp.MustCompile(`^(Too high level of nesting for select: .*) \(errno 1473\) \(sqlstate HY000\)$`), erTooHighLevelOfNestingForSelect, "$1"},
	{regexp.MustCompile(`^Unknown table '(.*)'$`), mysql.ERBadTable, "Unknown table '$1'"},
	{regexp.MustCompile(`^table with name (.*) already exists$`), mysql.ERTableExists, "Table '$1' already exists"},
	// CREATE VIEW of a name in use: the in-memory database gives the name alone to a message
	// made for the database and the name ("the view v.%!s(MISSING) already exists").
	{regexp.MustCompile(`^the view (.*)\.%!s\(MISSING\) already exists$`), mysql.ERTableExists, "Table '$1' already exists"},
	{regexp.MustCompile(`^the view [^.]*\.(.*) already exists$`), mysql.ERTableExists, "Table '$1' already exists"},
	{regexp.MustCompile(`^Check constraint "(.*)" violated$`), erCheckConstraintViolated, "Check constraint '$1' is violated."},
	{regexp.MustCompile(`^SAVEPOINT (.*) does not exist$`), erSPDoesNotExist, "SAVEPOINT $1 does not exist"},
	{regexp.MustCompile(`^Duplicate key name '(.*)'$`), mysql.ERDupKeyName, "Duplicate key name '$1'"},
	{regexp.MustCompile("^cannot drop column `(.*)` as it is used in foreign key `(.*)`$"), erFKColumnCannotDrop,
		"Cannot drop column '$1': needed in a foreign key constraint '$2'"},
	{regexp.MustCompile("^cannot drop index: `(.*)` is used by foreign key `.*`$"), erDropIndexFK,
		"Cannot drop index '$1': needed in a foreign key constraint"},
	{regexp.MustCompile(`^Unknown prepared statement handler \((.*)\) given to EXECUTE$`), errUnknownStmtCode,
		"Unknown prepared statement handler ($1) given to EXECUTE"},
	{regexp.MustCompile(`^an index with id "(.*)" has already been registered$`), mysql.ERDupKeyName, "Duplicate key name '$1'"},
	{regexp.MustCompile(`^column "(.*)" could not be found in any table in scope$`), mysql.ERBadFieldError, "Unknown column '$1'"},
	{regexp.MustCompile(`^number of values does not match number of columns provided$`), mysql.ERWrongValueCountOnRow,
		"Column count doesn't match value count at row 1"},
	{regexp.MustCompile("^cannot add or update a child row - Foreign key violation on fk: `(.*)`, table: `(.*)`, referenced table: `(.*)`, key: `.*`$"),
		mysql.ErNoReferencedRow2, "Cannot add or update a child row: a foreign key constraint fails (`$2`, CONSTRAINT `$1` REFERENCES `$3`)"},
	// The engine's privilege checks outside the authorization handler, and SET of a
	// global-only variable without GLOBAL: MySQL's numbers, the engine's words.
	{regexp.MustCompile(`^Access denied for user .* to database .*$`), mysql.ERDBAccessDenied, "$0"},
	{regexp.MustCompile(`^Access denied for user .* to table .*$`), errTableAccessDenied, "$0"},
	{regexp.MustCompile(`^command denied to user .*$`), mysql.ERSpecifiedAccessDenied, "$0"},
	{regexp.MustCompile(`^.* is a GLOBAL variable and should be set with SET GLOBAL$`), mysql.ERGlobalVariable, "$0"},
	{regexp.MustCompile("^cannot delete or update a parent row - Foreign key violation on fk: `(.*)`, table: `(.*)`, referenced table: `(.*)`, key: `.*`$"),
		mysql.ERRowIsReferenced2, "Cannot delete or update a parent row: a foreign key constraint fails (`$2`, CONSTRAINT `$1` REFERENCES `$3`)"},
}

// rewordable are the error numbers whose engine message engineMessages may replace.
var rewordable = map[int]bool{
	mysql.ERUnknownError: true, mysql.ERBadDb: true, mysql.ERNoSuchTable: true,
	mysql.ErNoReferencedRow2: true, mysql.ERRowIsReferenced2: true,
}

// clientError returns err as the client should see it: a *mysql.SQLError with MySQL's number,
// SQLSTATE and, for the engine's own wordings listed above, MySQL's message.
func clientError(err error) *mysql.SQLError {
	if err == nil {
		return nil
	}
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		se = sql.CastSQLError(err)
	}
	out := *se
	if rewordable[out.Num] {
		for _, m := range engineMessages {
			if sub := m.pattern.FindStringSubmatchIndex(out.Message); sub != nil {
				out.Message = string(m.pattern.ExpandString(nil, m.message, out.Message, sub))
				out.Num = m.number
				break
			}
		}
	}
	if out.State == mysql.SSUnknownSQLState || out.State == "" {
		if state, ok := sqlStates[out.Num]; ok {
			out.State = state
		}
	}
	return &out
}
