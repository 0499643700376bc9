package pointplan_test

import (
	"fmt"
	"strings"
	"testing"

	"overloadsql/engine/pointplan"
)

// BenchmarkPointSelect: sysbench's point and range reads (plain, summed, sorted, distinct) through the engine as the server
// builds it, planned by the engine (off) and from learned plans (on), one autocommit statement
// per op. The planner's first statement of each shape is the engine's.
func BenchmarkPointSelect(b *testing.B) {
	for _, mode := range []struct {
		name        string
		verifyEvery uint64
		on          bool
	}{{"engine", 0, false}, {"learned", 1024, true}} {
		b.Run(mode.name, func(b *testing.B) {
			d := newDB(b, mode.on, pointplan.Options{VerifyEvery: mode.verifyEvery})
			d.must("CREATE TABLE sbtest1 (id INT NOT NULL PRIMARY KEY, k INT NOT NULL DEFAULT 0, " +
				"c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))")
			const rows = 10_000
			for start := 1; start <= rows; start += 500 {
				var sb strings.Builder
				sb.WriteString("INSERT INTO sbtest1 VALUES ")
				for id := start; id < start+500; id++ {
					if id > start {
						sb.WriteByte(',')
					}
					fmt.Fprintf(&sb, "(%d, %d, '%0119d', '%059d')", id, (id*7919)%rows, id, id)
				}
				d.must(sb.String())
			}
			for _, c := range []struct {
				name  string
				query func(id int) string
			}{
				{"point_pk", func(id int) string { return fmt.Sprintf("SELECT c FROM sbtest1 WHERE id=%d", id) }},
				{"range_pk_100", func(id int) string {
					return fmt.Sprintf("SELECT c FROM sbtest1 WHERE id BETWEEN %d AND %d", id, id+99)
				}},
				{"point_k", func(id int) string { return fmt.Sprintf("SELECT id FROM sbtest1 WHERE k=%d", id) }},
				{"sum_range_100", func(id int) string {
					return fmt.Sprintf("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN %d AND %d", id, id+99)
				}},
				{"order_range_100", func(id int) string {
					return fmt.Sprintf("SELECT c FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", id, id+99)
				}},
				{"distinct_range_100", func(id int) string {
					return fmt.Sprintf("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", id, id+99)
				}},
			} {
				b.Run(c.name, func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						d.must(c.query(1 + (i*7919)%(rows-100)))
						i++
					}
				})
			}
		})
	}
}
