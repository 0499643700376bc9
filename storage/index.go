package storage

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/vitess/go/sqltypes"

	"overloadsql/storage/catalog"
	"overloadsql/storage/keys"
	"overloadsql/storage/kv"
)

// Index is the primary key (PRIMARY) or a secondary index of a table. Its entries are ordered
// by the key encoding of its columns, then by primary key. A lookup reads the key ranges of
// the engine's ranges; a key range wider than its range (after a prefix column, a bound the
// encoder must convert, a column after the first that is not one value) is read wide. Under
// PreciseMatch the lookup filters the rows of a wide key range by the ranges, so that it
// returns exactly the rows of its ranges, and the engine drops the filters the ranges cover;
// otherwise the engine's filter above the lookup drops the extra rows.
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

// PreciseMatch: a lookup returns exactly the rows of its ranges (under
// Options.PreciseLookups), except on a table with virtual columns, whose values the engine
// computes after the read.
func (t *Table) PreciseMatch() bool { return t.db.p.store.opts.PreciseLookups && !t.t.HasVirtual }

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
	// filter holds the rows of the lookup's ranges when a key range is wider than its range
	// and the engine keeps no filter of its own (PreciseMatch); else nil. It reads the whole row.
	filter sql.Expression
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
	if lookup.IsEmptyRange && !nullSafeNullLookup(lookup) {
		return p, nil
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		return nil, fmt.Errorf("storage: unsupported range type %T", lookup.Ranges)
	}
	wide := false
	for _, r := range ranges {
		b, err := idx.bounds(ctx, r)
		if err != nil {
			return nil, err
		}
		if b.empty {
			continue
		}
		wide = wide || !b.precise
		// every primary-key column one value: the range holds at most the row keyed lo, as
		// each column's key is self-delimiting (storage/keys), so no other key extends lo
		point := idx.primary() && b.whole
		p.ranges = append(p.ranges, rangeSpec{lower: b.lo, upper: b.hi, reverse: lookup.IsReverse, point: point})
	}
	p.ranges = mergeRanges(p.ranges, lookup.IsReverse)
	// the engine keeps its filter above a lookup of a prefix index, precise or not
	if wide && t.PreciseMatch() && len(idx.PrefixLengths()) == 0 {
		f, err := expression.NewRangeFilterExpr(ctx, idx.rowExprs(), ranges)
		if err != nil {
			return nil, err
		}
		p.filter = f
	}
	return p, nil
}

// nullSafeNullLookup says whether a lookup the engine marks empty is a null-safe lookup of NULL
// keys: one range whose columns are each IS NULL or, after them, every value. The engine's
// lookup join marks a lookup empty when a key is NULL, also for a null-safe key (`x <=> y`),
// whose range it makes IS NULL; a key NULL in a column that is not null-safe leaves that
// column's range as it was, a range of a value, so a lookup with such a column stays empty.
func nullSafeNullLookup(lookup sql.IndexLookup) bool {
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) != 1 || len(ranges[0]) == 0 {
		return false
	}
	nulls, rest := 0, false
	for _, ce := range ranges[0] {
		_, lowNull := ce.LowerBound.(sql.BelowNull)
		_, highNull := ce.UpperBound.(sql.AboveNull)
		switch {
		case lowNull && highNull && !rest:
			nulls++
		case ce.Type() == sql.RangeType_All:
			rest = true
		default:
			return false
		}
	}
	return nulls > 0
}

// rowExprs are the index's columns as fields of the table's whole row.
func (i *Index) rowExprs() []sql.Expression {
	sch := i.tbl.t.Schema.Schema
	pos := i.extendedPositions()
	out := make([]sql.Expression, len(pos))
	for j, p := range pos {
		c := sch[p]
		out[j] = expression.NewGetFieldWithTable(p, 0, c.Type, i.Database(), i.Table(), c.Name, c.Nullable)
	}
	return out
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

// keyRange is the key range [lo, hi) of one of the engine's ranges over an index.
type keyRange struct {
	lo, hi []byte
	// empty: the range holds no key.
	empty bool
	// whole: every column of the index is one value (or IS NULL) and lo is their whole key.
	whole bool
	// precise: the key range holds exactly the keys of the range; else it is wider.
	precise bool
}

// bounds is the key range of one range of the index: the columns that are one value make the
// key's prefix, and the first column that is not bounds it.
func (i *Index) bounds(ctx *sql.Context, r sql.MySQLRange) (keyRange, error) {
	prefix := i.keyPrefix()
	pos := i.positions()
	points := 0
	precise := len(r) <= len(pos)
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
			enc, ok, direct := encodeBound(ctx, typ, v, plen)
			if !ok {
				break
			}
			if plen > 0 {
				k := append(prefix, enc...)
				return keyRange{lo: k, hi: kv.PrefixEnd(k)}, nil
			}
			prefix = append(prefix, enc...)
			precise = precise && direct
			points++
			continue
		}
		kr := cutBounds(ctx, prefix, ce, typ, plen)
		kr.precise = kr.precise && precise && allAfter(r, j)
		return kr, nil
	}
	return keyRange{
		lo:      prefix,
		hi:      kv.PrefixEnd(prefix),
		whole:   len(pos) > 0 && points == len(pos),
		precise: precise && points == len(r),
	}, nil
}

