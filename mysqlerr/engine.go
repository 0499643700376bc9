package mysqlerr

import (
	"errors"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// engineMessage turns an engine message matching pattern into MySQL's number and message; the
// message is pattern's expansion template ($0, $1, ...), each part quoted at most QuotedValue
// bytes, the text near a syntax error QuotedSyntax (see clip.go).
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
	{regexp.MustCompile(`^context canceled$`), mysql.ERQueryInterrupted, "Query execution was interrupted"},
	// The parser's refusal of subqueries nested too deep, which the engine wraps.
	{regexp.MustCompile(`^(Too high level of nesting for select: .*) \(errno 1473\) \(sqlstate HY000\)$`), ERTooHighLevelOfNestingForSelect, "$1"},
	{regexp.MustCompile(`^Unknown table '(.*)'$`), mysql.ERBadTable, "Unknown table '$1'"},
	{regexp.MustCompile(`^table with name (.*) already exists$`), mysql.ERTableExists, "Table '$1' already exists"},
	// CREATE VIEW of a name in use: the in-memory database gives the name alone to a message
	// made for the database and the name ("the view v.%!s(MISSING) already exists").
	{regexp.MustCompile(`^the view (.*)\.%!s\(MISSING\) already exists$`), mysql.ERTableExists, "Table '$1' already exists"},
	{regexp.MustCompile(`^the view [^.]*\.(.*) already exists$`), mysql.ERTableExists, "Table '$1' already exists"},
	{regexp.MustCompile(`^Check constraint "(.*)" violated$`), ERCheckConstraintViolated, "Check constraint '$1' is violated."},
	{regexp.MustCompile(`^SAVEPOINT (.*) does not exist$`), mysql.ERSPDoesNotExist, "SAVEPOINT $1 does not exist"},
	{regexp.MustCompile(`^Duplicate key name '(.*)'$`), mysql.ERDupKeyName, "Duplicate key name '$1'"},
	{regexp.MustCompile("^cannot drop column `(.*)` as it is used in foreign key `(.*)`$"), ERFKColumnCannotDrop,
		"Cannot drop column '$1': needed in a foreign key constraint '$2'"},
	{regexp.MustCompile("^cannot drop index: `(.*)` is used by foreign key `.*`$"), ERDropIndexFK,
		"Cannot drop index '$1': needed in a foreign key constraint"},
	{regexp.MustCompile(`^Unknown prepared statement handler \((.*)\) given to EXECUTE$`), ERUnknownStmtHandler,
		"Unknown prepared statement handler ($1) given to EXECUTE"},
	{regexp.MustCompile(`^stored procedure "(.*)" does not exist$`), mysql.ERSPDoesNotExist, "PROCEDURE $1 does not exist"},
	{regexp.MustCompile(`^an index with id "(.*)" has already been registered$`), mysql.ERDupKeyName, "Duplicate key name '$1'"},
	{regexp.MustCompile(`^column "(.*)" could not be found in any table in scope$`), mysql.ERBadFieldError, "Unknown column '$1'"},
	{regexp.MustCompile(`^number of values does not match number of columns provided$`), mysql.ERWrongValueCountOnRow,
		"Column count doesn't match value count at row 1"},
	{regexp.MustCompile("^cannot add or update a child row - Foreign key violation on fk: `(.*)`, table: `(.*)`, referenced table: `(.*)`, key: `.*`$"),
		mysql.ErNoReferencedRow2, "Cannot add or update a child row: a foreign key constraint fails (`$2`, CONSTRAINT `$1` REFERENCES `$3`)"},
	// The engine's privilege checks outside the authorization handler, and SET of a
	// global-only variable without GLOBAL: MySQL's numbers, the engine's words.
	{regexp.MustCompile(`^Access denied for user .* to database .*$`), mysql.ERDBAccessDenied, "$0"},
	{regexp.MustCompile(`^Access denied for user .* to table .*$`), ERTableAccessDenied, "$0"},
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

// ForClient returns err as a client should see it: a *mysql.SQLError with MySQL's number,
// SQLSTATE and, for the engine wordings engineMessages lists, MySQL's message. An error that
// already has a SQLSTATE other than HY000 keeps it; what a message quotes is clipped, and no
// message is longer than MaxMessage bytes; nil stays nil.
func ForClient(err error) *mysql.SQLError {
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
			if parts := m.pattern.FindStringSubmatch(out.Message); parts != nil {
				out.Message = m.expand(parts)
				out.Num = m.number
				break
			}
		}
	}
	out.Message = clippedMessage(out.Message)
	if out.State == mysql.SSUnknownSQLState || out.State == "" {
		out.State = State(out.Num)
	}
	return &out
}

// expand is m's message with $i replaced by parts[i], clipped.
func (m engineMessage) expand(parts []string) string {
	quote := QuotedValue
	if m.number == mysql.ERParseError {
		quote = QuotedSyntax
	}
	var b strings.Builder
	for i := 0; i < len(m.message); i++ {
		c := m.message[i]
		if c == '$' && i+1 < len(m.message) && m.message[i+1] >= '0' && m.message[i+1] <= '9' {
			if n := int(m.message[i+1] - '0'); n < len(parts) {
				b.WriteString(Clipped(parts[n], quote))
			}
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
