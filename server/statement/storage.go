package statement

// Storage is what a statement may do to the stored tables and to the session's transaction, as
// far as the server's write lock needs to know (see Summary.Storage).
type Storage int

const (
	// ReadsStorage: changes no stored data and ends no transaction. SELECT without a locking
	// clause, SHOW, DESCRIBE, EXPLAIN, DO, USE and SET (except SET autocommit).
	ReadsStorage Storage = iota
	// WritesStorage: may change stored data or a table's definition, or locks rows: every
	// statement that is neither of the other kinds, and SELECT ... FOR UPDATE / FOR SHARE /
	// LOCK IN SHARE MODE.
	WritesStorage
	// EndsTransaction: may end the session's transaction (commit or roll it back) without
	// writing itself: BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SET autocommit, LOCK TABLES and
	// UNLOCK TABLES.
	EndsTransaction
)

// Storage tells what the statement may do to the stored tables and the session's transaction.
// A statement that is a /*!NNNNN ... */ comment is judged by its first word only: a write unless
// the SQL inside starts with a read-only word. The first call reads a SELECT to its end, looking
// for a locking clause; later calls cost nothing.
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
	case s.transaction == TransactionBoundary:
		return EndsTransaction
	case first.is(sql, "lock"), first.is(sql, "unlock"):
		return EndsTransaction
	case first.is(sql, "set") && containsFoldASCII(sql, "autocommit"):
		return EndsTransaction
	case first.is(sql, "select") && locksRows(s.after):
		return WritesStorage
	case s.mayWrite:
		return WritesStorage
	}
	return ReadsStorage
}

// locksRows reports whether a SELECT has a locking read clause: FOR UPDATE, FOR SHARE or LOCK IN
// SHARE MODE, anywhere after the first word (a subquery's clause locks too).
func locksRows(lx lexer) bool {
	sql := lx.sql
	for t := lx.nextSignificant(); t.kind != kindEnd; t = lx.nextSignificant() {
		switch {
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
