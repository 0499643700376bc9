package catalog

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestStoredForm holds the descriptors' stored form: its field names are read back from every
// existing data directory.
func TestStoredForm(t *testing.T) {
	d := &Table{ID: 7, DB: 2, Name: "t", Version: 3, Collation: sql.Collation_utf8mb4_0900_bin, Comment: "c",
		Columns: []Column{{Tag: 1, Name: "id", Type: "int", AutoInc: true},
			{Tag: 2, Name: "v", Type: "varchar(10)", Nullable: true, Default: "'x'", HasDefault: true, Comment: "v"}},
		PK:      []uint32{1},
		Indexes: []Index{{ID: 1, Name: "v", Tags: []uint32{2}, Prefix: []uint16{3}, Unique: true}},
		NextTag: 2, NextIndex: 2, RowSize: 9}
	raw, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":7,"db":2,"name":"t","version":3,"collation":309,"comment":"c",` +
		`"columns":[{"tag":1,"name":"id","type":"int","autoInc":true},` +
		`{"tag":2,"name":"v","type":"varchar(10)","nullable":true,"default":"'x'","comment":"v","hasDefault":true}],` +
		`"pk":[1],"indexes":[{"id":1,"name":"v","tags":[2],"prefix":[3],"unique":true}],` +
		`"nextTag":2,"nextIndex":2,"rowSize":9}`
	if len(raw) < 8 || raw[7] != 3 || string(raw[8:]) != want {
		t.Fatalf("stored table descriptor:\n%x %s\nwant version 3, then\n%s", raw[:8], raw[8:], want)
	}
	var c Cache
	got, err := c.Table(sql.NewEmptyContext(), "db", 2, 7, raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.Desc.Name != "t" || len(got.Schema.Schema) != 2 || got.AutoInc != 0 || len(got.Indexes) != 1 || got.Indexes[0].Pos[0] != 1 {
		t.Fatalf("decoded: %+v", got)
	}
	if again, _ := c.Table(sql.NewEmptyContext(), "db", 2, 7, raw); again != got {
		t.Fatal("the same bytes decoded twice")
	}

	db := Database{ID: 2, Name: "db", Collation: sql.Collation_utf8mb4_0900_bin, NextTrigger: 1}
	if got, want := string(db.Encode()), `{"id":2,"name":"db","collation":309,"nextTrigger":1}`; got != want {
		t.Fatalf("stored database descriptor %s, want %s", got, want)
	}
	back, err := c.Database(2, db.Encode())
	if err != nil || back != db {
		t.Fatalf("database descriptor back: %+v, %v", back, err)
	}
}
