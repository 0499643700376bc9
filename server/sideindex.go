package server

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
)

// Plain secondary indexes of the in-memory tables, kept beside the engine's storage.
//
// The engine's in-memory table keeps each secondary index as a list of entries that point at the
// rows by position. After every writing statement it sorts the rows back into primary-key order,
// and each swap of that sort walks every entry of every secondary index to fix the positions: a
// single-row UPDATE, whose row the engine deletes and appends at the end, moves it back through
// the table at the cost of (distance × index entries). The entries buy no speed in return: a
// lookup in them evaluates its range on every entry.
//
// So the server keeps a plain index (not unique, spatial, full-text or vector; over whole columns)
// as its definition only, in sideIndexes, and not in the engine's table. sideTable, the table the
// engine gets from the database, reports these definitions among the table's indexes (SHOW INDEX,
// SHOW CREATE TABLE, information_schema, the planner and foreign keys see them as indexes), and
// answers a lookup in one with a read of the table's rows that keeps those in the lookup's ranges
// and orders them by the index's columns, then the primary key (scanLookup in lookup.go): what the
// engine's entries would have given, at the cost of one scan. Foreign keys look their rows up
// through the table's editor, which sideTable wraps the same way.
//
// A definition names its columns, so it follows the table: ALTER TABLE's DROP, RENAME and
// MODIFY/CHANGE COLUMN, DROP and RENAME INDEX, RENAME TABLE, DROP TABLE and DROP DATABASE change
// or remove it; a table created under a name starts without any. DDL commits the open
// transaction before it and runs on its own (as in MySQL; transactions.go), so the definitions
// are not part of a transaction; but when a statement in autocommit mode or DDL fails, its
// transaction drops what it changed in the table's columns, and the server puts the definitions
// back as they were before the statement (beginStatement, rollbackStatement): an ALTER TABLE
// with several changes, one of which fails, leaves the indexes as they were. The same undo drops
// a table that a failed CREATE TABLE created. Unique indexes stay the engine's: it enforces them
// on its entries.

// sideIndexes are the plain secondary indexes of the in-memory tables, by database and table
// (both in lower case). Lock order: mu is a leaf.
type sideIndexes struct {
	mu      sync.Mutex
	byTable map[sideTableKey][]sideIndex
	// before holds, for each table the running statement changed, its definitions before the
	// statement (nil: the table had none). Only the holder of the write lock changes definitions,
	// so there is one such statement at a time.
	before map[sideTableKey][]sideIndex
	// created drops, each, a table the running statement created: the engine puts a new table
	// in the database at once (committedDatabase.CreateTable), outside the statement's
	// transaction, so a failed CREATE TABLE (a foreign key that does not fit, an interrupted
	// CREATE TABLE ... SELECT) left the table behind; MySQL leaves none.
	created []func() error
}

type sideTableKey struct{ db, table string }

func sideKey(db, table string) sideTableKey {
	return sideTableKey{strings.ToLower(db), strings.ToLower(table)}
}

// sideIndex is the definition of one index: its name, its columns in order, its comment.
type sideIndex struct {
	name    string
	columns []string
	comment string
}

func newSideIndexes() *sideIndexes {
	return &sideIndexes{byTable: map[sideTableKey][]sideIndex{}}
}

// eligibleForSide tells whether the engine's definition is one the server keeps on the side.
func eligibleForSide(def sql.IndexDef) bool {
	if def.Constraint != sql.IndexConstraint_None || len(def.Columns) == 0 {
		return false
	}
	if def.Storage != sql.IndexUsing_Default && def.Storage != sql.IndexUsing_BTree {
		return false
	}
	for _, c := range def.Columns {
		if c.Length > 0 {
			return false
		}
	}
	return true
}

// of returns the definitions of db.table.
func (s *sideIndexes) of(db, table string) []sideIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.byTable[sideKey(db, table)])
}

// find returns the definition named name (in any case) of db.table.
func (s *sideIndexes) find(db, table, name string) (sideIndex, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ix := range s.byTable[sideKey(db, table)] {
		if strings.EqualFold(ix.name, name) {
			return ix, true
		}
	}
	return sideIndex{}, false
}

// containsFold tells whether names holds name, in any case.
func containsFold(names []string, name string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
}

// beginStatement makes the changes so far final: rollbackStatement takes back the later ones.
func (s *sideIndexes) beginStatement() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.before, s.created = nil, nil
}