// allAfter says whether every column range of r after the j-th holds every value.
func allAfter(r sql.MySQLRange, j int) bool {
	for _, ce := range r[j+1:] {
		if ce.Type() != sql.RangeType_All {
			return false
		}
	}
	return true
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

// encodeBound encodes a range key as the column's key; ok is false when it cannot be. direct:
// the key is v's own, so the key order around it is the engine's comparison with v; else v was
// converted to the column's type, which may round it, or cut to a prefix.
func encodeBound(ctx *sql.Context, typ sql.Type, v any, plen int) (enc []byte, ok, direct bool) {
	if plen > 0 {
		b, err := keys.AppendPrefix(nil, typ, v, plen)
		return b, err == nil, false
	}
	if exactBound(typ, v) {
		if b, err := keys.Append(nil, typ, v); err == nil {
			return b, true, true
		}
	}
	cv, inRange, err := typ.Convert(ctx, v)
	if err != nil || inRange != sql.InRange {
		return nil, false, false
	}
	b, err := keys.Append(nil, typ, cv)
	return b, err == nil, false
}

// exactBound says whether v is of a Go type the key encoding takes for a column of typ without
// conversion: integers for integer columns, float64 for DOUBLE, text for text and variable
// binary columns. Other bounds are converted first, and their key ranges are not exact.
func exactBound(typ sql.Type, v any) bool {
	switch typ.Type() {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64,
		sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
		switch v.(type) {
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
			return true
		}
	case sqltypes.Float64:
		_, ok := v.(float64)
		return ok
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text, sqltypes.VarBinary, sqltypes.Blob:
		switch v.(type) {
		case string, []byte:
			return true
		}
	}
	return false
}

// cutBounds bounds the first column whose range is not a point.
func cutBounds(ctx *sql.Context, prefix []byte, ce sql.MySQLRangeColumnExpr, typ sql.Type, plen int) keyRange {
	all := keyRange{lo: prefix, hi: kv.PrefixEnd(prefix)}
	cat := func(b []byte) []byte { return append(append([]byte(nil), prefix...), b...) }
	kr := keyRange{precise: plen == 0}
	switch lb := ce.LowerBound.(type) {
	case sql.BelowNull:
		kr.lo = prefix
	case sql.AboveNull:
		kr.lo = cat([]byte{0x01})
	case sql.AboveAll:
		return keyRange{empty: true}
	case sql.Below:
		enc, ok, direct := encodeBound(ctx, typ, lb.Key, plen)
		if !ok {
			return all
		}
		kr.lo, kr.precise = cat(enc), kr.precise && direct
	case sql.Above:
		enc, ok, direct := encodeBound(ctx, typ, lb.Key, plen)
		if !ok {
			return all
		}
		if plen > 0 {
			kr.lo = cat(enc)
		} else {
			kr.lo = kv.PrefixEnd(cat(enc))
		}
		kr.precise = kr.precise && direct
	default:
		return all
	}
	switch ub := ce.UpperBound.(type) {
	case sql.AboveAll:
		kr.hi = kv.PrefixEnd(prefix)
	case sql.AboveNull:
		kr.hi = cat([]byte{0x01})
	case sql.BelowNull:
		return keyRange{empty: true}
	case sql.Above:
		enc, ok, direct := encodeBound(ctx, typ, ub.Key, plen)
		if !ok {
			kr.hi, kr.precise = kv.PrefixEnd(prefix), false
			break
		}
		kr.hi, kr.precise = kv.PrefixEnd(cat(enc)), kr.precise && direct
	case sql.Below:
		enc, ok, direct := encodeBound(ctx, typ, ub.Key, plen)
		if !ok {
			kr.hi, kr.precise = kv.PrefixEnd(prefix), false
			break
		}
		if plen > 0 {
			kr.hi = kv.PrefixEnd(cat(enc))
		} else {
			kr.hi = cat(enc)
		}
		kr.precise = kr.precise && direct
	default:
		kr.hi, kr.precise = kv.PrefixEnd(prefix), false
	}
	return kr
}

// PartitionRows reads a lookup's partition.
func (it *IndexedTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	iter, err := it.Table.PartitionRows(ctx, p)
	if err == nil && it.latest {
		iter.(*rowIter).latest = true
	}
	return iter, err
}
