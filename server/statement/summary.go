package statement

// Summary is what the server needs to know about one statement before the engine parses it,
// read from its text once by [Summarize]. Every decision on the way in (the diagnostics area,
// savepoints, overloadsql's own statements, SET_VAR hints, the overload and admission checks)
// is made from it, so a statement's text is not scanned again by each of them.
//
// What the leading words decide is read at once; what only some statements need is read when
// first asked and kept: the exemption (it depends on the session's current database and is asked
// only of a statement about to be rejected or queued), the SET_VAR hints, and whether the text
// names the overload thresholds. A Summary belongs to one goroutine, the connection's.
type Summary struct {
	sql   string
	verb  token // the first significant token
	after lexer // positioned right after verb

	transaction   Transaction
	savepointName string
	diagnostics   Diagnostics
	setsOrCalls   bool // SET or CALL, after any opening parentheses
	reloadConfig  bool
	backup        token // SYSTEM BACKUP TO 'dir': the string token; kindEnd when not such a statement
	hinted        bool  // a /*+ ... */ comment follows the first keyword

	// TRUNCATE [TABLE] [db.]warnings: truncateDB is "" when the name is unqualified.
	truncatesWarnings bool
	truncateDB        string

	session sessionSelect // SELECT of session state only

	hintsRead bool
	hints     []Hint

	exemptRead bool
	exemptDB   string
	exempt     Class

	thresholdsRead  bool
	namesThresholds bool

	storageRead bool
	storage     Storage
}

// Summarize reads a statement's leading words once and returns its summary. It does not
// allocate.
func Summarize(sql string) Summary {
	s := Summary{sql: sql}
	lx := lexer{sql: sql}
	s.verb = lx.nextSignificant()
	s.after = lx
	first := s.verb
	s.setsOrCalls = setsOrCalls(sql, first, lx)
	switch {
	case first.kind != kindWord:
	case first.is(sql, "select"):
		s.session = selectsOnlySessionState(lx)
		if s.session.ok && s.session.onlyVariables && s.session.namesCounts {
			s.diagnostics = ReadsDiagnostics
		}
		s.hinted = hintFollows(lx)
	case first.is(sql, "insert"), first.is(sql, "replace"), first.is(sql, "update"), first.is(sql, "delete"):
		s.hinted = hintFollows(lx)
	case first.is(sql, "show"):
		s.diagnostics = showDiagnostics(lx)
	case first.is(sql, "savepoint"), first.is(sql, "release"), first.is(sql, "rollback"),
		first.is(sql, "commit"), first.is(sql, "begin"), first.is(sql, "start"):
		s.transaction, s.savepointName = transaction(first, lx)
	case first.is(sql, "system"):
		s.reloadConfig = isReloadConfig(lx)
		if !s.reloadConfig {
			s.backup = backupTarget(lx)
		}
	case first.is(sql, "truncate"):
		s.truncateDB, s.truncatesWarnings = truncatesWarnings(lx)
	}
	return s
}

// Text is the statement's text.
func (s *Summary) Text() string { return s.sql }

// Transaction is the statement's effect on savepoints and, for the savepoint statements, the
// savepoint's name (backquotes removed). A savepoint statement with anything after the name is
// OtherStatement, left for the engine to refuse.
func (s *Summary) Transaction() (Transaction, string) { return s.transaction, s.savepointName }

// Diagnostics tells what the statement does with the diagnostics area, the way MySQL treats it.
func (s *Summary) Diagnostics() Diagnostics { return s.diagnostics }

// MayChangeSettings reports whether the statement may set the server's globals: a SET, or a
// CALL of a procedure that may run one.
func (s *Summary) MayChangeSettings() bool { return s.setsOrCalls }

// Persists is a first look for SET PERSIST / SET @@persist.x: a SET that mentions persist.
func (s *Summary) Persists() bool {
	return s.verb.is(s.sql, "set") && containsFoldASCII(s.sql, "persist")
}

// NamesThresholds reports whether the text mentions a setting whose name ends in _to_throw (the
// overload thresholds), in any case: after such a statement the session's thresholds are read
// again. The whole text is searched, on the first call only.
func (s *Summary) NamesThresholds() bool {
	if !s.thresholdsRead {
		s.namesThresholds = containsFoldASCII(s.sql, "_to_throw")
		s.thresholdsRead = true
	}
	return s.namesThresholds
}

// IsSystemReloadConfig reports whether the statement is SYSTEM RELOAD CONFIG (any case,
// whitespace and comments, optional trailing semicolon).
func (s *Summary) IsSystemReloadConfig() bool { return s.reloadConfig }

// SystemBackup reports whether the statement is SYSTEM BACKUP TO 'dir' (any case, whitespace
// and comments, optional trailing semicolon) and returns dir with the string's escapes read as
// MySQL reads them.
func (s *Summary) SystemBackup() (dir string, ok bool) {
	if s.backup.kind != kindString {
		return "", false
	}
	return stringValue(s.backup.text(s.sql)), true
}

// IsTruncateWarnings reports whether the statement is TRUNCATE [TABLE] system.warnings (any
// case, quoting, whitespace and comments, optional trailing semicolon; `warnings` alone when
// currentDB is system), the statement the server answers itself.
func (s *Summary) IsTruncateWarnings(currentDB string) bool {
	if !s.truncatesWarnings {
		return false
	}
	db := s.truncateDB
	if db == "" {
		db = currentDB
	}
	return equalFoldASCII(db, "system")
}

// Hints returns the statement's SET_VAR hints, nil when there are none. As in MySQL, a hint
// comment counts only right after the statement's first keyword (SELECT, INSERT, REPLACE,
// UPDATE, DELETE); one comment may hold several SET_VAR(...) and other hints beside them, and a
// malformed hint is ignored. The hints are read on the first call; that allocates only when there
// are some.
func (s *Summary) Hints() []Hint {
	if s.hinted && !s.hintsRead {
		s.hints = readHints(s.after)
		s.hintsRead = true
	}
	return s.hints
}

// Exempt decides whether the statement is exempt from overload rejection (see [Class]).
// currentDB is the session's current database, so that `SELECT * FROM warnings` after `USE
// system` reads only system tables. The answer is conservative: a statement that cannot be
// shown to be one of the exempt kinds, cheap by construction, is not exempt. The statement is
// read on the first call (for that database) only; Exempt does not allocate.
func (s *Summary) Exempt(currentDB string) Class {
	if !s.exemptRead || s.exemptDB != currentDB {
		s.exempt = s.classify(currentDB)
		s.exemptDB, s.exemptRead = currentDB, true
	}
	return s.exempt
}

// setsOrCalls reports whether the first word, after any opening parentheses, is SET or CALL.
func setsOrCalls(sql string, first token, lx lexer) bool {
	for first.isPunct(sql, '(') {
		first = lx.nextSignificant()
	}
	return first.is(sql, "set") || first.is(sql, "call")
}

// hintFollows reports whether a /*+ ... */ comment follows the first keyword (comments aside).
func hintFollows(lx lexer) bool {
	for {
		switch lx.next().kind {
		case kindComment:
		case kindHint:
			return true
		default:
			return false
		}
	}
}
