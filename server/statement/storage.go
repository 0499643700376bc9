package statement

// Storage is what a statement may do to the stored tables and to the session's transaction, as
// far as the server's write lock needs to know (see Summary.Storage).
type Storage int

const (
	// ReadsStorage: changes no stored data, locks no rows and ends no transaction. SELECT, TABLE
	// and VALUES (also behind a WITH clause or opening parentheses), SHOW, DESCRIBE, EXPLAIN, DO,
	// USE, KILL and SET (except SET autocommit), without a locking clause anywhere.
	ReadsStorage Storage = iota
	// WritesStorage: may change stored data or a table's definition, or locks rows: every
	// statement that is neither of the other kinds, and every read with a locking clause (FOR
	// UPDATE / FOR SHARE / LOCK IN SHARE MODE) anywhere, as in SET @v = (SELECT ... FOR UPDATE).
	WritesStorage
	// EndsTransaction: may end the session's transaction (commit or roll it back) without
	// writing itself: BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SET autocommit, LOCK TABLES and
	// UNLOCK TABLES.
	EndsTransaction
)

// Storage tells what the statement may do to the stored tables and the session's transaction.
// A statement that starts with a /*!NNNNN ... */ comment is judged by the SQL inside it. The
// first call reads a read to its end, looking for a locking clause; later calls cost nothing.
func (s *Summary) Storage() Storage {
	if !s.storageRead {
		s.storage = s.readStorage()
		s.storageRead = true
	}
	return s.storage
}

func (s *Summary) readStorage() Storage {
	sql, first := s.sql, s.verb
	switch {
	case first.kind == kindVersionComment:
		inner, rest, _ := s.versionCommentInner()
		if inner == nil {
			return WritesStorage
		}
		if st := inner.Storage(); st != ReadsStorage || !locksRows(rest) {
			return st
		}
		return WritesStorage // a locking clause after the comment: /*!50000 SELECT 1 */ FOR UPDATE
	case s.transaction == TransactionBoundary:
		return EndsTransaction
	case first.is(sql, "lock"), first.is(sql, "unlock"):
		return EndsTransaction
	case first.is(sql, "set") && containsFoldASCII(sql, "autocommit"):
		return EndsTransaction
	case !s.readOnlyVerb() && !s.isQuery():
		return WritesStorage
	case locksRows(s.after):
		// A locking read in any read: SELECT ... FOR UPDATE, SET @v = (SELECT ... FOR UPDATE).
		return WritesStorage
	}
	return ReadsStorage
}

// readOnlyWords start the statements that never change data.
var readOnlyWords = []string{"select", "show", "describe", "desc", "explain", "set", "use", "do", "kill", "lock", "unlock", "savepoint", "release"}

// readOnlyVerb reports whether the first word is one of readOnlyWords, or there is none.
func (s *Summary) readOnlyVerb() bool {
	for _, word := range readOnlyWords {
		if s.verb.is(s.sql, word) {
			return true
		}
	}
	return s.verb.kind == kindEnd
}

// isQuery reports whether a statement that starts with neither SELECT nor another read-only
// word is a query all the same: TABLE t, VALUES ROW(...), or a query behind opening parentheses
// ((SELECT ...) UNION (SELECT ...)) or behind a WITH clause.
func (s *Summary) isQuery() bool {
	sql, lx := s.sql, s.after
	t := skipOpening(&lx, s.verb)
	if t.is(sql, "with") {
		t = skipOpening(&lx, afterWith(&lx))
	}
	return t.is(sql, "select") || t.is(sql, "table") || t.is(sql, "values")
}

// skipOpening returns the first token from t on that is not an opening parenthesis.
func skipOpening(lx *lexer, t token) token {
	for t.isPunct(lx.sql, '(') {
		t = lx.nextSignificant()
	}
	return t
}

// afterWith reads a WITH clause, lx just after WITH, and returns the token that follows its
// last common table expression: the first word of the statement it introduces. A clause it
// cannot read gives the end token.
func afterWith(lx *lexer) token {
	sql := lx.sql
	t := lx.nextSignificant()
	if t.is(sql, "recursive") {
		t = lx.nextSignificant()
	}
	for {
		if _, ok := t.name(sql); !ok {
			return token{}
		}
		t = lx.nextSignificant()
		if t.isPunct(sql, '(') { // the column list
			if !skipParenthesized(lx) {
				return token{}
			}
			t = lx.nextSignificant()
		}
		if !t.is(sql, "as") || !lx.nextSignificant().isPunct(sql, '(') || !skipParenthesized(lx) {
			return token{}
		}
		if t = lx.nextSignificant(); !t.isPunct(sql, ',') {
			return t
		}
		t = lx.nextSignificant()
	}
}

