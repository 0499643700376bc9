package statement

// Class tells what the overload check needs to know about a statement.
type Class struct {
	Exempt bool   // never rejected under overload
	Reason string // why exempt, e.g. "SET", "SHOW", "reads only system tables"; "" when not exempt
}

// Reasons for exemption. Constants, so that classifying never allocates.
const (
	reasonSet              = "SET"
	reasonShow             = "SHOW"
	reasonKill             = "KILL"
	reasonUse              = "USE"
	reasonCommit           = "COMMIT"
	reasonRollback         = "ROLLBACK"
	reasonVariables        = "reads only system variables"
	reasonSession          = "reads only session state"
	reasonSystemTables     = "reads only system tables"
	reasonDescribe         = "describes a system table"
	reasonReloadConfig     = "SYSTEM RELOAD CONFIG"
	reasonTruncateWarnings = "TRUNCATE system.warnings"
)

// maxDepth bounds the parenthesis nesting Classify follows; deeper statements are not exempt.
const maxDepth = 64

// classify decides whether the statement is exempt from overload rejection (see
// Summary.Exempt).
func (s *Summary) classify(currentDB string) Class {
	sql, first, lx := s.sql, s.verb, s.after
	if first.kind != kindWord {
		return Class{}
	}
	switch {
	case first.is(sql, "set"):
		return exemptIf(cheapRest(lx), reasonSet)
	case first.is(sql, "show"):
		return exemptIf(cheapRest(lx), reasonShow)
	case first.is(sql, "kill"):
		return exemptIf(cheapRest(lx), reasonKill)
	case first.is(sql, "use"):
		return exemptIf(cheapRest(lx), reasonUse)
	case first.is(sql, "commit"):
		return exemptIf(cheapRest(lx), reasonCommit)
	case first.is(sql, "rollback"):
		return exemptIf(cheapRest(lx), reasonRollback)
	case first.is(sql, "select"):
		if s.session.ok {
			if s.session.onlyVariables {
				return Class{Exempt: true, Reason: reasonVariables}
			}
			return Class{Exempt: true, Reason: reasonSession}
		}
		return exemptIf(readsOneSystemTable(lx, currentDB), reasonSystemTables)
	case first.is(sql, "describe"), first.is(sql, "desc"), first.is(sql, "explain"):
		return describeClass(lx, currentDB)
	case first.is(sql, "truncate"):
		return exemptIf(s.IsTruncateWarnings(currentDB), reasonTruncateWarnings)
	case first.is(sql, "system"):
		return exemptIf(s.reloadConfig, reasonReloadConfig)
	}
	return Class{}
}

func exemptIf(exempt bool, reason string) Class {
	if !exempt {
		return Class{}
	}
	return Class{Exempt: true, Reason: reason}
}

// isReloadConfig reads RELOAD CONFIG and the end of the statement.
func isReloadConfig(lx lexer) bool {
	sql := lx.sql
	return lx.nextSignificant().is(sql, "reload") &&
		lx.nextSignificant().is(sql, "config") &&
		lx.endsAfter(lx.nextSignificant())
}

// backupTarget reads BACKUP TO 'dir' and the end of the statement, and returns the string's
// token; a token of kindEnd when the statement is something else.
func backupTarget(lx lexer) token {
	sql := lx.sql
	if !lx.nextSignificant().is(sql, "backup") || !lx.nextSignificant().is(sql, "to") {
		return token{}
	}
	dir := lx.nextSignificant()
	if dir.kind != kindString || (sql[dir.start] != '\'' && sql[dir.start] != '"') || !lx.endsAfter(lx.nextSignificant()) {
		return token{}
	}
	return dir
}

// stringValue is the value of a quoted string token as MySQL reads it: a doubled quote is one
// quote, and a backslash escapes the next character (\n, \t, \0, ... as in MySQL; \% and \_
// keep their backslash).
func stringValue(tok string) string {
	q := tok[0]
	body := tok[1:]
	if len(body) > 0 && body[len(body)-1] == q {
		body = body[:len(body)-1]
	}
	var b []byte
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == q && i+1 < len(body) && body[i+1] == q:
			i++
		case c == '\\' && i+1 < len(body):
			i++
			switch e := body[i]; e {
			case '0':
				c = 0
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'Z':
				c = 26
			case '%', '_':
				b = append(b, '\\')
				c = e
			default:
				c = e
			}
		}
		b = append(b, c)
	}
	return string(b)
}

