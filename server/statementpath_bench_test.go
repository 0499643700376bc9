package server

import (
	"testing"

	"overloadsql/server/statement"
)

var pathStatements = []struct{ name, sql string }{
	{"select_user_table", "SELECT id, name, created_at FROM orders o JOIN customers c ON o.customer_id = c.id WHERE o.total > 100 ORDER BY created_at DESC LIMIT 50"},
	{"select_pk", "SELECT id, name FROM t WHERE id = 42"},
	{"insert", "INSERT INTO events (id, kind, payload) VALUES (1, 'click', '{\"x\": 1}')"},
	{"select_1", "SELECT 1"},
	{"set", "SET max_os_cpu_wait_time_ratio_to_throw = 2"},
}

// BenchmarkStatementPath: every question the handler and the interceptor ask of a statement
// that is served (not overloaded).
func BenchmarkStatementPath(b *testing.B) {
	for _, s := range pathStatements {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sm := statement.Summarize(s.sql)
				_ = sm.Diagnostics()
				_, _ = sm.Transaction()
				_ = sm.IsSystemReloadConfig()
				_ = sm.IsTruncateWarnings("main")
				_ = sm.Hints()
				_ = sm.MayChangeSettings()
				_ = sm.NamesThresholds()
				_ = sm.Diagnostics()
				_, _ = sm.Transaction()
				_ = sm.Storage()
			}
		})
	}
}
