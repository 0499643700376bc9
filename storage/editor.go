package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"overloadsql/storage/catalog"
	"overloadsql/storage/keys"
	"overloadsql/storage/kv"
)

// editor is every row editor of a table: inserter, updater, deleter, replacer, the foreign-key
// editor and the editors of ALTER's rewrite and CREATE INDEX's build. It writes rows and their
// index entries into the transaction's batch, checking every unique key before it writes, so
// that a failing insert writes nothing and returns the row it collided with (REPLACE and ON
// DUPLICATE KEY UPDATE depend on that).
type editor struct {
	*Table
	tx  *txn
	err error
	// mark is the undo-log length at StatementBegin.
	mark int
	// build, when set, limits the editor to writing that index's entries (CREATE INDEX).
	build *catalog.DecodedIndex
	// rewrite, when set, is the ALTER that rewrites the table into dst.
	rewrite *rewrite
	// viewTID is the table whose view the editor's statement froze.
	viewTID uint32
	// open: the editor's statement is counted in tx.editors (StatementBegin to
	// StatementComplete, DiscardChanges or Close).
	open bool
}

var (
	_ sql.TableEditor         = (*editor)(nil)
	_ sql.ForeignKeyEditor    = (*editor)(nil)
	_ sql.AutoIncrementSetter = (*editor)(nil)
)

func (t *Table) newEditor(ctx *sql.Context) *editor {
	e := &editor{Table: t}
	e.tx, e.err = txnOf(ctx)
	if e.err == nil {
		e.tx.table = t.Name()
		e.err = e.tx.beginWrite(ctx)
	}
	if e.err == nil {
		// the editor writes the table as the transaction has it now
		if cur, err := t.current(ctx, e.tx); err == nil {
			nt := *t
			nt.t = cur
			e.Table = &nt
		} else {
			e.err = err
		}
	}
	e.mark = -1
	return e
}

// begin and end count the editor's statement in tx.editors.
func (e *editor) begin() {
	if e.tx != nil && !e.open {
		e.open = true
		e.viewTID = e.tid()
		e.tx.beginTableView(e.viewTID)
		e.tx.editors++
	}
}

func (e *editor) end() {
	if e.open {
		e.open = false
		if e.tx.editors > 0 {
			e.tx.editors--
		}
		e.tx.endTableView(e.viewTID)
	}
}

func (t *Table) Inserter(ctx *sql.Context) sql.RowInserter { return t.newEditor(ctx) }
func (t *Table) Updater(ctx *sql.Context) sql.RowUpdater   { return t.newEditor(ctx) }
func (t *Table) Deleter(ctx *sql.Context) sql.RowDeleter   { return t.newEditor(ctx) }
func (t *Table) Replacer(ctx *sql.Context) sql.RowReplacer { return t.newEditor(ctx) }

func (e *editor) StatementBegin(ctx *sql.Context) {
	if e.tx != nil {
		e.mark = len(e.tx.undo)
		e.begin()
	}
}

// DiscardChanges undoes the editor's statement unless the error is one the engine ignores
// (INSERT IGNORE). With several editors in one statement the earliest mark wins.
func (e *editor) DiscardChanges(ctx *sql.Context, cause error) error {
	e.end()
	if _, ignore := cause.(sql.IgnorableError); ignore || e.tx == nil || e.mark < 0 || e.tx.done {
		return nil
	}
	if e.rewrite != nil {
		e.rewrite.discarded = true
	}
	return e.tx.rollbackTo(e.mark)
}

func (e *editor) StatementComplete(ctx *sql.Context) error {
	e.end()
	return nil
}

func (e *editor) Close(ctx *sql.Context) error {
	e.end()
	if e.rewrite != nil && e.err == nil {
		return e.rewrite.finish(ctx, e)
	}
	return nil
}

func (e *editor) SetAutoIncrementValue(ctx *sql.Context, v uint64) error {
	if e.err != nil {
		return e.err
	}
	e.db.p.store.setAutoInc(e.tx, e.tid(), v)
	return nil
}

func (e *editor) AcquireAutoIncrementLock(*sql.Context) (func(), error) { return func() {}, nil }

// IndexedAccess is the foreign-key editor's lookup: it sees the statement's own writes.
func (e *editor) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	return &IndexedTable{Table: e.Table, lookup: lookup, latest: true}
}

