package tables

import (
	"overloadsql/history"

	"github.com/dolthub/go-mysql-server/sql"
)

// WarningLog is system.warning_log: every warning raised, updated (at most once a second per
// warning) and cleared, for metric_log_retention_s.
func WarningLog(events func() []history.WarningEvent) *Table {
	schema := sql.Schema{
		column("event_time", datetime),
		column("resource", text),
		column("event", text),
		column("message", text),
		column("value", double),
	}
	return NewTable("warning_log", schema, func(*sql.Context) ([]sql.Row, error) {
		es := events()
		rows := make([]sql.Row, 0, len(es))
		for _, e := range es {
			rows = append(rows, sql.Row{e.At.UTC(), e.Resource, e.Event.String(), e.Message, e.Value})
		}
		return rows, nil
	})
}
