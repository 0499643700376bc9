package storage

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"overloadsql/mysqlerr"
	"overloadsql/storage/catalog"
	"overloadsql/storage/kv"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
)

// ALTER TABLE. Columns keep their tags across every change, so renaming, moving, commenting or
// changing the default of a column changes only the descriptor. A change of type, nullability,
// primary key or of the column set of an index, and a dropped column, rewrites the table: the
// engine streams the rows in the new schema into the RewriteInserter, which writes them with
// their index entries under a fresh table id; its Close points the name at the new id and makes
// the old one obsolete. All of it is in the transaction's batch, so a failed ALTER changes
// nothing.

// AddColumn adds a column that old rows read as NULL (the engine rewrites the table for a
// column with a default, a generated value, NOT NULL or AUTO_INCREMENT).
func (t *Table) AddColumn(ctx *sql.Context, column *sql.Column, order *sql.ColumnOrder) error {
	return t.alter(ctx, func(d *catalog.Table) error { return d.AddColumn(column, order) })
}

// DropColumn is reached only when no rewrite is asked for, which ShouldRewriteTable does for
// every drop; it refuses.
func (t *Table) DropColumn(ctx *sql.Context, name string) error {
	return fmt.Errorf("storage: DROP COLUMN %s must rewrite the table", name)
}

// ModifyColumn changes a column's descriptor without touching the rows: a rename, a move, a
// comment or a default (ShouldRewriteTable asked for a rewrite of any other change).
func (t *Table) ModifyColumn(ctx *sql.Context, name string, column *sql.Column, order *sql.ColumnOrder) error {
	return t.alter(ctx, func(d *catalog.Table) error { return d.ModifyColumn(name, column, order) })
}

// ShouldRewriteTable: only a change that leaves every stored value and every key as it is
// needs no rewrite.
func (t *Table) ShouldRewriteTable(ctx *sql.Context, oldSchema, newSchema sql.PrimaryKeySchema, oldColumn, newColumn *sql.Column) bool {
	if len(oldSchema.PkOrdinals) != len(newSchema.PkOrdinals) {
		return true
	}
	for i := range oldSchema.PkOrdinals {
		if !strings.EqualFold(oldSchema.Schema[oldSchema.PkOrdinals[i]].Name, newSchema.Schema[newSchema.PkOrdinals[i]].Name) &&
			(oldColumn == nil || !strings.EqualFold(oldSchema.Schema[oldSchema.PkOrdinals[i]].Name, oldColumn.Name)) {
			return true
		}
	}
	if len(newSchema.Schema) < len(oldSchema.Schema) {
		return true // a dropped column
	}
	if oldColumn != nil && newColumn != nil {
		if !oldColumn.Type.Equals(newColumn.Type) || oldColumn.Type.String() != newColumn.Type.String() {
			return true
		}
		if oldColumn.Nullable && !newColumn.Nullable {
			return true
		}
		if oldColumn.Virtual != newColumn.Virtual || (oldColumn.Generated == nil) != (newColumn.Generated == nil) {
			return true
		}
		if oldColumn.Generated != nil && newColumn.Generated != nil && oldColumn.Generated.String() != newColumn.Generated.String() {
			return true
		}
		if oldColumn.AutoIncrement != newColumn.AutoIncrement {
			return true
		}
	}
	return false
}

// refuseReferencedColumnDrop refuses, as MySQL does (1829), to drop a column that a foreign key
// of another table references; the engine checks only the foreign keys the table declares.
func (t *Table) refuseReferencedColumnDrop(ctx *sql.Context, column string) error {
	fks, err := t.GetReferencedForeignKeys(ctx)
	if err != nil {
		return err
	}
	for _, fk := range fks {
		for _, c := range fk.ParentColumns {
			if strings.EqualFold(c, column) {
				return mysqlerr.New(mysqlerr.ERFKColumnCannotDropChild, "Cannot drop column '%s': needed in a foreign key constraint '%s' of table '%s'", column, fk.Name, fk.Table)
			}
		}
	}
	return nil
}