// rollbackStatement puts back the definitions as they were when the statement began, and drops
// the tables it created; the error tells which of those could not be dropped.
func (s *sideIndexes) rollbackStatement() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	for key, list := range s.before {
		s.set(key, list)
	}
	created := s.created
	s.before, s.created = nil, nil
	s.mu.Unlock()
	var errs []error
	for _, drop := range created { // outside mu: a drop forgets the table's definitions
		errs = append(errs, drop())
	}
	return errors.Join(errs...)
}

// createdTable notes a table the running statement created, and how to drop it.
func (s *sideIndexes) createdTable(drop func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created = append(s.created, drop)
}

// remember keeps the table's definitions before the statement's first change to them. Callers
// hold mu.
func (s *sideIndexes) remember(key sideTableKey) {
	if s.before == nil {
		s.before = map[sideTableKey][]sideIndex{}
	}
	if _, ok := s.before[key]; !ok {
		s.before[key] = slices.Clone(s.byTable[key])
	}
}

// add records the definition; taken lists the names the table's engine indexes already use.
// Without a name the index is named as MySQL names it: after its first column, with _2, _3, ...
// when that is taken.
func (s *sideIndexes) add(db, table string, ix sideIndex, taken []string) (sideIndex, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := sideKey(db, table)
	used := func(name string) bool {
		return containsFold(taken, name) ||
			slices.ContainsFunc(s.byTable[key], func(o sideIndex) bool { return strings.EqualFold(o.name, name) })
	}
	if ix.name == "" {
		ix.name = ix.columns[0]
		for n := 2; used(ix.name); n++ {
			ix.name = ix.columns[0] + "_" + strconv.Itoa(n)
		}
	} else if used(ix.name) {
		return sideIndex{}, sql.ErrDuplicateKey.New(ix.name)
	}
	ix.columns = slices.Clone(ix.columns)
	s.remember(key)
	s.byTable[key] = append(slices.Clone(s.byTable[key]), ix)
	return ix, nil
}

// update applies change to every definition of db.table; a definition that change returns
// without columns is removed.
func (s *sideIndexes) update(db, table string, change func(sideIndex) sideIndex) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := sideKey(db, table)
	s.remember(key)
	var kept []sideIndex
	for _, ix := range s.byTable[key] {
		if ix = change(ix); len(ix.columns) > 0 {
			kept = append(kept, ix)
		}
	}
	s.set(key, kept)
}

func (s *sideIndexes) set(key sideTableKey, list []sideIndex) {
	if len(list) == 0 {
		delete(s.byTable, key)
		return
	}
	s.byTable[key] = list
}

// drop removes the definition named name; false if db.table has none of that name.
func (s *sideIndexes) drop(db, table, name string) bool {
	found := false
	s.update(db, table, func(ix sideIndex) sideIndex {
		if strings.EqualFold(ix.name, name) {
			found = true
			ix.columns = nil
		}
		return ix
	})
	return found
}

// rename renames the definition named from; false if db.table has none of that name.
func (s *sideIndexes) rename(db, table, from, to string, taken []string) (bool, error) {
	if _, ok := s.find(db, table, from); !ok {
		return false, nil
	}
	if !strings.EqualFold(from, to) {
		if _, clash := s.find(db, table, to); clash || containsFold(taken, to) {
			return true, sql.ErrDuplicateKey.New(to)
		}
	}
	s.update(db, table, func(ix sideIndex) sideIndex {
		if strings.EqualFold(ix.name, from) {
			ix.name = to
		}
		return ix
	})
	return true, nil
}

// dropColumn takes the column out of every definition, as MySQL does; an index left without
// columns is dropped.
func (s *sideIndexes) dropColumn(db, table, column string) {
	s.update(db, table, func(ix sideIndex) sideIndex {
		ix.columns = slices.DeleteFunc(slices.Clone(ix.columns), func(c string) bool { return strings.EqualFold(c, column) })
		return ix
	})
}

// renameColumn follows a column's new name.
func (s *sideIndexes) renameColumn(db, table, from, to string) {
	s.update(db, table, func(ix sideIndex) sideIndex {
		ix.columns = slices.Clone(ix.columns)
		for i, c := range ix.columns {
			if strings.EqualFold(c, from) {
				ix.columns[i] = to
			}
		}
		return ix
	})
}

// moveTable follows RENAME TABLE. The engine renames the table for good, even in a statement
// that fails: what rollbackStatement puts back goes to the new name.
func (s *sideIndexes) moveTable(db, from, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.byTable[sideKey(db, from)]
	delete(s.byTable, sideKey(db, from))
	s.set(sideKey(db, to), list)
	if before, ok := s.before[sideKey(db, from)]; ok {
		delete(s.before, sideKey(db, from))
		s.before[sideKey(db, to)] = before
	}
}

