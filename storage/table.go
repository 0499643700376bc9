package storage

import (
	"encoding/binary"
	"io"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"overloadsql/engine/pointplan"
	"overloadsql/mysqlerr"
	"overloadsql/storage/catalog"
	"overloadsql/storage/keys"
	"overloadsql/storage/kv"
)

// Table is a stored table as one statement sees it: its decoded descriptor and, for a
// projected read, the projected columns. Its rows and entries are read and written through
// the session's transaction, found from the context at each call. DDL methods replace the
// descriptor in the transaction and in the Table, so that the engine's later steps of the
// same statement see the change.
type Table struct {
	db *Database
	t  *catalog.Decoded

	proj       []string
	projPos    []int
	projSchema sql.Schema
}

var (
	_ sql.Table                       = (*Table)(nil)
	_ sql.ProjectedTable              = (*Table)(nil)
	_ sql.CommentedTable              = (*Table)(nil)
	_ sql.PrimaryKeyTable             = (*Table)(nil)
	_ sql.Databaseable                = (*Table)(nil)
	_ sql.StatisticsTable             = (*Table)(nil)
	_ sql.InsertableTable             = (*Table)(nil)
	_ sql.UpdatableTable              = (*Table)(nil)
	_ sql.DeletableTable              = (*Table)(nil)
	_ sql.ReplaceableTable            = (*Table)(nil)
	_ sql.TruncateableTable           = (*Table)(nil)
	_ sql.AutoIncrementTable          = (*Table)(nil)
	_ sql.IndexAddressableTable       = (*Table)(nil)
	_ sql.IndexAlterableTable         = (*Table)(nil)
	_ sql.IndexBuildingTable          = (*Table)(nil)
	_ sql.ForeignKeyTable             = (*Table)(nil)
	_ sql.CheckTable                  = (*Table)(nil)
	_ sql.CheckAlterableTable         = (*Table)(nil)
	_ sql.AlterableTable              = (*Table)(nil)
	_ sql.RewritableTable             = (*Table)(nil)
	_ sql.PrimaryKeyAlterableTable    = (*Table)(nil)
	_ sql.CollationAlterableTable     = (*Table)(nil)
	_ sql.CommentAlterableTable       = (*Table)(nil)
	_ sql.TargetRowSizeAlterableTable = (*Table)(nil)
	_ sql.TargetRowSizeTable          = (*Table)(nil)
)

func newTable(db *Database, t *catalog.Decoded) *Table { return &Table{db: db, t: t} }

func (t *Table) tid() uint32 { return t.t.Desc.ID }

// DefinitionVersion implements pointplan.Definition: the table's definition as it is stored,
// none while a DDL statement changes it.
func (t *Table) DefinitionVersion() (pointplan.Version, bool) {
	if t.t.Digest == 0 {
		return pointplan.Version{}, false
	}
	return pointplan.Version{Database: t.db.desc.ID, Table: t.t.Desc.ID, Version: t.t.Desc.Version, Digest: t.t.Digest}, true
}

func (t *Table) Name() string                                       { return t.t.Desc.Name }
func (t *Table) String() string                                     { return t.t.Desc.Name }
func (t *Table) Database() string                                   { return t.db.desc.Name }
func (t *Table) Collation() sql.CollationID                         { return t.t.Desc.Collation }
func (t *Table) Comment() string                                    { return t.t.Desc.Comment }
func (t *Table) HasTargetRowSize() bool                             { return t.t.Desc.RowSize != 0 }
func (t *Table) GetTargetRowSize() uint64                           { return t.t.Desc.RowSize }
func (t *Table) IsTemporary() bool                                  { return false }
func (t *Table) PrimaryKeySchema(*sql.Context) sql.PrimaryKeySchema { return t.t.Schema }

func (t *Table) Schema(*sql.Context) sql.Schema {
	if t.projSchema != nil {
		return t.projSchema
	}
	return t.t.Schema.Schema
}

