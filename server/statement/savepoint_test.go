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

func TestMayWrite(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"SELECT * FROM t", false},
		{"show create table t", false},
		{"SET @a = 1", false},
		{"/*!40101 SET NAMES utf8mb4 */", false},
		{"/*!40000 ALTER TABLE t DISABLE KEYS */", true},
		{"/*!50000 /*!50000 SELECT 1 */", true},
		{"/*!/*!/*!/*!/*!", true},
		{"/*!50000 */ UPDATE t SET a = 1", true},
		{"/*!50000 */ SELECT 1", false},
		{"/*!50000 */ /*!50000 SELECT 1 */", true},
		{"INSERT INTO t VALUES (1)", true},
		{"UPDATE t SET a = 1", true},
		{"WITH x AS (SELECT 1) DELETE FROM t", true},
		{"CALL p()", true},
		{"UNLOCK TABLES", false},
		{"", false},
	} {
		if got := summarize(c.sql).MayWrite(); got != c.want {
			t.Errorf("MayWrite(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}
