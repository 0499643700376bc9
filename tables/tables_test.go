package tables

import (
	"testing"
	"time"

	"overloadsql/overload"
	"overloadsql/warnings"

	"github.com/dolthub/go-mysql-server/sql"
)

func rowsOf(t *testing.T, table sql.Table) []sql.Row {
	t.Helper()
	ctx := sql.NewEmptyContext()
	iter, err := table.PartitionRows(ctx, partition{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sql.RowIterToRows(ctx, iter)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestTablesReadLiveState(t *testing.T) {
	value := 1.5
	metrics := AsynchronousMetrics(func() []overload.Metric {
		return []overload.Metric{{Name: "OSCPUOverload", Value: value, Description: "d"}}
	})
	if got := rowsOf(t, metrics); len(got) != 1 || got[0][1] != 1.5 {
		t.Fatalf("rows = %v", got)
	}
	value = 3
	if got := rowsOf(t, metrics); got[0][1] != 3.0 {
		t.Errorf("a second scan shows %v, want the live value 3", got[0][1])
	}

	raised := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.FixedZone("X", 3600))
	w := Warnings(func() []warnings.Warning {
		return []warnings.Warning{{Message: "m", MessageFormat: "f", Resource: "cpu", RaisedAt: raised, UpdatedAt: raised, Value: 0.9, Peak: 0.95}}
	})
	row := rowsOf(t, w)[0]
	if row[3] != raised.UTC() || row[6] != 0.95 {
		t.Errorf("warning row = %v", row)
	}

	min := "1"
	settings := Settings(func(*sql.Context) ([]SessionSetting, error) {
		return []SessionSetting{{Name: "s", Value: "2", Default: "0", Changed: true, Min: &min}}, nil
	})
	row = rowsOf(t, settings)[0]
	if row[3] != uint8(1) || row[5] != "1" || row[6] != nil {
		t.Errorf("settings row = %v", row)
	}
}

func TestDatabase(t *testing.T) {
	db := NewDatabase(Events(func() []overload.Event { return nil }), Metrics(func() []Gauge { return nil }))
	ctx := sql.NewEmptyContext()
	if _, ok, _ := db.GetTableInsensitive(ctx, "EVENTS"); !ok {
		t.Error("table names are case-insensitive")
	}
	if _, ok, _ := db.GetTableInsensitive(ctx, "nope"); ok {
		t.Error("unknown table found")
	}
	names, _ := db.GetTableNames(ctx)
	if len(names) != 2 || names[0] != "events" || names[1] != "metrics" {
		t.Errorf("names = %v", names)
	}
	if !db.IsReadOnly() || db.CreateView(ctx, "v", "", "") == nil {
		t.Error("the system database must be read-only")
	}
}