func (t *Table) WithProjections(ctx *sql.Context, cols []string) (sql.Table, error) {
	nt := *t
	if cols == nil {
		nt.proj, nt.projPos, nt.projSchema = nil, nil, nil
		return &nt, nil
	}
	nt.proj = cols
	nt.projPos = make([]int, len(cols))
	nt.projSchema = make(sql.Schema, len(cols))
	for i, c := range cols {
		pos := t.t.Schema.Schema.IndexOfColName(c)
		if pos < 0 {
			return nil, sql.ErrTableColumnNotFound.New(t.Name(), c)
		}
		nt.projPos[i] = pos
		nt.projSchema[i] = t.t.Schema.Schema[pos]
	}
	return &nt, nil
}

func (t *Table) Projections() []string { return t.proj }

// replace makes desc the table's descriptor (already written to the transaction).
func (t *Table) replace(ctx *sql.Context, desc *catalog.Table) error {
	nt, err := catalog.Decode(ctx, t.db.desc.Name, desc)
	if err != nil {
		return err
	}
	t.t = nt
	if t.proj != nil {
		p, err := t.WithProjections(ctx, t.proj)
		if err != nil {
			t.proj, t.projPos, t.projSchema = nil, nil, nil
			return nil
		}
		*t = *p.(*Table)
	}
	return nil
}

// current is the table's descriptor in the transaction: under its id, or, when a rewrite or
// TRUNCATE of this statement moved it, under its name.
func (t *Table) current(ctx *sql.Context, tx *txn) (*catalog.Decoded, error) {
	if _, ok, err := tx.get(kv.TableDescKey(t.db.desc.ID, t.tid())); err != nil {
		return nil, err
	} else if ok {
		return t.db.loadTable(ctx, tx, t.tid())
	}
	tid, err := t.db.tableID(tx, t.Name())
	if err != nil {
		return nil, err
	}
	if tid == 0 {
		return nil, sql.ErrTableNotFound.New(t.Name())
	}
	cur, err := t.db.loadTable(ctx, tx, tid)
	if err != nil {
		return nil, err
	}
	t.t = cur
	return cur, nil
}

// rowKey is the key of the row whose key suffix is pk.
func (t *Table) rowKey(pk []byte) []byte {
	k := kv.IndexPrefix(t.tid(), kv.IIDRows)
	return append(k, pk...)
}

// pkSuffix is the primary-key part of row's key; keyless tables have none (see editor).
func (t *Table) pkSuffix(row sql.Row) ([]byte, error) {
	var k []byte
	var err error
	for _, pos := range t.t.PKPos {
		k, err = keys.Append(k, t.t.Schema.Schema[pos].Type, row[pos])
		if err != nil {
			return nil, err
		}
	}
	return k, nil
}

// decodeRow turns a stored row into the engine's row: the whole schema (virtual columns nil,
// the engine computes them) or the projected columns.
func (t *Table) decodeRow(raw []byte) (sql.Row, error) {
	row, err := t.fullRow(raw)
	if err != nil {
		return nil, err
	}
	return t.project(row), nil
}

// project is a whole row's projected columns (the row itself without a projection).
func (t *Table) project(row sql.Row) sql.Row {
	if t.projPos == nil {
		return row
	}
	out := make(sql.Row, len(t.projPos))
	for i, p := range t.projPos {
		out[i] = row[p]
	}
	return out
}

// fullRow decodes a stored row over the whole schema, whatever the projection.
func (t *Table) fullRow(raw []byte) (sql.Row, error) {
	row := make(sql.Row, len(t.t.Schema.Schema))
	err := t.t.Codec.Decode(raw, row, nil)
	return row, err
}

// A table has one partition: all of its rows.
type partition struct{ key []byte }

func (p partition) Key() []byte { return p.key }

type partitionIter struct {
	parts []sql.Partition
	i     int
}

func (p *partitionIter) Next(*sql.Context) (sql.Partition, error) {
	if p.i >= len(p.parts) {
		return nil, io.EOF
	}
	p.i++
	return p.parts[p.i-1], nil
}

