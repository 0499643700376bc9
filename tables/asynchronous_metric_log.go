package tables

import (
	"overloadsql/history"

	"github.com/dolthub/go-mysql-server/sql"
)

// AsynchronousMetricLog is system.asynchronous_metric_log: the rows of
// system.asynchronous_metrics as they were, one row per metric per
// asynchronous_metrics_update_period_s, for metric_log_retention_s.
func AsynchronousMetricLog(points func() []history.Point) *Table {
	return pointTable("asynchronous_metric_log", points)
}

// pointTable is a history table of (event_time, metric, value) rows.
func pointTable(name string, points func() []history.Point) *Table {
	schema := sql.Schema{
		column("event_time", datetime),
		column("metric", text),
		column("value", double),
	}
	return NewTable(name, schema, func(*sql.Context) ([]sql.Row, error) {
		ps := points()
		rows := make([]sql.Row, 0, len(ps))
		for _, p := range ps {
			rows = append(rows, sql.Row{p.At.UTC(), p.Name, p.Value})
		}
		return rows, nil
	})
}
