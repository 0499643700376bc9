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
	reasonSystemTables     = "reads only system tables"
	reasonDescribe         = "describes a system table"
	reasonReloadConfig     = "SYSTEM RELOAD CONFIG"
	reasonTruncateWarnings = "TRUNCATE system.warnings"
)

// maxDepth bounds the parenthesis nesting Classify follows; deeper statements are not exempt.
const maxDepth = 64

// Classify decides whether a statement is exempt from overload rejection. currentDB is the
// session's current database, so that `SELECT * FROM warnings` after `USE system` reads only
// system tables. The answer is conservative: a statement that cannot be shown to be one of the
// exempt kinds is not exempt. Classify does not allocate.
func Classify(sql, currentDB string) Class {
	lx := lexer{sql: sql}
	first := lx.nextSignificant()
	if first.kind != kindWord {
		return Class{}
	}
	switch {
	case first.is(sql, "set"):
		return exemptIf(runsNoQuery(lx), reasonSet)
	case first.is(sql, "show"):
		return exemptIf(runsNoQuery(lx), reasonShow)
	case first.is(sql, "kill"):
		return exemptIf(runsNoQuery(lx), reasonKill)
	case first.is(sql, "use"):
		return exemptIf(runsNoQuery(lx), reasonUse)
	case first.is(sql, "commit"):
		return exemptIf(runsNoQuery(lx), reasonCommit)
	case first.is(sql, "rollback"):
		return exemptIf(runsNoQuery(lx), reasonRollback)
	case first.is(sql, "select"):
		if selectsOnlySystemVariables(lx) {
			return Class{Exempt: true, Reason: reasonVariables}
		}
		return exemptIf(readsOnlySystemTables(lx, currentDB), reasonSystemTables)
	case first.is(sql, "describe"), first.is(sql, "desc"), first.is(sql, "explain"):
		return describeClass(lx, currentDB)
	case first.is(sql, "truncate"):
		return exemptIf(truncatesWarnings(lx, currentDB), reasonTruncateWarnings)
	case first.is(sql, "system"):
		return exemptIf(isReloadConfig(lx), reasonReloadConfig)
	}
	return Class{}
}