func (p *partitionIter) Close(*sql.Context) error { return nil }

func (t *Table) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return &partitionIter{parts: []sql.Partition{partition{key: kv.TablePrefix(t.tid())}}}, nil
}

func (t *Table) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, err
	}
	if ip, ok := p.(*indexPartition); ok {
		return &rowIter{tbl: t, tx: tx, ranges: ip.ranges, secondary: ip.secondary, latest: ip.latest, filter: ip.filter}, nil
	}
	prefix := kv.IndexPrefix(t.tid(), kv.IIDRows)
	return &rowIter{tbl: t, tx: tx, ranges: []rangeSpec{{lower: prefix, upper: kv.PrefixEnd(prefix)}}}, nil
}

// RowCount is exact: the committed count plus the transaction's changes.
func (t *Table) RowCount(ctx *sql.Context) (uint64, bool, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return 0, false, err
	}
	n, err := tx.rowCount(t.tid())
	if n < 0 {
		n = 0
	}
	return uint64(n), true, err
}

// rowCount is table tid's row count as the transaction sees it: the committed count plus its
// own changes. The engine asks for it several times in every statement's planning, so the
// committed count is kept for as long as the reader it was read with (t.counts).
func (t *txn) rowCount(tid uint32) (int64, error) {
	t.countsMu.Lock()
	defer t.countsMu.Unlock()
	if r := t.reader(); t.countsFrom != r {
		t.counts, t.countsFrom = nil, r
	}
	n, ok := t.counts[tid]
	if !ok {
		v, found, err := t.get(kv.CounterKey(tid, kv.CtrRowCount))
		if err != nil {
			return 0, err
		}
		if found && len(v) == 8 {
			n = int64(binary.BigEndian.Uint64(v))
		}
		if t.counts == nil {
			t.counts = make(map[uint32]int64)
		}
		t.counts[tid] = n
	}
	return n + t.deltas[tid], nil
}

