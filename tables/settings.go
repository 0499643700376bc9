package tables

import "github.com/dolthub/go-mysql-server/sql"

// ServerSetting is one row of system.server_settings.
type ServerSetting struct {
	Name, Value, Default, Description, Type string
	Changed, Reloadable                     bool
}

// ServerSettings is system.server_settings: every server setting with its running value.
func ServerSettings(settings func() []ServerSetting) *Table {
	schema := sql.Schema{
		column("name", text),
		column("value", text),
		column("default_value", text),
		column("changed", boolean),
		column("description", text),
		column("type", text),
		column("changeable_without_restart", text),
	}
	return NewTable("server_settings", schema, func(*sql.Context) ([]sql.Row, error) {
		ss := settings()
		rows := make([]sql.Row, 0, len(ss))
		for _, s := range ss {
			rows = append(rows, sql.Row{s.Name, s.Value, s.Default, flag(s.Changed), s.Description, s.Type, yesNo(s.Reloadable)})
		}
		return rows, nil
	})
}

// SessionSetting is one row of system.settings, as the scanning session sees it.
type SessionSetting struct {
	Name, Value, Default, Description, Type string
	Changed, Readonly                       bool
	Min, Max                                *string // constraints; nil when none
}

// Settings is system.settings: the scanning session's own overload settings.
func Settings(settings func(ctx *sql.Context) ([]SessionSetting, error)) *Table {
	schema := sql.Schema{
		column("name", text),
		column("value", text),
		column("default_value", text),
		column("changed", boolean),
		column("description", text),
		nullable("min", text),
		nullable("max", text),
		column("readonly", boolean),
		column("type", text),
	}
	return NewTable("settings", schema, func(ctx *sql.Context) ([]sql.Row, error) {
		ss, err := settings(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, 0, len(ss))
		for _, s := range ss {
			rows = append(rows, sql.Row{s.Name, s.Value, s.Default, flag(s.Changed), s.Description, optional(s.Min), optional(s.Max), flag(s.Readonly), s.Type})
		}
		return rows, nil
	})
}

func optional(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