// rowKeyOf is the key suffix of a row to write: its primary key, or a new hidden row id.
func (e *editor) newRowKey(row sql.Row) ([]byte, error) {
	if len(e.t.PKPos) > 0 {
		return e.pkSuffix(row)
	}
	id, err := e.nextRowID()
	if err != nil {
		return nil, err
	}
	return binary.BigEndian.AppendUint64(nil, id), nil
}

// nextRowID is the next hidden row id of a keyless table: after the largest one in use.
func (e *editor) nextRowID() (uint64, error) {
	s := e.db.p.store
	tid := e.tid()
	s.mu.Lock()
	next, ok := s.rowIDs[tid]
	s.mu.Unlock()
	if !ok {
		prefix := kv.IndexPrefix(tid, kv.IIDRows)
		it, err := e.tx.openIter(e.tid(), prefix, kv.PrefixEnd(prefix), true)
		if err != nil {
			return 0, err
		}
		next = 1
		if it.Last() && len(it.Key()) == len(prefix)+8 {
			next = binary.BigEndian.Uint64(it.Key()[len(prefix):]) + 1
		}
		if err := e.tx.closeIter(it, false); err != nil {
			return 0, err
		}
	}
	s.mu.Lock()
	if cur, ok := s.rowIDs[tid]; ok && cur > next {
		next = cur
	}
	s.rowIDs[tid] = next + 1
	s.mu.Unlock()
	return next, nil
}

