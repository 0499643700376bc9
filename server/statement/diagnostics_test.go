package statement

import "testing"

func TestSummaryDiagnostics(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want Diagnostics
	}{
		{"SHOW WARNINGS", ReadsDiagnostics},
		{"show warnings limit 1", ReadsDiagnostics},
		{"SHOW ERRORS", ShowErrors},
		{"SHOW COUNT(*) WARNINGS", CountWarnings},
		{"show count ( * ) errors;", CountErrors},
		{"SHOW COUNT(*) ERRORS; DROP TABLE t", ClearsDiagnostics},
		{"SELECT @@warning_count", ReadsDiagnostics},
		{"SELECT @@session.error_count AS e, @@warning_count", ReadsDiagnostics},
		{"SELECT @@version", ClearsDiagnostics},
		{"SELECT @@warning_count, x FROM t", ClearsDiagnostics},
		{"SELECT 'warning_count'", ClearsDiagnostics},
		{"SHOW TABLES", ClearsDiagnostics},
		{"INSERT INTO t VALUES (1)", ClearsDiagnostics},
		{"", ClearsDiagnostics},
	} {
		if got := summarize(c.sql).Diagnostics(); got != c.want {
			t.Errorf("Diagnostics(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}
