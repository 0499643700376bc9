package storage

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"overloadsql/storage/catalog"
	"overloadsql/storage/keys"
	"overloadsql/storage/kv"
)

// Index is the primary key (PRIMARY) or a secondary index of a table. Its entries are ordered
// by the key encoding of its columns, then by primary key; a lookup reads the key ranges of
// the engine's ranges. The engine keeps its filter above every lookup (PreciseMatch is
// false), so a range may be read wider than asked: after a prefix column, or a column the
// encoder cannot bound, the later columns are not narrowed.
type Index struct {
	tbl *Table
	// info is nil for PRIMARY.
	info *catalog.DecodedIndex
}

var (
	_ sql.Index         = (*Index)(nil)
	_ sql.ExtendedIndex = (*Index)(nil)
	_ sql.OrderedIndex  = (*Index)(nil)
)

func (i *Index) primary() bool { return i.info == nil }

func (i *Index) ID() string {
	if i.primary() {
		return "PRIMARY"
	}
	return i.info.Desc.Name
}

func (i *Index) Database() string { return i.tbl.db.desc.Name }
func (i *Index) Table() string    { return i.tbl.Name() }

// positions are the schema positions of the index's columns.
func (i *Index) positions() []int {
	if i.primary() {
		return i.tbl.t.PKPos
	}
	return i.info.Pos
}

func (i *Index) colExpr(pos int) string {
	return i.tbl.Name() + "." + i.tbl.t.Schema.Schema[pos].Name
}

func (i *Index) Expressions() []string {
	pos := i.positions()
	out := make([]string, len(pos))
	for j, p := range pos {
		out[j] = i.colExpr(p)
	}
	return out
}

func (i *Index) extendedPositions() []int {
	pos := append([]int(nil), i.positions()...)
	if i.primary() {
		return pos
	}
	for _, pk := range i.tbl.t.PKPos {
		found := false
		for _, p := range pos {
			if p == pk {
				found = true
			}
		}
		if !found {
			pos = append(pos, pk)
		}
	}
	return pos
}

func (i *Index) ExtendedExpressions(*sql.Context) []string {
	pos := i.extendedPositions()
	out := make([]string, len(pos))
	for j, p := range pos {
		out[j] = i.colExpr(p)
	}
	return out
}

func (i *Index) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	return i.cets(i.positions())
}

func (i *Index) ExtendedColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	return i.cets(i.extendedPositions())
}

func (i *Index) cets(pos []int) []sql.ColumnExpressionType {
	out := make([]sql.ColumnExpressionType, len(pos))
	for j, p := range pos {
		out[j] = sql.ColumnExpressionType{Expression: i.colExpr(p), Type: i.tbl.t.Schema.Schema[p].Type}
	}
	return out
}

func (i *Index) IsUnique() bool {
	return i.primary() || i.info.Desc.Unique
}

func (i *Index) IsSpatial() bool                            { return false }
func (i *Index) IsFullText() bool                           { return false }
func (i *Index) IsVector() bool                             { return false }
func (i *Index) IsGenerated() bool                          { return false }
func (i *Index) IndexType() string                          { return "BTREE" }
func (i *Index) CanSupport(*sql.Context, ...sql.Range) bool { return true }
func (i *Index) CanSupportOrderBy(sql.Expression) bool      { return false }
func (i *Index) Order(*sql.Context) sql.IndexOrder          { return sql.IndexOrderAsc }
func (i *Index) Reversible(*sql.Context) bool               { return true }

func (i *Index) Comment() string {
	if i.primary() {
		return ""
	}
	return i.info.Desc.Comment
}

func (i *Index) PrefixLengths() []uint16 {
	if i.primary() {
		return nil
	}
	for _, p := range i.info.Desc.Prefix {
		if p > 0 {
			return append([]uint16(nil), i.info.Desc.Prefix...)
		}
	}
	return nil
}