// indexKey is the entry key of row in index idx; unique entries of rows without NULL in the
// index are keyed by the columns alone (so that a duplicate is one Get), the others end with
// the row key suffix pk.
func (e *editor) indexKey(idx *catalog.DecodedIndex, row sql.Row, pk []byte) (key []byte, uniqueKey bool, err error) {
	k := kv.IndexPrefix(e.tid(), idx.Desc.ID)
	hasNull := false
	for j, pos := range idx.Pos {
		v := row[pos]
		if v == nil {
			hasNull = true
		}
		typ := e.t.Schema.Schema[pos].Type
		if j < len(idx.Desc.Prefix) && idx.Desc.Prefix[j] > 0 {
			k, err = keys.AppendPrefix(k, typ, v, int(idx.Desc.Prefix[j]))
		} else {
			k, err = keys.Append(k, typ, v)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if idx.Desc.Unique && !hasNull {
		return k, true, nil
	}
	return append(k, pk...), false, nil
}

func (e *editor) hashKey(enc, pk []byte) []byte {
	k := kv.IndexPrefix(e.tid(), kv.IIDRowHash)
	k = binary.BigEndian.AppendUint64(k, xxhash.Sum64(enc))
	return append(k, pk...)
}

// checkRow refuses a row whose width does not match the table's, or with a value its
// column's type does not hold (the engine leaves this check, invalid text included, to the
// storage).
func (e *editor) checkRow(ctx *sql.Context, row sql.Row) error {
	if len(row) != len(e.t.Schema.Schema) {
		return fmt.Errorf("storage: a row of %d values for table %s of %d columns", len(row), e.Name(), len(e.t.Schema.Schema))
	}
	for i, v := range row {
		if v != nil && !e.t.Schema.Schema[i].Check(ctx, v) {
			return sql.ErrInvalidType.New(v)
		}
	}
	return nil
}

func (e *editor) indexes() []*catalog.DecodedIndex {
	if e.build != nil {
		return []*catalog.DecodedIndex{e.build}
	}
	return e.t.Indexes
}

// uniqueConflict finds the row that a write of row (with key suffix pk) would duplicate in a
// unique index, skipping the row with suffix self.
func (e *editor) uniqueConflict(ctx *sql.Context, row sql.Row, pk, self []byte) error {
	for _, idx := range e.indexes() {
		if !idx.Desc.Unique {
			continue
		}
		k, unique, err := e.indexKey(idx, row, pk)
		if err != nil {
			return err
		}
		if !unique {
			continue
		}
		other, found, err := e.tx.get(k)
		if err != nil {
			return err
		}
		if !found || (self != nil && bytes.Equal(other, self)) {
			continue
		}
		raw, ok, err := e.tx.get(e.rowKey(other))
		if err != nil {
			return err
		}
		var existing sql.Row
		if ok {
			if existing, err = e.fullRow(raw); err != nil {
				return err
			}
		}
		return sql.NewUniqueKeyErr(formatKey(row, idx.Pos), false, existing)
	}
	return nil
}

func formatKey(row sql.Row, pos []int) string {
	var b strings.Builder
	b.WriteString("[")
	for i, p := range pos {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%v", row[p])
	}
	b.WriteString("]")
	return b.String()
}

func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	if e.err != nil {
		return e.err
	}
	if err := e.checkRow(ctx, row); err != nil {
		return err
	}
	if e.build != nil {
		return e.buildEntry(ctx, row)
	}
	pk, err := e.newRowKey(row)
	if err != nil {
		return err
	}
	rk := e.rowKey(pk)
	if len(e.t.PKPos) > 0 {
		raw, found, err := e.tx.get(rk)
		if err != nil {
			return err
		}
		if found {
			existing, err := e.fullRow(raw)
			if err != nil {
				return err
			}
			return sql.NewUniqueKeyErr(formatKey(row, e.t.PKPos), true, existing)
		}
	}
	if err := e.uniqueConflict(ctx, row, pk, nil); err != nil {
		return err
	}
	enc, err := e.t.Codec.Encode(ctx, nil, row)
	if err != nil {
		return err
	}
	if err := e.tx.put(rk, enc, nil, false, e.tid(), 1); err != nil {
		return err
	}
	if err := e.putEntries(row, pk, enc); err != nil {
		return err
	}
	return e.noteAutoInc(ctx, e.tx, row)
}

// putEntries writes the index entries of a new row.
func (e *editor) putEntries(row sql.Row, pk, enc []byte) error {
	for _, idx := range e.t.Indexes {
		k, _, err := e.indexKey(idx, row, pk)
		if err != nil {
			return err
		}
		if err := e.tx.put(k, pk, nil, false, 0, 0); err != nil {
			return err
		}
	}
	if len(e.t.PKPos) == 0 {
		if err := e.tx.put(e.hashKey(enc, pk), pk, nil, false, 0, 0); err != nil {
			return err
		}
	}
	return nil
}

// delEntries deletes the index entries of a stored row.
func (e *editor) delEntries(row sql.Row, pk, enc []byte) error {
	for _, idx := range e.t.Indexes {
		k, _, err := e.indexKey(idx, row, pk)
		if err != nil {
			return err
		}
		if err := e.tx.del(k, pk, true, 0, 0); err != nil {
			return err
		}
	}
	if len(e.t.PKPos) == 0 {
		if err := e.tx.del(e.hashKey(enc, pk), pk, true, 0, 0); err != nil {
			return err
		}
	}
	return nil
}

// buildEntry writes the entry of a row in the index being built.
func (e *editor) buildEntry(ctx *sql.Context, row sql.Row) error {
	var pk []byte
	var err error
	if len(e.t.PKPos) > 0 {
		pk, err = e.pkSuffix(row)
	} else {
		pk, err = e.findKeyless(ctx, row)
		if err == nil && pk == nil {
			return fmt.Errorf("storage: building index %s: a row of %s was not found", e.build.Desc.Name, e.Name())
		}
	}
	if err != nil {
		return err
	}
	if err := e.uniqueConflict(ctx, row, pk, nil); err != nil {
		return err
	}
	k, _, err := e.indexKey(e.build, row, pk)
	if err != nil {
		return err
	}
	return e.tx.put(k, pk, nil, false, 0, 0)
}

// findKeyless finds the row id of a stored row equal to row in a keyless table (nil if none).
func (e *editor) findKeyless(ctx *sql.Context, row sql.Row) ([]byte, error) {
	enc, err := e.t.Codec.Encode(ctx, nil, row)
	if err != nil {
		return nil, err
	}
	prefix := kv.IndexPrefix(e.tid(), kv.IIDRowHash)
	prefix = binary.BigEndian.AppendUint64(prefix, xxhash.Sum64(enc))
	it, err := e.tx.openIter(e.tid(), prefix, kv.PrefixEnd(prefix), true)
	if err != nil {
		return nil, err
	}
	var found []byte
	for ok := it.First(); ok; ok = it.Next() {
		pk := append([]byte(nil), it.Key()[len(prefix):]...)
		raw, ok, err := e.tx.get(e.rowKey(pk))
		if err != nil {
			_ = e.tx.closeIter(it, false)
			return nil, err
		}
		if ok && bytes.Equal(raw, enc) {
			found = pk
			break
		}
	}
	if err := e.tx.closeIter(it, false); err != nil {
		return nil, err
	}
	return found, nil
}

// storedKey is the key suffix of the stored row equal to row, with its stored bytes.
func (e *editor) storedKey(ctx *sql.Context, row sql.Row) (pk, raw []byte, found bool, err error) {
	if len(e.t.PKPos) > 0 {
		pk, err = e.pkSuffix(row)
		if err != nil {
			return nil, nil, false, err
		}
	} else {
		pk, err = e.findKeyless(ctx, row)
		if err != nil || pk == nil {
			return nil, nil, false, err
		}
	}
	raw, found, err = e.tx.get(e.rowKey(pk))
	return pk, raw, found, err
}

func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	if e.err != nil {
		return e.err
	}
	if err := e.checkRow(ctx, row); err != nil {
		return err
	}
	pk, raw, found, err := e.storedKey(ctx, row)
	if err != nil || !found {
		return err
	}
	// index entries are computed from the stored row
	stored, err := e.fullRow(raw)
	if err != nil {
		return err
	}
	if err := e.tx.del(e.rowKey(pk), raw, true, e.tid(), -1); err != nil {
		return err
	}
	return e.delEntries(stored, pk, raw)
}

