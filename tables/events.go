package tables

import (
	"overloadsql/overload"

	"github.com/dolthub/go-mysql-server/sql"
)

// Events is system.events: cumulative counters since the server started.
func Events(events func() []overload.Event) *Table {
	schema := sql.Schema{
		column("event", text),
		column("value", uint64T),
		column("description", text),
	}
	return NewTable("events", schema, func(*sql.Context) ([]sql.Row, error) {
		es := events()
		rows := make([]sql.Row, 0, len(es))
		for _, e := range es {
			rows = append(rows, sql.Row{e.Name, e.Value, e.Description})
		}
		return rows, nil
	})
}