// CoversColumns: PRIMARY holds every column; a secondary index holds only its key.
func (i *Index) CoversColumns(cols []string) bool {
	if i.primary() {
		return true
	}
	for _, c := range cols {
		found := false
		for _, p := range i.extendedPositions() {
			if strings.EqualFold(i.tbl.t.Schema.Schema[p].Name, c) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return false
}

func (i *Index) prefixOf(j int) int {
	if i.primary() || j >= len(i.info.Desc.Prefix) {
		return 0
	}
	return int(i.info.Desc.Prefix[j])
}

func (i *Index) keyPrefix() []byte {
	if i.primary() {
		return kv.IndexPrefix(i.tbl.tid(), kv.IIDRows)
	}
	return kv.IndexPrefix(i.tbl.tid(), i.info.Desc.ID)
}

// GetIndexes implements sql.IndexAddressable: PRIMARY when there is a primary key, then the
// secondary indexes in creation order.
func (t *Table) GetIndexes(*sql.Context) ([]sql.Index, error) {
	var out []sql.Index
	if len(t.t.PKPos) > 0 {
		out = append(out, &Index{tbl: t})
	}
	for _, info := range t.t.Indexes {
		out = append(out, &Index{tbl: t, info: info})
	}
	return out, nil
}

func (t *Table) PreciseMatch() bool { return false }

func (t *Table) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	return &IndexedTable{Table: t, lookup: lookup}
}

// IndexedTable is a table read through one index lookup.
type IndexedTable struct {
	*Table
	lookup sql.IndexLookup
	latest bool
}

var _ sql.IndexedTable = (*IndexedTable)(nil)

func (it *IndexedTable) LookupPartitions(ctx *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	p, err := it.Table.lookupPartition(ctx, lookup)
	if err != nil {
		return nil, err
	}
	p.latest = it.latest
	return &partitionIter{parts: []sql.Partition{p}}, nil
}

func (it *IndexedTable) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return it.LookupPartitions(ctx, it.lookup)
}

// indexPartition is the key ranges of a lookup.
type indexPartition struct {
	ranges    []rangeSpec
	secondary bool
	latest    bool
}

func (p *indexPartition) Key() []byte { return []byte("lookup") }