// writeCounters adds the row counts and AUTO_INCREMENT values the transaction changed to the
// batch, at commit.
func (t *txn) writeCounters() error {
	t.countsMu.Lock()
	t.counts = nil
	t.countsMu.Unlock()
	for tid, d := range t.deltas {
		if d == 0 {
			continue
		}
		v, ok, err := t.get(kv.CounterKey(tid, kv.CtrRowCount))
		if err != nil {
			return err
		}
		var n int64
		if ok && len(v) == 8 {
			n = int64(binary.BigEndian.Uint64(v))
		}
		if err := t.batch.Set(kv.CounterKey(tid, kv.CtrRowCount), binary.BigEndian.AppendUint64(nil, uint64(n+d)), nil); err != nil {
			return err
		}
	}
	t.deltas = nil
	s := t.store
	for tid := range t.autoInc {
		s.mu.Lock()
		next, ok := s.autoInc[tid]
		s.mu.Unlock()
		if ok {
			if err := t.batch.Set(kv.CounterKey(tid, kv.CtrAutoInc), binary.BigEndian.AppendUint64(nil, next), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// DataLength is the size of the table's rows (index entries not counted, as in InnoDB): the
// larger of Pebble's estimate of their space in the table files and the row count times the
// average size of a row. The second covers rows still in the memtables, which the first does not
// see (a new or small table is all there). The planner asks for it, so it costs no scan: the
// average is sampled once per table id from its first rows.
func (t *Table) DataLength(ctx *sql.Context) (uint64, error) {
	s := t.db.p.store
	prefix := kv.IndexPrefix(t.tid(), kv.IIDRows)
	disk, err := s.kv.DB().EstimateDiskUsage(prefix, kv.PrefixEnd(prefix))
	if err != nil {
		disk = 0
	}
	rows, _, err := t.RowCount(ctx)
	if err != nil || rows == 0 {
		return disk, nil
	}
	return max(disk, rows*s.rowSize(t.tid())), nil
}

// rowSizeSample is how many rows rowSize averages.
const rowSizeSample = 32

// rowSize is the average size (key and value) of the first rows of table tid, sampled once per
// table id and kept; 0 while the table has no committed row.
func (s *Store) rowSize(tid uint32) uint64 {
	if v, ok := s.rowSizes.Load(tid); ok {
		return v.(uint64)
	}
	prefix := kv.IndexPrefix(tid, kv.IIDRows)
	it, err := s.kv.DB().NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: kv.PrefixEnd(prefix)})
	if err != nil {
		return 0
	}
	var n, total uint64
	for ok := it.First(); ok && n < rowSizeSample; ok = it.Next() {
		total += uint64(len(it.Key()) + len(it.Value()))
		n++
	}
	_ = it.Close()
	if n == 0 {
		return 0
	}
	avg := total / n
	s.rowSizes.Store(tid, avg)
	return avg
}

// AUTO_INCREMENT: one counter per table id in the store, shared by the sessions, never rolled
// back (as in MySQL: gaps stay), persisted with each commit that moved it.

func (s *Store) autoIncValue(tx *txn, tid uint32, hasAuto bool) (uint64, error) {
	s.mu.Lock()
	v, ok := s.autoInc[tid]
	s.mu.Unlock()
	if ok {
		return v, nil
	}
	raw, found, err := tx.get(kv.CounterKey(tid, kv.CtrAutoInc))
	if err != nil {
		return 0, err
	}
	v = 0
	if hasAuto {
		v = 1
	}
	if found && len(raw) == 8 {
		v = binary.BigEndian.Uint64(raw)
	}
	s.mu.Lock()
	if cur, ok := s.autoInc[tid]; ok {
		v = cur
	} else {
		s.autoInc[tid] = v
	}
	s.mu.Unlock()
	return v, nil
}

func (s *Store) setAutoInc(tx *txn, tid uint32, v uint64) {
	s.mu.Lock()
	s.autoInc[tid] = v
	s.mu.Unlock()
	if tx.autoInc == nil {
		tx.autoInc = map[uint32]bool{}
	}
	tx.autoInc[tid] = true
}

func (t *Table) autoCol() *sql.Column {
	if t.t.AutoInc < 0 {
		return nil
	}
	return t.t.Schema.Schema[t.t.AutoInc]
}

func (t *Table) PeekNextAutoIncrementValue(ctx *sql.Context) (uint64, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return 0, err
	}
	v, err := t.db.p.store.autoIncValue(tx, t.tid(), t.t.AutoInc >= 0)
	if err != nil {
		return 0, err
	}
	if col := t.autoCol(); col != nil {
		if _, inRange, err := col.Type.Convert(ctx, v); err == nil && inRange != sql.InRange && v > 0 {
			return v - 1, nil
		}
	}
	return v, nil
}

func (t *Table) GetNextAutoIncrementValue(ctx *sql.Context, insertVal interface{}) (uint64, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return 0, err
	}
	s := t.db.p.store
	cur, err := s.autoIncValue(tx, t.tid(), t.t.AutoInc >= 0)
	if err != nil {
		return 0, err
	}
	if insertVal != nil {
		cmp, err := types.Uint64.Compare(ctx, insertVal, cur)
		if err != nil {
			return 0, err
		}
		if cmp > 0 {
			v, _, err := types.Uint64.Convert(ctx, insertVal)
			if err != nil {
				return 0, err
			}
			// the counter moves when the row is written (noteAutoInc), not here: a value
			// the insert then refuses must not move it
			cur = v.(uint64)
		}
	}
	return cur, nil
}

