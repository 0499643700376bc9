package catalog

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

func names(d *Table) (out []string) {
	for _, c := range d.Columns {
		out = append(out, c.Name)
	}
	return out
}

// TestEditsKeepTags: a column keeps its tag when it is moved, renamed or kept by a rewrite; a
// new column gets a tag never used in the table, and an index loses the columns a rewrite
// drops.
func TestEditsKeepTags(t *testing.T) {
	col := func(name string, pk bool) *sql.Column {
		return &sql.Column{Name: name, Type: types.Int32, Nullable: !pk, PrimaryKey: pk}
	}
	sch := sql.NewPrimaryKeySchema(sql.Schema{col("a", true), col("b", false), col("c", false)}, 0)
	d := NewTable(5, 1, "t", sql.Collation_Default, "", sch)
	if d.Version != 1 || d.NextTag != 3 || len(d.PK) != 1 || d.PK[0] != 1 {
		t.Fatalf("new table: %+v", d)
	}
	if err := d.AddColumn(col("x", false), &sql.ColumnOrder{AfterColumn: "a"}); err != nil {
		t.Fatal(err)
	}
	if got := names(d); len(got) != 4 || got[1] != "x" || d.Columns[1].Tag != 4 {
		t.Fatalf("after ADD x AFTER a: %v, tag %d", got, d.Columns[1].Tag)
	}
	if err := d.ModifyColumn("b", col("b2", false), &sql.ColumnOrder{First: true}); err != nil {
		t.Fatal(err)
	}
	if got := names(d); got[0] != "b2" || d.Columns[0].Tag != 2 {
		t.Fatalf("after CHANGE b b2 FIRST: %v, tag %d", got, d.Columns[0].Tag)
	}
	if err := d.AddColumn(col("y", false), &sql.ColumnOrder{AfterColumn: "nope"}); err == nil {
		t.Fatal("AFTER a missing column succeeded")
	}
	if err := d.AddIndex(sql.IndexDef{Name: "i", Columns: []sql.IndexColumn{{Name: "c"}, {Name: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if err := d.AddIndex(sql.IndexDef{Name: "I", Columns: []sql.IndexColumn{{Name: "c"}}}); err == nil {
		t.Fatal("a second index named i (any case) succeeded")
	}

	// the rewrite drops x and keeps the others' tags
	next := d.NextTag
	nsch := sql.NewPrimaryKeySchema(sql.Schema{col("b2", false), col("a", true), col("c", false), col("z", false)}, 1)
	n := d.Rewritten(nsch, col("x", false), nil)
	if got := names(n); len(got) != 4 || n.Columns[0].Tag != 2 || n.Columns[1].Tag != 1 || n.Columns[2].Tag != 3 || n.Columns[3].Tag != next+1 {
		t.Fatalf("rewritten columns %v: %+v", got, n.Columns)
	}
	if len(n.Indexes) != 1 || len(n.Indexes[0].Tags) != 1 || n.Indexes[0].Tags[0] != 3 {
		t.Fatalf("rewritten index: %+v", n.Indexes)
	}
	if len(d.Columns) != 4 || d.NextTag != next {
		t.Fatal("Rewritten changed the original")
	}
	if err := n.CheckKeyTypes(sql.NewEmptyContext()); err != nil {
		t.Fatal(err)
	}
}
