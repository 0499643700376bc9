package engine

import (
	"os"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkAnalyzerRules measures what overloadsql's analyzer rules (rules.go) add to a
// statement planned and run by the engine in-process. The rules are process-wide once added, so
// compare two runs:
//
//	OVERLOADSQL_BENCH_RULES=0 go test ./engine -run '^$' -bench AnalyzerRules -benchtime 20000x
//	OVERLOADSQL_BENCH_RULES=1 go test ./engine -run '^$' -bench AnalyzerRules -benchtime 20000x
func BenchmarkAnalyzerRules(b *testing.B) {
	if os.Getenv("OVERLOADSQL_BENCH_RULES") != "0" {
		AddRules(Hooks{})
	}
	provider := memory.NewDBProvider(memory.NewDatabase("main"))
	engine := sqle.NewDefault(provider)
	ctx := sql.NewContext(b.Context(), sql.WithSession(memory.NewSession(sql.NewBaseSession(), provider)))
	ctx.SetCurrentDatabase("main")
	run := func(b *testing.B, q string) {
		_, iter, _, err := engine.Query(ctx, q)
		if err == nil {
			_, err = sql.RowIterToRows(ctx, iter)
		}
		if err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	run(b, "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(120))")
	run(b, "INSERT INTO t VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c')")
	for _, c := range []struct{ name, q string }{
		{"point_select", "SELECT c FROM t WHERE id = 2"},
		{"range_order", "SELECT c FROM t WHERE id BETWEEN 1 AND 3 ORDER BY c"},
		{"update", "UPDATE t SET k = k + 1 WHERE id = 2"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				run(b, c.q)
			}
		})
	}
}
