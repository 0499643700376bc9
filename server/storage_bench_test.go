package server

import (
	"fmt"
	"strings"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkMainTable measures the engine's in-memory tables the way `main` configures them
// (primary keys as indexes) against the engine's default, and with the server's side indexes
// (sideindex.go), on a sysbench-shaped table of 10k rows with and without its secondary index: a
// point SELECT, a single-row UPDATE by id, and a lookup by the secondary index.
func BenchmarkMainTable(b *testing.B) {
	for _, wiring := range []string{"engine", "pk_index", "server"} {
		for _, secondary := range []bool{false, true} {
			queries := []string{"SELECT c FROM sb WHERE id = %d", "UPDATE sb SET k = k + 1 WHERE id = %d"}
			if secondary {
				queries = append(queries, "SELECT id FROM sb WHERE k = %d")
			}
			for _, q := range queries {
				name := fmt.Sprintf("%s/secondary=%v/%s", wiring, secondary, strings.Join(strings.Fields(q)[:4], "_"))
				b.Run(name, func(b *testing.B) { benchmarkTable(b, wiring, secondary, q) })
			}
		}
	}
}

func benchmarkTable(b *testing.B, wiring string, secondary bool, query string) {
	db := memory.NewDatabase(mainDatabase)
	if wiring != "engine" {
	}
	provider := memory.NewDBProvider(db)
	engine := sqle.NewDefault(provider)
	if wiring == "server" {
		engine = sqle.NewDefault(committedProvider{
			boundedProvider: newBoundedProvider(provider, func() int { return 1 << 20 }),
			lock:            &writeLock{},
			side:            newSideIndexes(),
		})
	}
	ctx := sql.NewContext(b.Context(), sql.WithSession(memory.NewSession(sql.NewBaseSession(), provider)))
	ctx.SetCurrentDatabase(mainDatabase)
	run := func(q string) {
		_, iter, _, err := engine.Query(ctx, q)
		if err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		if _, err := sql.RowIterToRows(ctx, iter); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	create := "CREATE TABLE sb (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60))"
	if secondary {
		create = "CREATE TABLE sb (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60), KEY k_1 (k))"
	}
	run(create)
	const rows, batch = 10_000, 1_000
	for start := 1; start <= rows; start += batch {
		values := make([]string, 0, batch)
		for id := start; id < start+batch; id++ {
			values = append(values, fmt.Sprintf("(%d, %d, '%s', '%s')", id, id%1000, strings.Repeat("c", 100), strings.Repeat("p", 50)))
		}
		run("INSERT INTO sb VALUES " + strings.Join(values, ", "))
	}
	b.ResetTimer()
	for i := range b.N {
		run(fmt.Sprintf(query, (i*7919)%rows+1))
	}
}