// forgetTable drops the definitions of db.table: the table was dropped, or is created anew (for
// good, as the engine does both).
func (s *sideIndexes) forgetTable(db, table string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byTable, sideKey(db, table))
	delete(s.before, sideKey(db, table))
}

// forgetDatabase drops the definitions of every table of db.
func (s *sideIndexes) forgetDatabase(db string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inDB := func(key sideTableKey, _ []sideIndex) bool { return key.db == strings.ToLower(db) }
	maps.DeleteFunc(s.byTable, inDB)
	maps.DeleteFunc(s.before, inDB)
}

// sideTable is an in-memory table with its side indexes. It is the engine's table in every other
// way.
type sideTable struct {
	*memory.Table
	side *sideIndexes
}

var (
	_ sql.IndexAddressableTable = (*sideTable)(nil)
	_ sql.IndexAlterableTable   = (*sideTable)(nil)
	_ sql.ForeignKeyTable       = (*sideTable)(nil)
	_ sql.AlterableTable        = (*sideTable)(nil)
	_ sql.ProjectedTable        = (*sideTable)(nil)
	_ sql.RewritableTable       = (*sideTable)(nil)
	_ sql.IndexBuildingTable    = (*sideTable)(nil)
	_ sql.TemporaryTable        = (*sideTable)(nil)
)

// IsTemporary implements sql.TemporaryTable: no table the server keeps is temporary (CREATE
// TEMPORARY TABLE is refused). The engine asks it before DROP TEMPORARY TABLE drops a table and
// answers 1051 Unknown table when it says no; the engine's own table does not implement it, so
// DROP TEMPORARY TABLE t dropped the permanent table t.
func (t *sideTable) IsTemporary() bool { return false }

// isSide tells whether the index is one of the table's side indexes.
func (t *sideTable) isSide(index sql.Index) bool {
	if _, ok := index.(*memory.Index); !ok {
		return false
	}
	_, ok := t.side.find(t.Database(), t.Name(), index.ID())
	return ok
}

// GetIndexes implements sql.IndexAddressableTable: the engine's indexes, then the side ones.
func (t *sideTable) GetIndexes(ctx *sql.Context) ([]sql.Index, error) {
	indexes, err := t.Table.GetIndexes(ctx)
	if err != nil {
		return nil, err
	}
	side := t.side.of(t.Database(), t.Name())
	if len(side) == 0 {
		return indexes, nil
	}
	schema := t.wholeSchema(ctx)
	for _, ix := range side {
		exprs := make([]sql.Expression, 0, len(ix.columns))
		for _, name := range ix.columns {
			ord := schema.IndexOfColName(name)
			if ord < 0 {
				continue // as MySQL: a dropped column leaves the indexes it was in
			}
			col := schema[ord]
			exprs = append(exprs, expression.NewGetFieldWithTable(ord, 0, col.Type, t.Database(), t.Name(), col.Name, col.Nullable))
		}
		if len(exprs) == 0 {
			continue
		}
		indexes = append(indexes, &memory.Index{
			DB: t.Database(), Tbl: t.Table, TableName: t.Name(), Exprs: exprs, Name: ix.name, CommentStr: ix.comment,
		})
	}
	return indexes, nil
}

// wholeSchema is the table's schema, all of its columns whatever the projection: what index
// definitions name and their expressions' positions count in.
func (t *sideTable) wholeSchema(ctx *sql.Context) sql.Schema {
	return t.Table.PrimaryKeySchema(ctx).Schema
}

// engineIndexNames are the names of the table's indexes in the engine's storage, PRIMARY too.
func (t *sideTable) engineIndexNames(ctx *sql.Context) ([]string, error) {
	indexes, err := t.Table.GetIndexes(ctx)
	if err != nil {
		return nil, err
	}
	names := []string{"PRIMARY"}
	for _, ix := range indexes {
		names = append(names, ix.ID())
	}
	return names, nil
}

