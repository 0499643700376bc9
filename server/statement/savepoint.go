package statement

// Transaction is what a statement does to a transaction's savepoints.
type Transaction int

const (
	// OtherStatement: neither a savepoint statement nor one that ends or starts a transaction.
	OtherStatement Transaction = iota
	// Savepoint is SAVEPOINT name.
	Savepoint
	// ReleaseSavepoint is RELEASE SAVEPOINT name.
	ReleaseSavepoint
	// RollbackToSavepoint is ROLLBACK [WORK] TO [SAVEPOINT] name.
	RollbackToSavepoint
	// TransactionBoundary is BEGIN, START TRANSACTION, COMMIT or ROLLBACK (without TO), which
	// forget every savepoint.
	TransactionBoundary
)

// ClassifyTransaction reads a statement's effect on savepoints and, for the savepoint
// statements, the savepoint's name (backquotes removed). A savepoint statement with anything
// after the name is OtherStatement, left for the engine to refuse.
func ClassifyTransaction(sql string) (Transaction, string) {
	lx := lexer{sql: sql}
	first := lx.nextSignificant()
	switch {
	case first.is(sql, "savepoint"):
		return savepointName(lx, Savepoint)
	case first.is(sql, "release"):
		if !lx.nextSignificant().is(sql, "savepoint") {
			return OtherStatement, ""
		}
		return savepointName(lx, ReleaseSavepoint)
	case first.is(sql, "rollback"):
		t := lx.nextSignificant()
		if t.is(sql, "work") {
			t = lx.nextSignificant()
		}
		if !t.is(sql, "to") {
			return TransactionBoundary, ""
		}
		if lx.peekSignificant().is(sql, "savepoint") {
			lx.nextSignificant()
		}
		return savepointName(lx, RollbackToSavepoint)
	case first.is(sql, "commit"), first.is(sql, "begin"), first.is(sql, "start"):
		return TransactionBoundary, ""
	}
	return OtherStatement, ""
}

func savepointName(lx lexer, kind Transaction) (Transaction, string) {
	name, ok := lx.nextSignificant().name(lx.sql)
	if !ok || !lx.endsAfter(lx.nextSignificant()) {
		return OtherStatement, ""
	}
	return kind, name
}

// MayWrite reports whether a statement may change data: every statement except SELECT, SHOW,
// DESCRIBE, EXPLAIN, SET, USE, DO, LOCK / UNLOCK TABLES and SAVEPOINT / RELEASE SAVEPOINT. A statement that is a
// /*!NNNNN ... */ comment is judged by the SQL inside.
func MayWrite(sql string) bool {
	lx := lexer{sql: sql}
	first := lx.nextSignificant()
	if first.kind == kindVersionComment {
		return MayWrite(versionCommentSQL(first.text(sql)))
	}
	for _, word := range []string{"select", "show", "describe", "desc", "explain", "set", "use", "do", "lock", "unlock", "savepoint", "release"} {
		if first.is(sql, word) {
			return false
		}
	}
	return first.kind != kindEnd
}
