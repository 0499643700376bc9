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

// transaction reads a statement's effect on savepoints from its first word and what follows
// (see Summary.Transaction).
func transaction(first token, lx lexer) (Transaction, string) {
	sql := lx.sql
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