// CreateIndex implements sql.IndexAlterableTable: a plain index over columns of the table is kept
// on the side, any other in the engine.
func (t *sideTable) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	if _, clash := t.side.find(t.Database(), t.Name(), def.Name); clash && def.Name != "" {
		// The engine checks the name against its own indexes only.
		return sql.ErrDuplicateKey.New(def.Name)
	}
	if !eligibleForSide(def) {
		return t.Table.CreateIndex(ctx, def)
	}
	schema := t.wholeSchema(ctx)
	ix := sideIndex{name: def.Name, comment: def.Comment}
	for _, c := range def.Columns {
		ord := schema.IndexOfColName(c.Name)
		if ord < 0 || schema[ord].Virtual {
			// The engine reports a missing column. A generated column's values are not in the
			// stored rows that a side lookup reads: the engine keeps its index.
			return t.Table.CreateIndex(ctx, def)
		}
		ix.columns = append(ix.columns, schema[ord].Name)
	}
	taken, err := t.engineIndexNames(ctx)
	if err != nil {
		return err
	}
	_, err = t.side.add(t.Database(), t.Name(), ix, taken)
	return err
}

// ShouldBuildIndex implements sql.IndexBuildingTable: a side index has no entries to build.
func (t *sideTable) ShouldBuildIndex(ctx *sql.Context, def sql.IndexDef) (bool, error) {
	if _, ok := t.side.find(t.Database(), t.Name(), def.Name); ok || def.Name == "" && eligibleForSide(def) {
		return false, nil
	}
	return t.Table.ShouldBuildIndex(ctx, def)
}

// CreateIndexForForeignKey implements sql.ForeignKeyTable.
func (t *sideTable) CreateIndexForForeignKey(ctx *sql.Context, def sql.IndexDef) error {
	return t.CreateIndex(ctx, def)
}

// DropIndex implements sql.IndexAlterableTable.
func (t *sideTable) DropIndex(ctx *sql.Context, name string) error {
	if t.side.drop(t.Database(), t.Name(), name) {
		return nil
	}
	return t.Table.DropIndex(ctx, name)
}

// RenameIndex implements sql.IndexAlterableTable.
func (t *sideTable) RenameIndex(ctx *sql.Context, from, to string) error {
	taken, err := t.engineIndexNames(ctx)
	if err != nil {
		return err
	}
	if found, err := t.side.rename(t.Database(), t.Name(), from, to, taken); found || err != nil {
		return err
	}
	if _, clash := t.side.find(t.Database(), t.Name(), to); clash {
		return sql.ErrDuplicateKey.New(to)
	}
	return t.Table.RenameIndex(ctx, from, to)
}

// erFKColumnCannotDropChild is MySQL's ER_FK_COLUMN_CANNOT_DROP_CHILD.
const erFKColumnCannotDropChild = 1829

// refuseReferencedColumnDrop refuses, as MySQL does (1829), to drop a column that a foreign key
// of a table references. The engine checks the foreign keys the table declares, not those that
// reference it: it dropped the column and left the foreign key naming a column that is gone, so
// every later DELETE or UPDATE of the table failed.
func (t *sideTable) refuseReferencedColumnDrop(ctx *sql.Context, column string) error {
	fks, err := t.Table.GetReferencedForeignKeys(ctx)
	if err != nil {
		return err
	}
	for _, fk := range fks {
		for _, c := range fk.ParentColumns {
			if strings.EqualFold(c, column) {
				return mysql.NewSQLError(erFKColumnCannotDropChild, mysql.SSUnknownSQLState,
					"Cannot drop column '%s': needed in a foreign key constraint '%s' of table '%s'", column, fk.Name, fk.Table)
			}
		}
	}
	return nil
}

// refusePrimaryKeyDrop refuses, as MySQL does (1553), to drop the primary key when a foreign key
// of the table, or one that references it, has no other index to use. The engine checks that
// for DROP INDEX, but for DROP PRIMARY KEY it rewrote the table without its key and left the
// foreign key without an index: a child row whose parent existed could no longer be inserted.
func (t *sideTable) refusePrimaryKeyDrop(ctx *sql.Context) error {
	declared, err := t.Table.GetDeclaredForeignKeys(ctx)
	if err != nil {
		return err
	}
	referenced, err := t.Table.GetReferencedForeignKeys(ctx)
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
			return mysql.NewSQLError(erDropIndexFK, mysql.SSUnknownSQLState, "Cannot drop index 'PRIMARY': needed in a foreign key constraint")
		}
	}
	return nil
}

// DropColumn implements sql.AlterableTable.
func (t *sideTable) DropColumn(ctx *sql.Context, column string) error {
	if err := t.refuseReferencedColumnDrop(ctx, column); err != nil {
		return err
	}
	if err := t.Table.DropColumn(ctx, column); err != nil {
		return err
	}
	t.followColumn(column, nil)
	return nil
}