// withVirtual is row with its virtual columns computed from the others: the engine's
// INSERT ... ON DUPLICATE KEY UPDATE hands over the updated row with the virtual values of the
// old one, and the stored values are what the indexes over virtual columns are kept by.
func (e *editor) withVirtual(ctx *sql.Context, row sql.Row) (sql.Row, error) {
	if !e.t.HasVirtual {
		return row, nil
	}
	out := row.Copy()
	for i, col := range e.t.Schema.Schema {
		if !col.Virtual || col.Generated == nil || i >= len(out) {
			continue
		}
		// the stored expression's field indexes are not the schema's: bind them by name
		expr, _, err := transform.Expr(ctx, col.Generated.Expr, func(ctx *sql.Context, x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if gf, ok := x.(*expression.GetField); ok {
				if j := e.t.Schema.Schema.IndexOfColName(gf.Name()); j >= 0 {
					return gf.WithIndex(j), transform.NewTree, nil
				}
			}
			return x, transform.SameTree, nil
		})
		if err != nil {
			return nil, err
		}
		v, err := expr.Eval(ctx, out)
		if err != nil {
			return nil, err
		}
		if v, _, err = col.Type.Convert(ctx, v); err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (e *editor) Update(ctx *sql.Context, old, new sql.Row) error {
	if e.err != nil {
		return e.err
	}
	if err := e.checkRow(ctx, old); err != nil {
		return err
	}
	if err := e.checkRow(ctx, new); err != nil {
		return err
	}
	new, err := e.withVirtual(ctx, new)
	if err != nil {
		return err
	}
	pk, raw, found, err := e.storedKey(ctx, old)
	if err != nil {
		return err
	}
	if !found {
		return nil
	}
	stored, err := e.fullRow(raw)
	if err != nil {
		return err
	}
	newPK := pk
	if len(e.t.PKPos) > 0 {
		if newPK, err = e.pkSuffix(new); err != nil {
			return err
		}
		if !bytes.Equal(newPK, pk) {
			if other, found, err := e.tx.get(e.rowKey(newPK)); err != nil {
				return err
			} else if found {
				existing, err := e.fullRow(other)
				if err != nil {
					return err
				}
				return sql.NewUniqueKeyErr(formatKey(new, e.t.PKPos), true, existing)
			}
		}
	}
	if err := e.uniqueConflict(ctx, new, newPK, pk); err != nil {
		return err
	}
	enc, err := e.t.Codec.Encode(ctx, nil, new)
	if err != nil {
		return err
	}
	if err := e.delEntries(stored, pk, raw); err != nil {
		return err
	}
	if bytes.Equal(newPK, pk) {
		if err := e.tx.put(e.rowKey(pk), enc, raw, true, e.tid(), 0); err != nil {
			return err
		}
	} else {
		if err := e.tx.del(e.rowKey(pk), raw, true, e.tid(), -1); err != nil {
			return err
		}
		if err := e.tx.put(e.rowKey(newPK), enc, nil, false, e.tid(), 1); err != nil {
			return err
		}
	}
	if err := e.putEntries(new, newPK, enc); err != nil {
		return err
	}
	return e.noteAutoInc(ctx, e.tx, new)
}
