package storage

import (
	"fmt"
	"strings"
	"testing"

	"overloadsql/storage/kv"
)

// benchRows is the row count of the benchmark table, sysbench's table size.
const benchRows = 10000

// newBenchRunner opens a store in a temporary directory with one sysbench-shaped table of
// benchRows rows; precise is Options.PreciseLookups.
func newBenchRunner(b *testing.B, precise bool) *runner {
	b.Helper()
	s, err := Open(b.TempDir(), Options{Sync: kv.SyncNone, PreciseLookups: precise})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	r := newRunner(b, s, "main")
	b.Cleanup(r.close)
	r.must("CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, " +
		"c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))")
	const chunk = 500
	for start := 1; start <= benchRows; start += chunk {
		var sb strings.Builder
		sb.WriteString("INSERT INTO sbtest1 (id, k, c, pad) VALUES ")
		for id := start; id < start+chunk; id++ {
			if id > start {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d, %d, '%s', '%s')", id, (id*7919)%benchRows,
				strings.Repeat(fmt.Sprintf("%011d-", id), 10)[:119], strings.Repeat("p", 59))
		}
		r.must(sb.String())
	}
	return r
}

// BenchmarkSelect: sysbench's read statements through the engine on a stored table, one
// autocommit statement per op, with the engine's filter above each lookup (rechecked) and
// without it (precise, as the server runs).
func BenchmarkSelect(b *testing.B) {
	for _, mode := range []struct {
		name    string
		precise bool
	}{{"rechecked", false}, {"precise", true}} {
		b.Run(mode.name, func(b *testing.B) { benchmarkSelect(b, newBenchRunner(b, mode.precise)) })
	}
}

func benchmarkSelect(b *testing.B, r *runner) {
	cases := []struct {
		name string
		sql  func(id int) string
		rows int
	}{
		{"point_pk", func(id int) string { return fmt.Sprintf("SELECT c FROM sbtest1 WHERE id=%d", id) }, 1},
		{"range_pk_100", func(id int) string {
			return fmt.Sprintf("SELECT c FROM sbtest1 WHERE id BETWEEN %d AND %d", id, id+99)
		}, 100},
		{"point_k", func(id int) string { return fmt.Sprintf("SELECT id FROM sbtest1 WHERE k=%d", id) }, 1},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				id := 1 + (i*7919)%(benchRows-100)
				i++
				rows := r.must(c.sql(id))
				if len(rows) != c.rows {
					b.Fatalf("%s: %d rows, want %d", c.sql(id), len(rows), c.rows)
				}
			}
		})
	}
}
