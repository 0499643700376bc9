package tables

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// RowsFunc produces the current rows of a table for the session that scans it.
type RowsFunc func(ctx *sql.Context) ([]sql.Row, error)

// Table is a virtual table whose rows are produced on every scan.
type Table struct {
	name   string
	schema sql.Schema
	rows   RowsFunc
}

var _ sql.Table = (*Table)(nil)

// NewTable builds a table; every column of schema is stamped with the table's name.
func NewTable(name string, schema sql.Schema, rows RowsFunc) *Table {
	for _, c := range schema {
		c.Source = name
		c.DatabaseSource = DatabaseName
	}
	return &Table{name: name, schema: schema, rows: rows}
}

func (t *Table) Name() string                   { return t.name }
func (t *Table) String() string                 { return DatabaseName + "." + t.name }
func (t *Table) Schema(*sql.Context) sql.Schema { return t.schema }
func (t *Table) Collation() sql.CollationID     { return sql.Collation_Default }
func (t *Table) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(partition{}), nil
}

func (t *Table) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	rows, err := t.rows(ctx)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t, err)
	}
	return sql.RowsToRowIter(rows...), nil
}

type partition struct{}

func (partition) Key() []byte { return []byte("all") }

// Database is the read-only `system` database.
type Database struct {
	tables map[string]*Table
	names  []string
}

// DatabaseName is the name clients use: `system`.
const DatabaseName = "system"

var (
	_ sql.Database                = (*Database)(nil)
	_ sql.ReadOnlyDatabase        = (*Database)(nil)
	_ sql.ViewDatabase            = (*Database)(nil)
	_ sql.TriggerDatabase         = (*Database)(nil)
	_ sql.StoredProcedureDatabase = (*Database)(nil)
)

// NewDatabase builds the database from its tables.
func NewDatabase(tables ...*Table) *Database {
	db := &Database{tables: make(map[string]*Table, len(tables))}
	for _, t := range tables {
		db.tables[t.name] = t
		db.names = append(db.names, t.name)
	}
	return db
}

func (d *Database) Name() string     { return DatabaseName }
func (d *Database) IsReadOnly() bool { return true }

func (d *Database) GetTableInsensitive(_ *sql.Context, name string) (sql.Table, bool, error) {
	t, ok := d.tables[strings.ToLower(name)]
	if !ok {
		return nil, false, nil
	}
	return t, true, nil
}

func (d *Database) GetTableNames(*sql.Context) ([]string, error) {
	return append([]string(nil), d.names...), nil
}

func (d *Database) CreateView(*sql.Context, string, string, string) error {
	return errReadOnly
}
func (d *Database) DropView(*sql.Context, string) error { return errReadOnly }
func (d *Database) GetViewDefinition(*sql.Context, string) (sql.ViewDefinition, bool, error) {
	return sql.ViewDefinition{}, false, nil
}
func (d *Database) AllViews(*sql.Context) ([]sql.ViewDefinition, error) { return nil, nil }

func (d *Database) GetTriggers(*sql.Context) ([]sql.TriggerDefinition, error) { return nil, nil }
func (d *Database) CreateTrigger(*sql.Context, sql.TriggerDefinition) error   { return errReadOnly }
func (d *Database) DropTrigger(*sql.Context, string) error                    { return errReadOnly }

func (d *Database) GetStoredProcedure(*sql.Context, string) (sql.StoredProcedureDetails, bool, error) {
	return sql.StoredProcedureDetails{}, false, nil
}
func (d *Database) GetStoredProcedures(*sql.Context) ([]sql.StoredProcedureDetails, error) {
	return nil, nil
}
func (d *Database) SaveStoredProcedure(*sql.Context, sql.StoredProcedureDetails) error {
	return errReadOnly
}
func (d *Database) DropStoredProcedure(*sql.Context, string) error { return errReadOnly }

var errReadOnly = fmt.Errorf("database %q is read-only", DatabaseName)