// skipParenthesized reads up to the parenthesis that closes the one just read; false when the
// text ends first.
func skipParenthesized(lx *lexer) bool {
	for depth := 1; depth > 0; {
		switch t := lx.nextSignificant(); {
		case t.kind == kindEnd:
			return false
		case t.isPunct(lx.sql, '('):
			depth++
		case t.isPunct(lx.sql, ')'):
			depth--
		}
	}
	return true
}

// locksRows reports whether a statement has a locking read clause: FOR UPDATE, FOR SHARE or LOCK
// IN SHARE MODE, anywhere after the first word (a subquery's clause locks too), also inside a
// version comment (one nested in it counts as one, without being read).
func locksRows(lx lexer) bool { return locksRowsIn(lx, false) }

func locksRowsIn(lx lexer, nested bool) bool {
	sql := lx.sql
	for t := lx.nextSignificant(); t.kind != kindEnd; t = lx.nextSignificant() {
		switch {
		case t.kind == kindVersionComment:
			if nested || locksRowsIn(lexer{sql: versionCommentSQL(t.text(sql))}, true) {
				return true
			}
		case t.is(sql, "for"):
			if next := lx.peekSignificant(); next.is(sql, "update") || next.is(sql, "share") {
				return true
			}
		case t.is(sql, "lock"):
			if lx.peekSignificant().is(sql, "in") {
				return true
			}
		}
	}
	return false
}

// CommitsImplicitly reports whether MySQL commits the open transaction before the statement and
// the statement's own work after it: data definition (CREATE, ALTER, DROP, RENAME, TRUNCATE,
// but not CREATE / DROP TEMPORARY TABLE), account management (GRANT, REVOKE) and
// administration (ANALYZE, CHECK, OPTIMIZE, REPAIR, CACHE INDEX, FLUSH). A statement that starts
// with a /*!NNNNN ... */ comment is judged by the SQL inside it.
func (s *Summary) CommitsImplicitly() bool {
	if inner, _, ok := s.versionCommentInner(); ok {
		return inner != nil && inner.CommitsImplicitly()
	}
	sql, first := s.sql, s.verb
	if first.is(sql, "create") || first.is(sql, "drop") {
		lx := s.after
		return !lx.nextSignificant().is(sql, "temporary")
	}
	for _, verb := range []string{"alter", "rename", "truncate", "grant", "revoke", "analyze", "check", "optimize", "repair", "cache", "flush"} {
		if first.is(sql, verb) {
			return true
		}
	}
	return false
}

// ExecutedName reads EXECUTE name [USING ...] and returns the name of the prepared statement it
// runs, whose text the statement stands for (as for CommitsImplicitly); ok is false for any
// other statement. A statement that starts with a /*!NNNNN ... */ comment is judged by the SQL
// inside it.
func (s *Summary) ExecutedName() (name string, ok bool) {
	if inner, _, isComment := s.versionCommentInner(); isComment {
		if inner == nil {
			return "", false
		}
		return inner.ExecutedName()
	}
	if !s.verb.is(s.sql, "execute") {
		return "", false
	}
	lx := s.after
	return lx.nextSignificant().name(s.sql)
}

// versionCommentInner is the summary of the statement that a leading /*!NNNNN ... */ comment
// stands for: the SQL inside the comment, or, when the comment holds none, the text after it
// (/*!50000 */ ALTER TABLE ...); rest is the text after the comment when the SQL was inside it
// (empty otherwise). ok is false when the statement starts otherwise. A version comment nested
// in the first one, or following an empty one, gives nil: it is not read (reading each level
// again would cost the text's length per level).
func (s *Summary) versionCommentInner() (inner *Summary, rest lexer, ok bool) {
	if s.verb.kind != kindVersionComment {
		return nil, lexer{}, false
	}
	in, rest := Summarize(versionCommentSQL(s.verb.text(s.sql))), s.after
	if in.verb.kind == kindEnd {
		in, rest = Summarize(rest.sql[rest.pos:]), lexer{}
	}
	if in.verb.kind == kindVersionComment {
		return nil, lexer{}, true
	}
	return &in, rest, true
}