// noteAutoInc moves the counter past an inserted value.
func (t *Table) noteAutoInc(ctx *sql.Context, tx *txn, row sql.Row) error {
	col := t.autoCol()
	if col == nil || row[t.t.AutoInc] == nil {
		return nil
	}
	s := t.db.p.store
	cur, err := s.autoIncValue(tx, t.tid(), true)
	if err != nil {
		return err
	}
	cmp, err := col.Type.Compare(ctx, row[t.t.AutoInc], cur)
	if err != nil {
		return err
	}
	if cmp < 0 {
		return nil
	}
	if cmp > 0 {
		v, _, err := types.Uint64.Convert(ctx, row[t.t.AutoInc])
		if err != nil {
			return nil // negative values do not move the counter
		}
		cur = v.(uint64)
	}
	if cur != ^uint64(0) {
		if _, inRange, err := col.Type.Convert(ctx, cur+1); err == nil && inRange == sql.InRange {
			cur++
		}
	}
	s.setAutoInc(tx, t.tid(), cur)
	return nil
}

func (t *Table) AutoIncrementSetter(ctx *sql.Context) sql.AutoIncrementSetter {
	return &autoIncSetter{t: t}
}

type autoIncSetter struct{ t *Table }

func (a *autoIncSetter) SetAutoIncrementValue(ctx *sql.Context, v uint64) error {
	tx, err := txnOf(ctx)
	if err != nil {
		return err
	}
	if err := tx.beginWrite(ctx); err != nil {
		return err
	}
	a.t.db.p.store.setAutoInc(tx, a.t.tid(), v)
	return nil
}

func (a *autoIncSetter) AcquireAutoIncrementLock(*sql.Context) (func(), error) {
	return func() {}, nil
}

func (a *autoIncSetter) Close(*sql.Context) error { return nil }

// Checks and foreign keys live in the descriptor.

func (t *Table) GetChecks(*sql.Context) ([]sql.CheckDefinition, error) {
	return append([]sql.CheckDefinition(nil), t.t.Desc.Checks...), nil
}

// alter writes a changed descriptor: f edits a copy, which replaces the table's.
func (t *Table) alter(ctx *sql.Context, f func(d *catalog.Table) error) error {
	tx, err := t.db.writer(ctx)
	if err != nil {
		return err
	}
	// read the current descriptor of the transaction: the Table may be older than it
	cur, err := t.current(ctx, tx)
	if err != nil {
		return err
	}
	d := cur.Desc.Clone()
	if err := f(d); err != nil {
		return err
	}
	d.Version = cur.Desc.Version + 1
	if err := d.CheckKeyTypes(ctx); err != nil {
		return err
	}
	if err := t.db.writeDesc(ctx, tx, d, nil); err != nil {
		return err
	}
	return t.replace(ctx, d)
}

func (t *Table) CreateCheck(ctx *sql.Context, check *sql.CheckDefinition) error {
	return t.alter(ctx, func(d *catalog.Table) error { return d.AddCheck(check) })
}

func (t *Table) DropCheck(ctx *sql.Context, name string) error {
	return t.alter(ctx, func(d *catalog.Table) error { return d.DropCheck(name) })
}

func (t *Table) GetDeclaredForeignKeys(*sql.Context) ([]sql.ForeignKeyConstraint, error) {
	out := make([]sql.ForeignKeyConstraint, len(t.t.Desc.FKs))
	for i, fk := range t.t.Desc.FKs {
		fk.Columns = append([]string(nil), fk.Columns...)
		fk.ParentColumns = append([]string(nil), fk.ParentColumns...)
		out[i] = fk
	}
	return out, nil
}

// GetReferencedForeignKeys looks through the tables of every database for keys that name this
// table as their parent.
func (t *Table) GetReferencedForeignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	var out []sql.ForeignKeyConstraint
	for _, sdb := range t.db.p.AllDatabases(ctx) {
		db := sdb.(*Database)
		tables, err := db.tables(ctx)
		if err != nil {
			return nil, err
		}
		for _, other := range tables {
			for _, fk := range other.Desc.FKs {
				if strings.EqualFold(fk.ParentDatabase, t.db.desc.Name) && strings.EqualFold(fk.ParentTable, t.Name()) {
					fk.Columns = append([]string(nil), fk.Columns...)
					fk.ParentColumns = append([]string(nil), fk.ParentColumns...)
					out = append(out, fk)
				}
			}
		}
	}
	return out, nil
}