// endsAfter reports whether t ends the statement and nothing but comments and one semicolon
// follows: a second statement in the same text is not classified, so it makes the text not exempt.
func (lx *lexer) endsAfter(t token) bool {
	if t.kind == kindEnd {
		return true
	}
	return t.isPunct(lx.sql, ';') && lx.nextSignificant().kind == kindEnd
}

// cheapRest reads the rest of a statement whose first word may make it exempt (SET, SHOW, ...)
// and reports whether it is cheap by construction: it hides no query (SET @a = (SELECT ...),
// SET @a = (TABLE t), SHOW ... WHERE x IN (SELECT ...)), calls only cheap functions, matches no
// regular expression, and is one statement. A /*! ... */ comment counts with its content, which
// the parser reads as SQL.
func cheapRest(lx lexer) bool { return cheapRestIn(lx, false) }

// cheapRestIn is cheapRest; nested is set inside a version comment, where a nested one makes the
// statement not cheap without being read (reading each level again cost the text's length per
// level).
func cheapRestIn(lx lexer, nested bool) bool {
	sql := lx.sql
	var prev token
	depth := 0
	for {
		t := lx.nextSignificant()
		switch {
		case t.kind == kindEnd:
			return depth == 0
		case t.isPunct(sql, ';'):
			return depth == 0 && lx.nextSignificant().kind == kindEnd
		case t.kind == kindVersionComment:
			if nested || !cheapRestIn(lexer{sql: versionCommentSQL(t.text(sql))}, true) {
				return false
			}
		case t.isPunct(sql, '('):
			if depth++; depth > maxDepth {
				return false
			}
		case t.isPunct(sql, ')'):
			if depth--; depth < 0 {
				return false
			}
		case !cheapToken(&lx, prev, t):
			return false
		}
		prev = t
	}
}

// cheapToken reports whether t, read after prev, keeps a statement cheap by construction: it
// does not start a query (SELECT, WITH, VALUES, LATERAL, or TABLE where a subquery may start),
// is no regular-expression operator, and if it calls a function (a name followed by '('), the
// function is one of cheapFunctions. A qualified name (db.f()) is a stored function and a
// quoted name (`f`()) may be one: neither is cheap by construction.
func cheapToken(lx *lexer, prev, t token) bool {
	sql := lx.sql
	switch t.kind {
	case kindWord:
		if isAnyWord(sql, t, queryWords) || isAnyWord(sql, t, regexpOperators) {
			return false
		}
		if t.is(sql, "table") && (prev.isPunct(sql, '(') || isAnyWord(sql, prev, setOperators)) {
			return false
		}
	case kindQuoted:
	default:
		return true
	}
	if !lx.peekSignificant().isPunct(sql, '(') {
		return true
	}
	if t.kind == kindQuoted || prev.isPunct(sql, '.') {
		return false
	}
	return isAnyWord(sql, t, cheapFunctions) || isAnyWord(sql, t, wordsBeforeParenthesis)
}

// queryWords start a query wherever they stand.
var queryWords = []string{"select", "with", "values", "lateral"}

// setOperators join queries; TABLE after one of them is a query.
var setOperators = []string{"union", "except", "intersect"}

// regexpOperators match a regular expression, whose cost the pattern decides.
var regexpOperators = []string{"regexp", "rlike"}

// cheapFunctions is the allow-list of functions an exempt statement may call: each takes time
// and memory linear in its arguments, which the statement's own text bounds, and none waits,
// loops, repeats, pads or matches a regular expression. Any other function makes a statement
// ordinary work.
var cheapFunctions = []string{
	// Session state.
	"database", "schema", "user", "current_user", "session_user", "system_user", "version",
	"connection_id", "last_insert_id", "found_rows", "row_count",
	// Time.
	"now", "current_timestamp", "localtime", "localtimestamp", "utc_timestamp", "unix_timestamp",
	"curdate", "current_date", "curtime", "current_time", "utc_date", "utc_time",
	// Conversions and conditions.
	"cast", "convert", "coalesce", "ifnull", "if", "nullif", "isnull", "default",
	// Numbers and strings, output no longer than the input.
	"abs", "floor", "ceil", "ceiling", "round", "sign", "greatest", "least",
	"lower", "lcase", "upper", "ucase", "length", "char_length", "character_length", "trim",
	// Aggregates over the one system table a SELECT may read.
	"count", "sum", "min", "max", "avg",
}

