package access

import (
	"testing"

	"overloadsql/server/config"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkPlanCheck is the plan check's cost per statement, on the analyzed plans of a
// point SELECT and an INSERT ... SELECT, for a non-admin (every rule runs).
func BenchmarkPlanCheck(b *testing.B) {
	provider := memory.NewDBProvider(memory.NewDatabase(MainDatabase))
	engine := sqle.NewDefault(provider)
	users := []config.User{{Name: "app"}}
	g := PlanCheck{Accounts: NewAccounts(users), Config: config.Default} // the check alone, without the engine's executor
	base := sql.NewBaseSessionWithClientServer("", sql.Client{User: "app", Address: "127.0.0.1"}, 1)
	ctx := sql.NewContext(b.Context(), sql.WithSession(memory.NewSession(base, provider)))
	ctx.SetCurrentDatabase(MainDatabase)
	if _, _, _, err := engine.Query(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT)"); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"SELECT 1", "SELECT v FROM t WHERE id = 1", "INSERT INTO t SELECT id + 1, v FROM t WHERE id < 10"} {
		plan, err := engine.AnalyzeQuery(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, err := g.Check(ctx, plan, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
