package tables

import "github.com/dolthub/go-mysql-server/sql"

// Gauge is one current value of system.metrics.
type Gauge struct {
	Name        string
	Value       int64
	Description string
}

// Metrics is system.metrics: gauges of what is happening now.
func Metrics(gauges func() []Gauge) *Table {
	schema := sql.Schema{
		column("metric", text),
		column("value", int64T),
		column("description", text),
	}
	return NewTable("metrics", schema, func(*sql.Context) ([]sql.Row, error) {
		gs := gauges()
		rows := make([]sql.Row, 0, len(gs))
		for _, g := range gs {
			rows = append(rows, sql.Row{g.Name, g.Value, g.Description})
		}
		return rows, nil
	})
}