func (t *Table) AddForeignKey(ctx *sql.Context, fk sql.ForeignKeyConstraint) error {
	return t.alter(ctx, func(d *catalog.Table) error { return d.AddForeignKey(fk) })
}

func (t *Table) DropForeignKey(ctx *sql.Context, fkName, tableName, schemaName string) error {
	return t.alter(ctx, func(d *catalog.Table) error {
		if !d.DropForeignKey(fkName) {
			return sql.ErrForeignKeyNotFound.New(fkName, t.Name())
		}
		return nil
	})
}

func (t *Table) UpdateForeignKey(ctx *sql.Context, fkName string, fk sql.ForeignKeyConstraint) error {
	return t.alter(ctx, func(d *catalog.Table) error {
		if !d.UpdateForeignKey(fkName, fk) {
			return sql.ErrForeignKeyNotFound.New(fkName, t.Name())
		}
		return nil
	})
}

func (t *Table) CreateIndexForForeignKey(ctx *sql.Context, def sql.IndexDef) error {
	if err := t.CreateIndex(ctx, def); err != nil {
		return err
	}
	return t.buildIndexNow(ctx, def.Name)
}

func (t *Table) GetForeignKeyEditor(ctx *sql.Context) sql.ForeignKeyEditor {
	return t.newEditor(ctx)
}

func (t *Table) ModifyStoredCollation(ctx *sql.Context, collation sql.CollationID) error {
	return mysqlerr.New(mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support 'converting the stored values of a table to another collation'")
}

func (t *Table) ModifyDefaultCollation(ctx *sql.Context, collation sql.CollationID) error {
	return t.alter(ctx, func(d *catalog.Table) error {
		d.Collation = collation
		return nil
	})
}

func (t *Table) ModifyComment(ctx *sql.Context, comment string) error {
	return t.alter(ctx, func(d *catalog.Table) error {
		d.Comment = comment
		return nil
	})
}

func (t *Table) ModifyTargetRowSize(ctx *sql.Context, size uint64) error {
	return t.alter(ctx, func(d *catalog.Table) error {
		d.RowSize = size
		return nil
	})
}

// Truncate moves the table to a fresh, empty table id; the old id's data is deleted after the
// commit, and a rollback brings the old id back. AUTO_INCREMENT starts again.
func (t *Table) Truncate(ctx *sql.Context) (int, error) {
	tx, err := t.db.writer(ctx)
	if err != nil {
		return 0, err
	}
	n, err := tx.rowCount(t.tid())
	if err != nil {
		return 0, err
	}
	cur, err := t.current(ctx, tx)
	if err != nil {
		return 0, err
	}
	d := cur.Desc.Clone()
	if err := t.db.moveTable(ctx, tx, cur.Desc, d); err != nil {
		return 0, err
	}
	if err := t.replace(ctx, d); err != nil {
		return 0, err
	}
	return int(n), nil
}

// moveTable gives d (a changed copy of old) a fresh table id: its descriptor is written under
// it, the name points at it, and old's id is obsolete.
func (db *Database) moveTable(ctx *sql.Context, tx *txn, old, d *catalog.Table) error {
	tid, err := tx.nextCounter(kv.KeyNextTable)
	if err != nil {
		return err
	}
	d.ID = uint32(tid)
	d.Version = old.Version + 1
	if err := db.writeDesc(ctx, tx, d, nil); err != nil {
		return err
	}
	if err := tx.delKnown(kv.TableDescKey(db.desc.ID, old.ID)); err != nil {
		return err
	}
	if err := tx.putKnown(kv.TableNameKey(db.desc.ID, strings.ToLower(d.Name)), binary.BigEndian.AppendUint32(nil, d.ID)); err != nil {
		return err
	}
	return tx.markObsolete(old.ID)
}