// lookupPartition turns the engine's ranges into key ranges of the index.
func (t *Table) lookupPartition(ctx *sql.Context, lookup sql.IndexLookup) (*indexPartition, error) {
	idx, ok := lookup.Index.(*Index)
	if !ok {
		return nil, fmt.Errorf("storage: index %s is not of this storage", lookup.Index.ID())
	}
	// the lookup's index may belong to an older Table value of the same table
	idx = &Index{tbl: t, info: idx.info}
	if idx.info != nil {
		found := false
		for _, info := range t.t.Indexes {
			if info.Desc.ID == idx.info.Desc.ID {
				idx.info, found = info, true
			}
		}
		if !found {
			return nil, fmt.Errorf("storage: index %s no longer exists", lookup.Index.ID())
		}
	}
	p := &indexPartition{secondary: !idx.primary()}
	if lookup.IsEmptyRange {
		return p, nil
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		return nil, fmt.Errorf("storage: unsupported range type %T", lookup.Ranges)
	}
	for _, r := range ranges {
		lo, hi, ok, exact, err := idx.bounds(ctx, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		// every primary-key column one value: the range holds at most the row keyed lo, as
		// each column's key is self-delimiting (storage/keys), so no other key extends lo
		point := idx.primary() && exact
		p.ranges = append(p.ranges, rangeSpec{lower: lo, upper: hi, reverse: lookup.IsReverse, point: point})
	}
	p.ranges = mergeRanges(p.ranges, lookup.IsReverse)
	return p, nil
}

// mergeRanges sorts key ranges and merges those that overlap: the engine's ranges do not, but
// a range read wider than asked can overlap its neighbours, and a row must come once. The
// merged ranges are in key order (reversed for a reverse lookup), which is the engine's order.
func mergeRanges(rs []rangeSpec, reverse bool) []rangeSpec {
	if len(rs) < 2 {
		return rs
	}
	sort.Slice(rs, func(i, j int) bool { return bytes.Compare(rs[i].lower, rs[j].lower) < 0 })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if bytes.Compare(r.lower, last.upper) <= 0 {
			last.point = last.point && r.point && bytes.Equal(r.lower, last.lower) && bytes.Equal(r.upper, last.upper)
			if bytes.Compare(r.upper, last.upper) > 0 {
				last.upper = r.upper
			}
			continue
		}
		out = append(out, r)
	}
	if reverse {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// bounds are the key bounds [lo, hi) of one range of the index; ok is false for a range
// that holds no key. exact: every column of the index is one value (or IS NULL) in r and lo
// is their whole key.
func (i *Index) bounds(ctx *sql.Context, r sql.MySQLRange) (lo, hi []byte, ok, exact bool, err error) {
	prefix := i.keyPrefix()
	pos := i.positions()
	points := 0
	for j, ce := range r {
		if j >= len(pos) {
			break
		}
		typ := i.tbl.t.Schema.Schema[pos[j]].Type
		plen := i.prefixOf(j)
		if point, isNull, v := pointOf(ctx, ce); point {
			if isNull {
				prefix = append(prefix, 0x00)
				points++
				continue
			}
			enc, ok := encodeBound(ctx, typ, v, plen)
			if !ok {
				break
			}
			if plen > 0 {
				k := append(prefix, enc...)
				return k, kv.PrefixEnd(k), true, false, nil
			}
			prefix = append(prefix, enc...)
			points++
			continue
		}
		lo, hi, ok := cutBounds(ctx, prefix, ce, typ, plen)
		return lo, hi, ok, false, nil
	}
	return prefix, kv.PrefixEnd(prefix), true, len(pos) > 0 && points == len(pos), nil
}

// pointOf says whether a column range is one value (or IS NULL).
func pointOf(ctx *sql.Context, ce sql.MySQLRangeColumnExpr) (point, isNull bool, v any) {
	switch lb := ce.LowerBound.(type) {
	case sql.BelowNull:
		_, ok := ce.UpperBound.(sql.AboveNull)
		return ok, true, nil
	case sql.Below:
		ub, ok := ce.UpperBound.(sql.Above)
		if !ok {
			return false, false, nil
		}
		cmp, err := ce.Typ.Compare(ctx, lb.Key, ub.Key)
		if err != nil || cmp != 0 {
			return false, false, nil
		}
		return true, false, lb.Key
	}
	return false, false, nil
}

// encodeBound encodes a range key as the column's key; ok is false when it cannot be.
func encodeBound(ctx *sql.Context, typ sql.Type, v any, plen int) ([]byte, bool) {
	enc := func(v any) ([]byte, error) {
		if plen > 0 {
			return keys.AppendPrefix(nil, typ, v, plen)
		}
		return keys.Append(nil, typ, v)
	}
	b, err := enc(v)
	if err == nil {
		return b, true
	}
	cv, inRange, cerr := typ.Convert(ctx, v)
	if cerr != nil || inRange != sql.InRange {
		return nil, false
	}
	b, err = enc(cv)
	return b, err == nil
}

// cutBounds bounds the first column whose range is not a point.
func cutBounds(ctx *sql.Context, prefix []byte, ce sql.MySQLRangeColumnExpr, typ sql.Type, plen int) (lo, hi []byte, ok bool) {
	all := func() ([]byte, []byte, bool) { return prefix, kv.PrefixEnd(prefix), true }
	cat := func(b []byte) []byte { return append(append([]byte(nil), prefix...), b...) }
	switch lb := ce.LowerBound.(type) {
	case sql.BelowNull:
		lo = prefix
	case sql.AboveNull:
		lo = cat([]byte{0x01})
	case sql.AboveAll:
		return nil, nil, false
	case sql.Below:
		enc, ok := encodeBound(ctx, typ, lb.Key, plen)
		if !ok {
			return all()
		}
		lo = cat(enc)
	case sql.Above:
		enc, ok := encodeBound(ctx, typ, lb.Key, plen)
		if !ok {
			return all()
		}
		if plen > 0 {
			lo = cat(enc)
		} else {
			lo = kv.PrefixEnd(cat(enc))
		}
	default:
		return all()
	}
	switch ub := ce.UpperBound.(type) {
	case sql.AboveAll:
		hi = kv.PrefixEnd(prefix)
	case sql.AboveNull:
		hi = cat([]byte{0x01})
	case sql.BelowNull:
		return nil, nil, false
	case sql.Above:
		enc, ok := encodeBound(ctx, typ, ub.Key, plen)
		if !ok {
			hi = kv.PrefixEnd(prefix)
			break
		}
		hi = kv.PrefixEnd(cat(enc))
	case sql.Below:
		enc, ok := encodeBound(ctx, typ, ub.Key, plen)
		if !ok {
			hi = kv.PrefixEnd(prefix)
			break
		}
		if plen > 0 {
			hi = kv.PrefixEnd(cat(enc))
		} else {
			hi = cat(enc)
		}
	default:
		hi = kv.PrefixEnd(prefix)
	}
	return lo, hi, true
}

// PartitionRows reads a lookup's partition.
func (it *IndexedTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	iter, err := it.Table.PartitionRows(ctx, p)
	if err == nil && it.latest {
		iter.(*rowIter).latest = true
	}
	return iter, err
}
