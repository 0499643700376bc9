package statement

import "testing"

var benchStatements = []struct{ name, sql string }{
	{"select_user_table", "SELECT id, name, created_at FROM orders o JOIN customers c ON o.customer_id = c.id WHERE o.total > 100 ORDER BY created_at DESC LIMIT 50"},
	{"select_system_table", "SELECT * FROM system.warnings WHERE message LIKE '%CPU%'"},
	{"insert", "INSERT INTO events (id, kind, payload) VALUES (1, 'click', '{\"x\": 1}')"},
	{"select_1", "SELECT 1"},
	{"set", "SET max_os_cpu_wait_time_ratio_to_throw = 2"},
}

func BenchmarkSummarize(b *testing.B) {
	for _, s := range benchStatements {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Summarize(s.sql)
			}
		})
	}
}

func BenchmarkClassify(b *testing.B) {
	for _, s := range benchStatements {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := Summarize(s.sql)
				s.Exempt("main")
			}
		})
	}
}

func BenchmarkRewriteSystem(b *testing.B) {
	for _, s := range benchStatements {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RewriteSystem(s.sql)
			}
		})
	}
}

func BenchmarkHints(b *testing.B) {
	for _, s := range append(benchStatements, struct{ name, sql string }{"with_hint",
		"SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 1.5) */ * FROM t"}) {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Hints(s.sql)
			}
		})
	}
}