// wordsBeforeParenthesis are keywords that a parenthesis may follow without a function call.
var wordsBeforeParenthesis = []string{
	"and", "or", "xor", "not", "in", "is", "like", "between", "when", "then", "else", "case",
	"where", "having", "by", "on", "interval", "binary", "div", "mod", "row", "exists", "any",
	"some", "all", "as", "set", "limit", "index", "key",
	// Types in CAST(x AS CHAR(10)) and CONVERT(x, DECIMAL(10, 2)).
	"char", "nchar", "decimal", "datetime", "time", "date", "float", "double",
}

// isAnyWord reports whether t is one of the lower-case words.
func isAnyWord(sql string, t token, words []string) bool {
	if t.kind != kindWord {
		return false
	}
	for _, w := range words {
		if t.is(sql, w) {
			return true
		}
	}
	return false
}

// versionCommentSQL returns the SQL inside /*!12345 ... */.
func versionCommentSQL(comment string) string {
	body := comment[len("/*!"):]
	if len(body) >= 2 && body[len(body)-2:] == "*/" {
		body = body[:len(body)-2]
	}
	return body[scanDigits(body, 0):]
}

// sessionSelect is what selectsOnlySessionState finds in a SELECT.
type sessionSelect struct {
	ok            bool // only system variables and session-introspection calls, no FROM
	onlyVariables bool // no call
	namesCounts   bool // @@warning_count or @@error_count among the variables
}

// selectsOnlySessionState reads the rest of a SELECT and reports whether it is only a list of
// system variables and session-introspection calls without arguments, with optional aliases and
// no FROM: SELECT @@x, DATABASE(), CONNECTION_ID() AS id.
func selectsOnlySessionState(lx lexer) sessionSelect {
	sql := lx.sql
	found := sessionSelect{onlyVariables: true}
	for {
		t := lx.nextSignificant()
		switch {
		case t.kind == kindVariable && t.end-t.start >= 3 && sql[t.start+1] == '@':
			found.namesCounts = found.namesCounts || namesDiagnosticCount(t.text(sql))
		case isAnyWord(sql, t, sessionFunctions) && lx.nextSignificant().isPunct(sql, '(') &&
			lx.nextSignificant().isPunct(sql, ')'):
			found.onlyVariables = false
		default:
			return sessionSelect{}
		}
		t = lx.nextSignificant()
		if t.is(sql, "as") {
			t = lx.nextSignificant()
			if !isAlias(sql, t) {
				return sessionSelect{}
			}
			t = lx.nextSignificant()
		} else if isAlias(sql, t) {
			t = lx.nextSignificant()
		}
		if !t.isPunct(sql, ',') {
			found.ok = lx.endsAfter(t)
			if !found.ok {
				return sessionSelect{}
			}
			return found
		}
	}
}

// sessionFunctions read the session's own state: what a connection pool asks a new connection.
// (SELECT 1 and SELECT NOW() are ordinary work: clients probe a server with them.)
var sessionFunctions = []string{
	"database", "schema", "user", "current_user", "session_user", "system_user", "version",
	"connection_id", "last_insert_id", "found_rows", "row_count",
}

// isAlias reports whether t can name a select-list column. FROM and INTO are never aliases: they
// start clauses.
func isAlias(sql string, t token) bool {
	switch t.kind {
	case kindQuoted, kindString:
		return true
	case kindWord:
		return !t.is(sql, "from") && !t.is(sql, "into")
	}
	return false
}

