package statement

import "testing"

func TestSummaryTransaction(t *testing.T) {
	for _, c := range []struct {
		sql  string
		kind Transaction
		name string
	}{
		{"SAVEPOINT sp", Savepoint, "sp"},
		{"savepoint `my sp`;", Savepoint, "my sp"},
		{"RELEASE SAVEPOINT sp", ReleaseSavepoint, "sp"},
		{"ROLLBACK TO SAVEPOINT sp", RollbackToSavepoint, "sp"},
		{"rollback work to sp", RollbackToSavepoint, "sp"},
		{"/* mariadb-dump */ ROLLBACK TO SAVEPOINT sp", RollbackToSavepoint, "sp"},
		{"ROLLBACK", TransactionBoundary, ""},
		{"COMMIT", TransactionBoundary, ""},
		{"START TRANSACTION WITH CONSISTENT SNAPSHOT", TransactionBoundary, ""},
		{"BEGIN", TransactionBoundary, ""},
		{"SAVEPOINT sp; DROP TABLE t", OtherStatement, ""},
		{"RELEASE sp", OtherStatement, ""},
		{"SELECT 'savepoint'", OtherStatement, ""},
		{"", OtherStatement, ""},
	} {
		kind, name := summarize(c.sql).Transaction()
		if kind != c.kind || name != c.name {
			t.Errorf("Transaction(%q) = %v %q, want %v %q", c.sql, kind, name, c.kind, c.name)
		}
	}
}
