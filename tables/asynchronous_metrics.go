package tables

import (
	"overloadsql/overload"

	"github.com/dolthub/go-mysql-server/sql"
)

// AsynchronousMetrics is system.asynchronous_metrics: the values of the latest sample (and a few
// the server computes itself), one row a metric. Absent sources are absent rows.
func AsynchronousMetrics(metrics func() []overload.Metric) *Table {
	schema := sql.Schema{
		column("metric", text),
		column("value", double),
		column("description", text),
	}
	return NewTable("asynchronous_metrics", schema, func(*sql.Context) ([]sql.Row, error) {
		ms := metrics()
		rows := make([]sql.Row, 0, len(ms))
		for _, m := range ms {
			rows = append(rows, sql.Row{m.Name, m.Value, m.Description})
		}
		return rows, nil
	})
}