// readsOneSystemTable reads the rest of a SELECT and reports whether it reads exactly one
// table, of a system database, and is cheap by construction: no join (JOIN or a comma in the
// FROM list), no subquery or derived table, no UNION, no INTO, no window, and only cheap
// function calls (see cheapToken).
func readsOneSystemTable(lx lexer, currentDB string) bool {
	sql := lx.sql
	depth := 0
	tables := 0
	inFrom := false // between FROM and the next clause, at depth 0
	var prev token
	for {
		t := lx.nextSignificant()
		switch {
		case t.kind == kindEnd:
			return tables == 1 && depth == 0
		case t.isPunct(sql, ';'):
			return tables == 1 && depth == 0 && lx.nextSignificant().kind == kindEnd
		case t.kind == kindVersionComment:
			return false
		case t.isPunct(sql, '('):
			if depth++; depth > maxDepth {
				return false
			}
		case t.isPunct(sql, ')'):
			if depth--; depth < 0 {
				return false
			}
		case t.isPunct(sql, ','):
			if inFrom && depth == 0 {
				return false
			}
		case depth == 0 && t.is(sql, "from"):
			if tables > 0 {
				return false
			}
			system, ok := tableInSystemDB(&lx, lx.nextSignificant(), currentDB)
			if !ok || !system {
				return false
			}
			if next := lx.peekSignificant(); next.isPunct(sql, '(') || next.isPunct(sql, '.') {
				return false
			}
			tables++
			inFrom = true
			prev = t
			continue
		case isAnyWord(sql, t, joinWords):
			return false
		case isAnyWord(sql, t, clauseWords):
			inFrom = false
		case !cheapToken(&lx, prev, t):
			return false
		}
		prev = t
	}
}

// joinWords add tables, rows or side effects to a SELECT.
var joinWords = []string{
	"join", "straight_join", "union", "except", "intersect", "into", "table", "dual", "over",
	"window", "for",
}

// clauseWords end a FROM list: the commas after them separate expressions, not tables.
var clauseWords = []string{"where", "group", "having", "order", "limit"}

// tableInSystemDB reads a table name that starts with t (name or db.name) and reports whether
// its database is a system database; ok is false when t does not start a table name.
func tableInSystemDB(lx *lexer, t token, currentDB string) (system, ok bool) {
	name, ok := t.name(lx.sql)
	if !ok {
		return false, false
	}
	if !lx.peekSignificant().isPunct(lx.sql, '.') {
		return isSystemDB(currentDB), true
	}
	lx.nextSignificant()
	if _, ok := lx.nextSignificant().name(lx.sql); !ok {
		return false, false
	}
	return isSystemDB(name), true
}

// isSystemDB reports whether db is one of the read-only databases an operator inspects.
func isSystemDB(db string) bool {
	return equalFoldASCII(db, "system") || equalFoldASCII(db, "information_schema")
}

// describeClass classifies DESCRIBE/DESC/EXPLAIN: exempt for a system table
// (DESC system.warnings [column]) or for a SELECT that reads only system tables.
func describeClass(lx lexer, currentDB string) Class {
	sql := lx.sql
	t := lx.nextSignificant()
	for {
		switch {
		case t.is(sql, "extended"), t.is(sql, "partitions"), t.is(sql, "analyze"):
			t = lx.nextSignificant()
			continue
		case t.is(sql, "format"):
			if !lx.nextSignificant().isPunct(sql, '=') {
				return Class{}
			}
			lx.nextSignificant()
			t = lx.nextSignificant()
			continue
		}
		break
	}
	if t.is(sql, "select") {
		return exemptIf(readsOneSystemTable(lx, currentDB), reasonSystemTables)
	}
	system, ok := tableInSystemDB(&lx, t, currentDB)
	if !ok || !system {
		return Class{}
	}
	t = lx.nextSignificant()
	if t.kind == kindWord || t.kind == kindQuoted || t.kind == kindString {
		t = lx.nextSignificant() // a column name or pattern
	}
	return exemptIf(lx.endsAfter(t), reasonDescribe)
}

// truncatesWarnings reads the rest of TRUNCATE [TABLE] name and reports whether the table is
// called warnings and db, the database that qualifies it ("" when unqualified).
func truncatesWarnings(lx lexer) (db string, ok bool) {
	sql := lx.sql
	t := lx.nextSignificant()
	if t.is(sql, "table") {
		t = lx.nextSignificant()
	}
	name, ok := t.name(sql)
	if !ok {
		return "", false
	}
	if lx.peekSignificant().isPunct(sql, '.') {
		lx.nextSignificant()
		db = name
		if name, ok = lx.nextSignificant().name(sql); !ok || db == "" {
			return "", false
		}
	}
	return db, equalFoldASCII(name, "warnings") && lx.endsAfter(lx.nextSignificant())
}