// refusePrimaryKeyDrop refuses, as MySQL does (1553), to drop the primary key when a foreign key
// of the table, or one that references it, has no other index to use.
func (t *Table) refusePrimaryKeyDrop(ctx *sql.Context) error {
	declared, err := t.GetDeclaredForeignKeys(ctx)
	if err != nil {
		return err
	}
	referenced, err := t.GetReferencedForeignKeys(ctx)
	if err != nil {
		return err
	}
	columns := make([][]string, 0, len(declared)+len(referenced))
	for _, fk := range declared {
		columns = append(columns, fk.Columns)
	}
	for _, fk := range referenced {
		columns = append(columns, fk.ParentColumns)
	}
	for _, cols := range columns {
		_, ok, err := plan.FindFKIndexWithPrefix(ctx, t, cols, false, "PRIMARY")
		if err != nil {
			return err
		}
		if !ok {
			return mysqlerr.New(mysqlerr.ERDropIndexFK, "Cannot drop index 'PRIMARY': needed in a foreign key constraint")
		}
	}
	return nil
}

// rewrite is an ALTER's copy of the table into a fresh table id.
type rewrite struct {
	old, new  *catalog.Table
	orig      *Table
	discarded bool
}

// RewriteInserter returns the editor the engine streams the table's rows into, in newSchema.
func (t *Table) RewriteInserter(ctx *sql.Context, oldSchema, newSchema sql.PrimaryKeySchema, oldColumn, newColumn *sql.Column, idxCols []sql.IndexColumn) (sql.RowInserter, error) {
	if oldColumn != nil && newColumn == nil {
		if err := t.refuseReferencedColumnDrop(ctx, oldColumn.Name); err != nil {
			return nil, err
		}
	}
	if len(oldSchema.PkOrdinals) > 0 && len(newSchema.PkOrdinals) == 0 {
		if err := sql.ValidatePrimaryKeyDrop(ctx, t, oldSchema); err != nil {
			return nil, err
		}
		if err := t.refusePrimaryKeyDrop(ctx); err != nil {
			return nil, err
		}
	}
	for _, c := range idxCols {
		i := newSchema.Schema.IndexOfColName(c.Name)
		if i < 0 {
			return nil, sql.ErrColumnNotFound.New(c.Name)
		}
		if c.Length > 0 && newSchema.Schema[i].PrimaryKey {
			return nil, mysqlerr.New(mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support 'prefix lengths in a PRIMARY KEY'")
		}
	}
	tx, err := t.db.writer(ctx)
	if err != nil {
		return nil, err
	}
	cur, err := t.current(ctx, tx)
	if err != nil {
		return nil, err
	}
	old := cur.Desc
	d := old.Rewritten(newSchema, oldColumn, newColumn)
	if err := d.CheckKeyTypes(ctx); err != nil {
		return nil, err
	}
	tid, err := tx.nextCounter(kv.KeyNextTable)
	if err != nil {
		return nil, err
	}
	d.ID = uint32(tid)
	d.Version = old.Version + 1
	nt, err := catalog.Decode(ctx, t.db.desc.Name, d)
	if err != nil {
		return nil, err
	}
	e := &editor{Table: &Table{db: t.db, t: nt}, tx: tx, mark: len(tx.undo)}
	e.rewrite = &rewrite{old: old, new: d, orig: t}
	// the AUTO_INCREMENT counter moves with the table
	s := t.db.p.store
	if v, err := s.autoIncValue(tx, old.ID, cur.AutoInc >= 0); err == nil && nt.AutoInc >= 0 && v > 0 {
		s.setAutoInc(tx, d.ID, v)
	}
	return e, nil
}

// finish points the table at the rewritten copy.
func (r *rewrite) finish(ctx *sql.Context, e *editor) error {
	if r.discarded {
		return nil
	}
	db := e.db
	tx := e.tx
	if err := db.writeDesc(ctx, tx, r.new, nil); err != nil {
		return err
	}
	if err := tx.delKnown(kv.TableDescKey(db.desc.ID, r.old.ID)); err != nil {
		return err
	}
	if err := tx.putKnown(kv.TableNameKey(db.desc.ID, strings.ToLower(r.new.Name)), beU32(r.new.ID)); err != nil {
		return err
	}
	if err := tx.markObsolete(r.old.ID); err != nil {
		return err
	}
	return r.orig.replace(ctx, r.new)
}

func (t *Table) CreatePrimaryKey(ctx *sql.Context, columns []sql.IndexColumn) error {
	return fmt.Errorf("storage: ADD PRIMARY KEY must rewrite the table")
}

func (t *Table) DropPrimaryKey(ctx *sql.Context) error {
	return fmt.Errorf("storage: DROP PRIMARY KEY must rewrite the table")
}

// CreateIndex adds the index's descriptor; the engine then fills it through BuildIndex.
func (t *Table) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	if def.IsFullText() || def.IsSpatial() || def.IsVector() {
		kind := "FULLTEXT"
		if def.IsSpatial() {
			kind = "SPATIAL"
		} else if def.IsVector() {
			kind = "VECTOR"
		}
		return mysqlerr.New(mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support '%s indexes'", kind)
	}
	if def.Predicate != nil {
		return mysqlerr.New(mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support 'partial indexes'")
	}
	return t.alter(ctx, func(d *catalog.Table) error { return d.AddIndex(def) })
}

func (t *Table) DropIndex(ctx *sql.Context, name string) error {
	var iid uint16
	if err := t.alter(ctx, func(d *catalog.Table) (err error) {
		iid, err = d.DropIndex(name)
		return err
	}); err != nil {
		return err
	}
	// the entries are deleted key by key in the transaction, so that a rollback keeps them
	tx, err := txnOf(ctx)
	if err != nil {
		return err
	}
	prefix := kv.IndexPrefix(t.tid(), iid)
	type entry struct{ k, v []byte }
	var entries []entry
	if err := scanPrefix(tx.reader(), prefix, func(k, v []byte) error {
		entries = append(entries, entry{append([]byte(nil), k...), append([]byte(nil), v...)})
		return nil
	}); err != nil {
		return err
	}
	for _, e := range entries {
		if err := tx.del(e.k, e.v, true, 0, 0); err != nil {
			return err
		}
	}
	return nil
}

func (t *Table) RenameIndex(ctx *sql.Context, from, to string) error {
	return t.alter(ctx, func(d *catalog.Table) error { return d.RenameIndex(from, to) })
}

func (t *Table) ShouldBuildIndex(ctx *sql.Context, def sql.IndexDef) (bool, error) { return true, nil }

// BuildIndex returns the editor the engine streams every row into to fill a new index.
func (t *Table) BuildIndex(ctx *sql.Context, def sql.IndexDef) (sql.RowInserter, error) {
	e := t.newEditor(ctx)
	if e.err != nil {
		return nil, e.err
	}
	for _, info := range e.t.Indexes {
		if strings.EqualFold(info.Desc.Name, def.Name) {
			e.build = info
			e.mark = len(e.tx.undo)
			return e, nil
		}
	}
	return nil, sql.ErrIndexNotFound.New(def.Name)
}

// buildIndexNow fills an index from the stored rows (the engine does not stream rows for the
// index a foreign key creates). The rows have no virtual values, so an index on a virtual
// column is refused here.
func (t *Table) buildIndexNow(ctx *sql.Context, name string) error {
	ins, err := t.BuildIndex(ctx, sql.IndexDef{Name: name})
	if err != nil {
		return err
	}
	e := ins.(*editor)
	for _, pos := range e.build.Pos {
		if e.t.Schema.Schema[pos].Virtual {
			return mysqlerr.New(mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support 'foreign keys on virtual columns'")
		}
	}
	iter, err := e.Table.PartitionRows(ctx, partition{})
	if err != nil {
		return err
	}
	defer iter.Close(ctx)
	full := *e.Table
	full.proj, full.projPos, full.projSchema = nil, nil, nil
	iter.(*rowIter).tbl = &full
	for {
		row, err := iter.Next(ctx)
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := e.Insert(ctx, row); err != nil {
			return err
		}
	}
}

func beU32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
