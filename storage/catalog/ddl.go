package catalog

import (
	"context"
	"fmt"
	"strings"

	"overloadsql/mysqlerr"
	"overloadsql/storage/keys"
	"overloadsql/storage/kv"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// The changes DDL makes to a table descriptor. Each edits the descriptor in place and fails
// with the engine's or MySQL's error, which may leave it half changed: callers edit a Clone
// and drop it on error. None sets Version or ID; the caller does, as it writes the descriptor.

// NewTable is the descriptor of a new table with the columns and primary key of schema, at
// version 1. Its columns are tagged 1, 2, ... in schema order.
func NewTable(id, db uint32, name string, collation sql.CollationID, comment string, schema sql.PrimaryKeySchema) *Table {
	d := &Table{ID: id, DB: db, Name: name, Version: 1, Collation: collation, Comment: comment, NextIndex: kv.IIDFirstSec}
	for _, c := range schema.Schema {
		d.NextTag++
		d.Columns = append(d.Columns, columnOf(c, d.NextTag))
	}
	for _, ord := range schema.PkOrdinals {
		d.PK = append(d.PK, d.Columns[ord].Tag)
	}
	return d
}

// position is where a column placed by order goes: at, unless order says FIRST or AFTER a
// column.
func (d *Table) position(order *sql.ColumnOrder, at int) (int, error) {
	if order != nil && order.First {
		return 0, nil
	}
	if order != nil && order.AfterColumn != "" {
		i, ok := d.columnByName(order.AfterColumn)
		if !ok {
			return 0, sql.ErrTableColumnNotFound.New(d.Name, order.AfterColumn)
		}
		return i + 1, nil
	}
	return at, nil
}

func (d *Table) insertColumn(at int, c Column) {
	d.Columns = append(d.Columns[:at], append([]Column{c}, d.Columns[at:]...)...)
}

// AddColumn adds column with a new tag, last or where order places it.
func (d *Table) AddColumn(column *sql.Column, order *sql.ColumnOrder) error {
	d.NextTag++
	cd := columnOf(column, d.NextTag)
	at, err := d.position(order, len(d.Columns))
	if err != nil {
		return err
	}
	d.insertColumn(at, cd)
	return nil
}

// ModifyColumn replaces the column named name by column, under the same tag, where it was or
// where order places it. A primary-key column stays NOT NULL.
func (d *Table) ModifyColumn(name string, column *sql.Column, order *sql.ColumnOrder) error {
	i, ok := d.columnByName(name)
	if !ok {
		return sql.ErrTableColumnNotFound.New(d.Name, name)
	}
	old := d.Columns[i]
	cd := columnOf(column, old.Tag)
	if d.isPK(old.Tag) {
		cd.Nullable = false
	}
	d.Columns = append(d.Columns[:i], d.Columns[i+1:]...)
	at, err := d.position(order, i)
	if err != nil {
		return err
	}
	d.insertColumn(at, cd)
	return nil
}

// Rewritten is a copy of d with the columns and primary key of newSchema, for an ALTER that
// rewrites the table. A column keeps its tag when it has the name of one of d's columns
// (newColumn matched by oldColumn's name; a dropped oldColumn's name by none); the others get
// new tags. Indexes lose dropped columns, and an index left without columns goes.
func (d *Table) Rewritten(newSchema sql.PrimaryKeySchema, oldColumn, newColumn *sql.Column) *Table {
	n := d.Clone()
	n.Columns = nil
	for _, c := range newSchema.Schema {
		name := c.Name
		if oldColumn != nil && newColumn != nil && strings.EqualFold(c.Name, newColumn.Name) {
			name = oldColumn.Name
		}
		var tag uint32
		if i, ok := d.columnByName(name); ok && !(oldColumn != nil && newColumn == nil && strings.EqualFold(name, oldColumn.Name)) {
			tag = d.Columns[i].Tag
		} else {
			n.NextTag++
			tag = n.NextTag
		}
		n.Columns = append(n.Columns, columnOf(c, tag))
	}
	n.PK = nil
	for _, ord := range newSchema.PkOrdinals {
		n.PK = append(n.PK, n.Columns[ord].Tag)
		n.Columns[ord].Nullable = false
	}
	var idxs []Index
	for _, idx := range n.Indexes {
		var tags []uint32
		var prefix []uint16
		for j, tag := range idx.Tags {
			if _, ok := n.columnByTag(tag); ok {
				tags = append(tags, tag)
				if j < len(idx.Prefix) {
					prefix = append(prefix, idx.Prefix[j])
				} else {
					prefix = append(prefix, 0)
				}
			}
		}
		if len(tags) == 0 {
			continue
		}
		idx.Tags, idx.Prefix = tags, prefix
		idxs = append(idxs, idx)
	}
	n.Indexes = idxs
	return n
}

// AddIndex adds the secondary index def under a new index id. The entries are the caller's.
func (d *Table) AddIndex(def sql.IndexDef) error {
	if strings.EqualFold(def.Name, "PRIMARY") {
		return sql.ErrDuplicateKey.New(def.Name)
	}
	if _, ok := d.indexByName(def.Name); ok {
		return sql.ErrDuplicateKey.New(def.Name)
	}
	idx := Index{ID: d.NextIndex, Name: def.Name, Unique: def.IsUnique(), Comment: def.Comment}
	if d.NextIndex == kv.IIDRowHash-1 {
		return mysqlerr.New(mysql.ERTooManyKeys, "Too many keys specified; max 64 keys allowed")
	}
	d.NextIndex++
	for _, c := range def.Columns {
		i, ok := d.columnByName(c.Name)
		if !ok {
			return sql.ErrKeyColumnDoesNotExist.New(c.Name)
		}
		idx.Tags = append(idx.Tags, d.Columns[i].Tag)
		idx.Prefix = append(idx.Prefix, uint16(c.Length))
	}
	d.Indexes = append(d.Indexes, idx)
	return nil
}

// DropIndex removes the index named name and returns its id, whose entries the caller deletes.
func (d *Table) DropIndex(name string) (uint16, error) {
	i, ok := d.indexByName(name)
	if !ok {
		return 0, sql.ErrIndexNotFound.New(name)
	}
	iid := d.Indexes[i].ID
	d.Indexes = append(d.Indexes[:i], d.Indexes[i+1:]...)
	return iid, nil
}

// RenameIndex renames index from to to.
func (d *Table) RenameIndex(from, to string) error {
	i, ok := d.indexByName(from)
	if !ok {
		return sql.ErrIndexNotFound.New(from)
	}
	if _, ok := d.indexByName(to); ok && !strings.EqualFold(from, to) {
		return sql.ErrDuplicateKey.New(to)
	}
	d.Indexes[i].Name = to
	return nil
}

// AddCheck adds check; an unnamed one gets MySQL's name, <table>_chk_<n> with the first n not
// taken.
func (d *Table) AddCheck(check *sql.CheckDefinition) error {
	for _, c := range d.Checks {
		if strings.EqualFold(c.Name, check.Name) {
			return mysqlerr.New(mysqlerr.ERCheckConstraintDupName, "Duplicate check constraint name '%s'.", check.Name)
		}
	}
	c := *check
	if c.Name == "" {
		c.Name = d.generatedCheckName()
	}
	d.Checks = append(d.Checks, c)
	return nil
}

func (d *Table) generatedCheckName() string {
	for i := 1; ; i++ {
		name := fmt.Sprintf("%s_chk_%d", d.Name, i)
		taken := false
		for _, c := range d.Checks {
			if strings.EqualFold(c.Name, name) {
				taken = true
				break
			}
		}
		if !taken {
			return name
		}
	}
}

// DropCheck removes the check named name.
func (d *Table) DropCheck(name string) error {
	for i, c := range d.Checks {
		if strings.EqualFold(c.Name, name) {
			d.Checks = append(d.Checks[:i], d.Checks[i+1:]...)
			return nil
		}
	}
	return sql.ErrUnknownConstraint.New(name)
}

// AddForeignKey adds fk, whose name must be new in the table.
func (d *Table) AddForeignKey(fk sql.ForeignKeyConstraint) error {
	for _, other := range d.FKs {
		if strings.EqualFold(other.Name, fk.Name) {
			return sql.ErrForeignKeyDuplicateName.New(fk.Name)
		}
	}
	d.FKs = append(d.FKs, fk)
	return nil
}

// DropForeignKey removes the foreign key named name; false when there is none.
func (d *Table) DropForeignKey(name string) bool {
	for i, fk := range d.FKs {
		if strings.EqualFold(fk.Name, name) {
			d.FKs = append(d.FKs[:i], d.FKs[i+1:]...)
			return true
		}
	}
	return false
}

// UpdateForeignKey replaces the foreign key named name by fk; false when there is none.
func (d *Table) UpdateForeignKey(name string, fk sql.ForeignKeyConstraint) bool {
	for i := range d.FKs {
		if strings.EqualFold(d.FKs[i].Name, name) {
			d.FKs[i] = fk
			return true
		}
	}
	return false
}

// RenameReferences points d's foreign keys that name table oldName of database dbName, as
// their parent or (in another table's descriptor) as their table, at newName, and says
// whether it changed any.
func (d *Table) RenameReferences(dbName, oldName, newName string) bool {
	changed := false
	for i := range d.FKs {
		fk := &d.FKs[i]
		if strings.EqualFold(fk.ParentDatabase, dbName) && strings.EqualFold(fk.ParentTable, oldName) {
			fk.ParentTable = newName
			changed = true
		}
		if fk.Table != d.Name && strings.EqualFold(fk.Table, oldName) {
			fk.Table = newName
			changed = true
		}
	}
	return changed
}

// CheckKeyTypes refuses key columns whose type has no key encoding (package keys).
func (d *Table) CheckKeyTypes(ctx context.Context) error {
	t, err := Decode(ctx, "", d)
	if err != nil {
		return err
	}
	for _, pos := range t.PKPos {
		if err := keys.Check(t.Schema.Schema[pos].Name, t.Schema.Schema[pos].Type, 0); err != nil {
			return err
		}
	}
	for _, idx := range t.Indexes {
		for i, pos := range idx.Pos {
			var prefix uint16
			if i < len(idx.Desc.Prefix) {
				prefix = idx.Desc.Prefix[i]
			}
			col := t.Schema.Schema[pos]
			if err := keys.Check(col.Name, col.Type, int64(prefix)); err != nil {
				// the engine's functional indexes key whole TEXT values of their hidden
				// columns, which the encoding can
				if col.HiddenSystem && prefix == 0 && keys.Check(col.Name, col.Type, 1) == nil {
					continue
				}
				return err
			}
		}
	}
	return nil
}