// ModifyColumn implements sql.AlterableTable (MODIFY and CHANGE COLUMN, RENAME COLUMN).
func (t *sideTable) ModifyColumn(ctx *sql.Context, column string, def *sql.Column, order *sql.ColumnOrder) error {
	if err := t.Table.ModifyColumn(ctx, column, def, order); err != nil {
		return err
	}
	t.followColumn(column, def)
	return nil
}

// followColumn follows a dropped (to is nil) or renamed column.
func (t *sideTable) followColumn(from string, to *sql.Column) {
	switch {
	case to == nil:
		t.side.dropColumn(t.Database(), t.Name(), from)
	case !strings.EqualFold(from, to.Name):
		t.side.renameColumn(t.Database(), t.Name(), from, to.Name)
	}
}

// RewriteInserter implements sql.RewritableTable. The engine drops a column, and moves or
// changes one, by copying the rows into a new version of the table; the side indexes follow the
// column when the copy succeeds.
func (t *sideTable) RewriteInserter(ctx *sql.Context, oldSchema, newSchema sql.PrimaryKeySchema, oldColumn, newColumn *sql.Column, idxCols []sql.IndexColumn) (sql.RowInserter, error) {
	if oldColumn != nil && newColumn == nil {
		if err := t.refuseReferencedColumnDrop(ctx, oldColumn.Name); err != nil {
			return nil, err
		}
	}
	if len(oldSchema.PkOrdinals) > 0 && len(newSchema.PkOrdinals) == 0 {
		if err := t.refusePrimaryKeyDrop(ctx); err != nil {
			return nil, err
		}
	}
	inserter, err := t.Table.RewriteInserter(ctx, oldSchema, newSchema, oldColumn, newColumn, idxCols)
	if err != nil || oldColumn == nil {
		return inserter, err
	}
	return &sideRewrite{RowInserter: inserter, done: func() { t.followColumn(oldColumn.Name, newColumn) }}, nil
}

// sideRewrite is the engine's inserter of a table rewrite, which runs done when it closes
// without its changes discarded.
type sideRewrite struct {
	sql.RowInserter
	discarded bool
	done      func()
}

// DiscardChanges implements sql.EditOpenerCloser.
func (r *sideRewrite) DiscardChanges(ctx *sql.Context, cause error) error {
	r.discarded = true
	return r.RowInserter.DiscardChanges(ctx, cause)
}

// Close implements sql.Closer.
func (r *sideRewrite) Close(ctx *sql.Context) error {
	if err := r.RowInserter.Close(ctx); err != nil {
		return err
	}
	if !r.discarded {
		r.done()
	}
	return nil
}

// WithProjections implements sql.ProjectedTable.
func (t *sideTable) WithProjections(ctx *sql.Context, cols []string) (sql.Table, error) {
	table, err := t.Table.WithProjections(ctx, cols)
	if err != nil {
		return nil, err
	}
	projected, ok := table.(*memory.Table)
	if !ok {
		return nil, fmt.Errorf("projection of %s: unexpected table type %T", t.Name(), table)
	}
	return &sideTable{Table: projected, side: t.side}, nil
}

// IndexedAccess implements sql.IndexAddressableTable.
func (t *sideTable) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	access := t.Table.IndexedAccess(ctx, lookup)
	if it, ok := access.(*memory.IndexedTable); ok {
		return &scanLookup{IndexedTable: it, side: t.isSide(lookup.Index), origin: t}
	}
	return access
}

// GetForeignKeyEditor implements sql.ForeignKeyTable: the engine's editor, whose lookups in side
// indexes are answered by scanLookup.
func (t *sideTable) GetForeignKeyEditor(ctx *sql.Context) sql.ForeignKeyEditor {
	return sideKeyEditor{ForeignKeyEditor: t.Table.GetForeignKeyEditor(ctx), table: t}
}

// sideKeyEditor is the engine's foreign-key editor of a table with side indexes.
type sideKeyEditor struct {
	sql.ForeignKeyEditor
	table *sideTable
}

// IndexedAccess implements sql.IndexAddressable.
func (e sideKeyEditor) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	access := e.ForeignKeyEditor.IndexedAccess(ctx, lookup)
	if it, ok := access.(*memory.IndexedTable); ok && e.table.isSide(lookup.Index) {
		return &scanLookup{IndexedTable: it, side: true, origin: e}
	}
	return access
}

// GetIndexes implements sql.IndexAddressable.
func (e sideKeyEditor) GetIndexes(ctx *sql.Context) ([]sql.Index, error) {
	return e.table.GetIndexes(ctx)
}