// IsSystemReloadConfig reports whether the statement is SYSTEM RELOAD CONFIG (any case,
// whitespace and comments, optional trailing semicolon).
func IsSystemReloadConfig(sql string) bool {
	lx := lexer{sql: sql}
	return lx.nextSignificant().is(sql, "system") && isReloadConfig(lx)
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

// endsAfter reports whether t ends the statement and nothing but comments and one semicolon
// follows: a second statement in the same text is not classified, so it makes the text not exempt.
func (lx *lexer) endsAfter(t token) bool {
	if t.kind == kindEnd {
		return true
	}
	return t.isPunct(lx.sql, ';') && lx.nextSignificant().kind == kindEnd
}

// runsNoQuery reads the rest of a statement whose first word makes it exempt (SET, SHOW, ...) and
// reports whether it hides no query: a subquery (SET @a = (SELECT ...), SHOW ... WHERE x IN
// (SELECT ...)) is real work, and so is one inside a /*! ... */ comment, whose content the
// parser reads as SQL.
func runsNoQuery(lx lexer) bool {
	sql := lx.sql
	for {
		t := lx.nextSignificant()
		switch {
		case t.kind == kindEnd:
			return true
		case t.isPunct(sql, ';'):
			return lx.nextSignificant().kind == kindEnd
		case t.is(sql, "select"), t.is(sql, "table"), t.is(sql, "with"):
			return false
		case t.kind == kindVersionComment:
			if !runsNoQuery(lexer{sql: versionCommentSQL(t.text(sql))}) {
				return false
			}
		}
	}
}

// versionCommentSQL returns the SQL inside /*!12345 ... */.
func versionCommentSQL(comment string) string {
	body := comment[len("/*!"):]
	if len(body) >= 2 && body[len(body)-2:] == "*/" {
		body = body[:len(body)-2]
	}
	return body[scanDigits(body, 0):]
}

// selectsOnlySystemVariables reads the rest of a SELECT and reports whether it is only a list of
// system variables with optional aliases: SELECT @@x, @@session.y AS z.
func selectsOnlySystemVariables(lx lexer) bool {
	sql := lx.sql
	for {
		t := lx.nextSignificant()
		if t.kind != kindVariable || t.end-t.start < 3 || sql[t.start+1] != '@' {
			return false
		}
		t = lx.nextSignificant()
		if t.is(sql, "as") {
			t = lx.nextSignificant()
			if !isAlias(sql, t) {
				return false
			}
			t = lx.nextSignificant()
		} else if isAlias(sql, t) {
			t = lx.nextSignificant()
		}
		if !t.isPunct(sql, ',') {
			return lx.endsAfter(t)
		}
	}
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

// readsOnlySystemTables reads the rest of a SELECT and reports whether it reads at least one
// table and only tables of the system databases. Table references follow FROM, JOIN, and commas
// of a FROM list, at any nesting depth (subqueries, derived tables, parenthesized joins).
func readsOnlySystemTables(lx lexer, currentDB string) bool {
	sql := lx.sql
	depth := 0
	var fromList uint64 // bit d: the tokens at depth d are in a FROM list
	expectTable := false
	readsSystem := false
	for {
		t := lx.nextSignificant()
		if expectTable {
			expectTable = false
			switch {
			case t.isPunct(sql, '('):
				// A derived table or a parenthesized join: a table list inside.
				depth++
				if depth >= maxDepth {
					return false
				}
				fromList |= 1 << depth
				expectTable = true
				continue
			case t.is(sql, "lateral"):
				expectTable = true
				continue
			case t.is(sql, "select"), t.is(sql, "with"), t.is(sql, "table"), t.is(sql, "values"):
				// A subquery: handled below like any other statement word.
			case t.is(sql, "dual"):
				continue
			default:
				system, ok := tableInSystemDB(&lx, t, currentDB)
				if !ok || !system {
					return false
				}
				if next := lx.peekSignificant(); next.isPunct(sql, '(') || next.isPunct(sql, '.') {
					return false
				}
				readsSystem = true
				continue
			}
		}
		switch {
		case t.kind == kindEnd:
			return readsSystem && depth == 0
		case t.isPunct(sql, ';'):
			return readsSystem && depth == 0 && lx.nextSignificant().kind == kindEnd
		case t.kind == kindVersionComment:
			return false
		case t.isPunct(sql, '('):
			depth++
			if depth >= maxDepth {
				return false
			}
			fromList &^= 1 << depth
		case t.isPunct(sql, ')'):
			fromList &^= 1 << depth
			depth--
			if depth < 0 {
				return false
			}
		case t.isPunct(sql, ','):
			expectTable = fromList&(1<<depth) != 0
		case t.is(sql, "from"):
			fromList |= 1 << depth
			expectTable = true
		case t.is(sql, "join"):
			if fromList&(1<<depth) == 0 {
				return false
			}
			expectTable = true
		case t.is(sql, "straight_join"):
			// Also a SELECT option (SELECT STRAIGHT_JOIN ...), where no table follows.
			expectTable = fromList&(1<<depth) != 0
		case t.is(sql, "select"):
			fromList &^= 1 << depth
		case t.is(sql, "where"), t.is(sql, "group"), t.is(sql, "having"), t.is(sql, "order"),
			t.is(sql, "limit"), t.is(sql, "window"), t.is(sql, "union"), t.is(sql, "except"),
			t.is(sql, "intersect"):
			// Clauses after the FROM list: their commas separate expressions, not tables.
			fromList &^= 1 << depth
		case t.is(sql, "into"), t.is(sql, "with"), t.is(sql, "table"):
			// INTO OUTFILE writes; WITH and TABLE bring names this scan does not resolve.
			return false
		}
	}
}

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
		return exemptIf(readsOnlySystemTables(lx, currentDB), reasonSystemTables)
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
// system.warnings.
func truncatesWarnings(lx lexer, currentDB string) bool {
	sql := lx.sql
	t := lx.nextSignificant()
	if t.is(sql, "table") {
		t = lx.nextSignificant()
	}
	name, ok := t.name(sql)
	if !ok {
		return false
	}
	db := currentDB
	if lx.peekSignificant().isPunct(sql, '.') {
		lx.nextSignificant()
		db = name
		if name, ok = lx.nextSignificant().name(sql); !ok {
			return false
		}
	}
	return equalFoldASCII(db, "system") && equalFoldASCII(name, "warnings") && lx.endsAfter(lx.nextSignificant())
}

// IsTruncateWarnings reports whether the statement is TRUNCATE [TABLE] system.warnings (any
// case, quoting, whitespace and comments, optional trailing semicolon; `warnings` alone when
// currentDB is system), the statement the server answers itself.
func IsTruncateWarnings(sql, currentDB string) bool {
	lx := lexer{sql: sql}
	return lx.nextSignificant().is(sql, "truncate") && truncatesWarnings(lx, currentDB)
}
