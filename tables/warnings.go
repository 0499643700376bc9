package tables

import (
	"overloadsql/warnings"

	"github.com/dolthub/go-mysql-server/sql"
)

// Warnings is system.warnings: the warnings in force now (cleared ones are gone).
func Warnings(current func() []warnings.Warning) *Table {
	schema := sql.Schema{
		column("message", text),
		column("message_format_string", text),
		column("resource", text),
		column("raised_at", datetime),
		column("updated_at", datetime),
		column("value", double),
		column("peak", double),
	}
	return NewTable("warnings", schema, func(*sql.Context) ([]sql.Row, error) {
		ws := current()
		rows := make([]sql.Row, 0, len(ws))
		for _, w := range ws {
			rows = append(rows, sql.Row{w.Message, w.MessageFormat, w.Resource, w.RaisedAt.UTC(), w.UpdatedAt.UTC(), w.Value, w.Peak})
		}
		return rows, nil
	})
}
