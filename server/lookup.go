package server

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// scanLookup is the engine's indexed access to an in-memory table (`main` and the databases
// made by CREATE DATABASE), answered by one read of the table's rows. The engine answers a
// PRIMARY lookup on these tables with a scan of every row that evaluates the range as an
// expression tree, and then sorts every row of the table (not only the matching ones) by the
// key with expression comparisons: each `WHERE id = ?` costs O(n log n) expression
// evaluations. scanLookup reads the same rows, the session's view of the table that the engine
// reads (so transactions and ROLLBACK stay the engine's), compares the key columns with their
// types' Compare once per row, and sorts only the rows that match. It answers the lookups in the
// side indexes (sideindex.go), which the engine cannot, the same way. Every other lookup it does
// not handle (secondary indexes in the engine's storage, spatial and vector indexes, PRIMARY on
// filtered tables, prefix keys) goes to the engine.
type scanLookup struct {
	*memory.IndexedTable
	// side is set for a lookup in a side index: the engine has no entries to answer it from.
	side bool
	// origin is the table with side indexes the access was made from (nil when the analyzer
	// rule made it): the engine may ask the access for another one (a reversed lookup), which
	// must know the side indexes too.
	origin sql.IndexAddressable
}

// IndexedAccess implements sql.IndexAddressable. The engine's planner asks an indexed access
// it made for another one (to read in reverse, for ORDER BY ... DESC).
func (t *scanLookup) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	if t.origin != nil {
		return t.origin.IndexedAccess(ctx, lookup)
	}
	access := t.IndexedTable.IndexedAccess(ctx, lookup)
	if it, ok := access.(*memory.IndexedTable); ok {
		return &scanLookup{IndexedTable: it}
	}
	return access
}

var _ sql.IndexedTable = (*scanLookup)(nil)

// scanPartition is one partition of the table and the lookup to answer in it.
type scanPartition struct {
	key    []byte
	index  *memory.Index
	ranges sql.MySQLRangeCollection
	// reverse orders the rows by descending key, as the engine does for a reverse lookup.
	reverse bool
}

func (p *scanPartition) Key() []byte { return p.key }

// scanPartitions are the table's partitions, each carrying the lookup.
type scanPartitions struct {
	parts sql.PartitionIter
	proto scanPartition
}

func (p *scanPartitions) Next(ctx *sql.Context) (sql.Partition, error) {
	part, err := p.parts.Next(ctx)
	if err != nil {
		return nil, err
	}
	next := p.proto
	next.key = part.Key()
	return &next, nil
}

func (p *scanPartitions) Close(ctx *sql.Context) error { return p.parts.Close(ctx) }

// LookupPartitions implements sql.IndexedTable.
func (t *scanLookup) LookupPartitions(ctx *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	index, ranges, ok := t.handles(lookup)
	if !ok && t.side {
		return nil, t.unsupported(ctx, lookup.Index, lookup.Ranges)
	}
	if !ok {
		return t.IndexedTable.LookupPartitions(ctx, lookup)
	}
	parts, err := t.Table.Partitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("partitions of %s: %w", t.Name(), err)
	}
	return &scanPartitions{parts: parts, proto: scanPartition{
		index: index, ranges: ranges, reverse: lookup.IsReverse,
	}}, nil
}

// handles tells whether the lookup is one scanLookup answers: a lookup in a side index, or a
// PRIMARY lookup on a table without pushed-down filters, by ranges of whole key columns. (The
// rows of a side lookup are read through the table, which applies its filters.)
func (t *scanLookup) handles(lookup sql.IndexLookup) (*memory.Index, sql.MySQLRangeCollection, bool) {
	index, ok := lookup.Index.(*memory.Index)
	if !ok || index.IsSpatial() || lookup.VectorOrderAndLimit.OrderBy != nil || len(index.PrefixLens) > 0 {
		return nil, nil, false
	}
	if !t.side && (index.ID() != "PRIMARY" || index.CommentStr != "" || len(t.Table.Filters()) > 0) {
		return nil, nil, false
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) == 0 {
		return nil, nil, false
	}
	if _, ok := lookupKeys(index, ranges); !ok {
		return nil, nil, false
	}
	for _, r := range ranges {
		for _, c := range r {
			if !knownCut(c.LowerBound) || !knownCut(c.UpperBound) {
				return nil, nil, false
			}
		}
	}
	return index, ranges, true
}

// unsupported is the error of a lookup scanLookup must answer (one in a side index, which the
// engine cannot) but whose ranges it cannot read.
func (t *scanLookup) unsupported(ctx *sql.Context, index sql.Index, ranges sql.RangeCollection) error {
	return fmt.Errorf("lookup in index %s of %s: ranges %s not supported", index.ID(), t.Name(), ranges.DebugString(ctx))
}

// lookupKeys are the columns the lookup's ranges are over: the index's, followed by the primary
// key's when a range is longer (a foreign key looks its rows up that way); false when a range is
// longer still, or a column is an expression.
func lookupKeys(index *memory.Index, ranges sql.MySQLRangeCollection) ([]*expression.GetField, bool) {
	exprs := index.Exprs
	for _, r := range ranges {
		if len(r) > len(exprs) {
			exprs = index.ExtendedExprs()
			break
		}
	}
	keys := make([]*expression.GetField, len(exprs))
	for i, e := range exprs {
		gf, ok := e.(*expression.GetField)
		if !ok {
			return nil, false
		}
		keys[i] = gf
	}
	for _, r := range ranges {
		if len(r) > len(keys) {
			return nil, false
		}
	}
	return keys, true
}

func knownCut(c sql.MySQLRangeCut) bool {
	switch c.(type) {
	case sql.Below, sql.Above, sql.BelowNull, sql.AboveNull, sql.AboveAll:
		return true
	}
	return false
}

// PartitionRows implements sql.Table.
func (t *scanLookup) PartitionRows(ctx *sql.Context, partition sql.Partition) (sql.RowIter, error) {
	p, ok := partition.(*scanPartition)
	if !ok {
		return t.IndexedTable.PartitionRows(ctx, partition)
	}
	// The rows are read whole (the key columns may not be projected) and projected at the end.
	table, err := t.Table.WithProjections(ctx, nil)
	if err != nil {
		return nil, err
	}
	whole, ok := table.(*memory.Table)
	if !ok {
		return nil, fmt.Errorf("rows of %s: unexpected table type %T", t.Name(), table)
	}
	keys, ok := lookupKeys(p.index, p.ranges)
	if !ok {
		return nil, t.unsupported(ctx, p.index, p.ranges)
	}
	ranges := keyRanges(p.ranges, keys)
	var matched []sql.Row
	var done bool
	if !t.side {
		matched, done, err = fromCommitted(ctx, p, ranges, whole)
	}
	if err == nil && !done {
		matched, err = scanRanges(ctx, whole, p.key, ranges)
	}
	if err != nil {
		return nil, fmt.Errorf("lookup in index %s of %s: %w", p.index.ID(), t.Name(), err)
	}
	if p.reverse {
		// Rows of equal index keys come in descending primary-key order, as a backward scan of the
		// index gives them: the rows were read in primary-key order and the sort is stable.
		slices.Reverse(matched)
	}
	if err := sortByKey(ctx, matched, keys, p.reverse); err != nil {
		return nil, fmt.Errorf("order of index %s of %s: %w", p.index.ID(), t.Name(), err)
	}
	if cols := t.Projections(); cols != nil {
		if matched, err = project(whole.Schema(ctx), cols, matched); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", t.Name(), err)
		}
	}
	return sql.RowsToRowIter(matched...), nil
}

// scanRanges reads every row of one partition of the table and keeps those whose key lies in
// one of the ranges.
func scanRanges(ctx *sql.Context, whole *memory.Table, partition []byte, ranges [][]keyRange) ([]sql.Row, error) {
	rows, err := whole.PartitionRows(ctx, memory.NewPartition(partition))
	if err != nil {
		return nil, err
	}
	defer rows.Close(ctx)
	var matched []sql.Row
	for n := 1; ; n++ {
		if n%4096 == 0 {
			// A lookup join repeats the scan for every outer row: KILL QUERY, the memory guard
			// and a disconnect stop it between rows, as they stop the engine's own scans.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row, err := rows.Next(ctx)
		if err == io.EOF {
			return matched, nil
		}
		if err != nil {
			return nil, err
		}
		in, err := inRanges(ctx, ranges, row)
		if err != nil {
			return nil, err
		}
		if in {
			matched = append(matched, row)
		}
	}
}

// fromCommitted answers a lookup of one integer key column from the map of the committed rows
// (committedkeys.go) when the statement reads the committed tables and each range holds at most
// maxKeyProbes keys; done is false when it does not, and the rows are then scanned.
func fromCommitted(ctx *sql.Context, p *scanPartition, ranges [][]keyRange, whole *memory.Table) (matched []sql.Row, done bool, err error) {
	read := committedReadOf(ctx)
	if read == nil || len(p.index.Exprs) != 1 || len(ranges) == 0 {
		return nil, false, nil
	}
	for _, r := range ranges {
		if len(r) != 1 || !r[0].ints || r[0].hi < r[0].lo || uint64(r[0].hi)-uint64(r[0].lo) >= maxKeyProbes {
			return nil, false, nil
		}
	}
	for _, c := range whole.Schema(ctx) {
		if c.Virtual {
			return nil, false, nil // stored rows lack the virtual columns
		}
	}
	rows, ok, err := read.keys.rows(ctx, whole.Database(), whole.Name(), ranges[0][0].ord)
	if err != nil || !ok {
		return nil, false, err
	}
	if committedReadOf(ctx) == nil {
		return nil, false, nil // a writer came in: the map may be of a newer version
	}
	seen := map[int64]bool{}
	for _, r := range ranges {
		for v := r[0].lo; ; v++ {
			if kr, ok := rows[v]; ok && kr.partition == string(p.key) && !seen[v] {
				seen[v] = true
				matched = append(matched, kr.row)
			}
			if v == r[0].hi {
				break
			}
		}
	}
	return matched, true, nil
}

// keyRange is a range of one key column: the column's place in the row, its type and the cuts.
type keyRange struct {
	ord          int
	typ          sql.Type
	lower, upper sql.MySQLRangeCut
	// signed is set for signed integer columns, whose Compare is a comparison of int64 values:
	// integer values are compared without it.
	signed bool
	// ints is set when the column is a signed integer and both cuts are integers or unbounded:
	// a non-NULL value is then in the range when lo <= value <= hi (see intBounds).
	ints   bool
	lo, hi int64
}

// keyRanges are the lookup's ranges by key column, in the key's order.
func keyRanges(ranges sql.MySQLRangeCollection, keys []*expression.GetField) [][]keyRange {
	out := make([][]keyRange, len(ranges))
	for i, r := range ranges {
		out[i] = make([]keyRange, len(r))
		for j, c := range r {
			r := keyRange{ord: keys[j].Index(), typ: c.Typ, lower: c.LowerBound, upper: c.UpperBound, signed: types.IsSigned(c.Typ)}
			if r.signed {
				r.lo, r.hi, r.ints = intBounds(r.lower, r.upper)
			}
			out[i][j] = r
		}
	}
	return out
}

// inRanges tells whether the row's key lies in one of the ranges.
func inRanges(ctx *sql.Context, ranges [][]keyRange, row sql.Row) (bool, error) {
next:
	for _, r := range ranges {
		for _, c := range r {
			in, err := c.contains(ctx, row[c.ord])
			if err != nil {
				return false, err
			}
			if !in {
				continue next
			}
		}
		return true, nil
	}
	return false, nil
}

// intBounds turns cuts of integer keys into inclusive bounds for non-NULL values; ok is false
// when a cut is not an integer, or the range holds NULL, or no integer.
func intBounds(lower, upper sql.MySQLRangeCut) (lo, hi int64, ok bool) {
	lo, hi = math.MinInt64, math.MaxInt64
	switch c := lower.(type) {
	case sql.AboveNull: // every value but NULL
	case sql.Below:
		if lo, ok = signedInt(c.Key); !ok {
			return 0, 0, false
		}
	case sql.Above:
		k, ok := signedInt(c.Key)
		if !ok || k == math.MaxInt64 {
			return 0, 0, false
		}
		lo = k + 1
	default: // BelowNull: NULL is in the range, left to the general path
		return 0, 0, false
	}
	switch c := upper.(type) {
	case sql.AboveAll:
	case sql.Below:
		k, ok := signedInt(c.Key)
		if !ok || k == math.MinInt64 {
			return 0, 0, false
		}
		hi = k - 1
	case sql.Above:
		if hi, ok = signedInt(c.Key); !ok {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	return lo, hi, true
}

// contains tells whether v lies between the range's cuts; NULL lies below every value.
func (r keyRange) contains(ctx *sql.Context, v any) (bool, error) {
	if r.ints {
		if a, ok := signedInt(v); ok {
			return r.lo <= a && a <= r.hi, nil
		}
		if v == nil {
			return false, nil
		}
	}
	switch c := r.lower.(type) {
	case sql.BelowNull:
	case sql.AboveNull:
		if v == nil {
			return false, nil
		}
	case sql.Below:
		if v == nil {
			return false, nil
		}
		if cmp, err := r.compare(ctx, v, c.Key); err != nil || cmp < 0 {
			return false, err
		}
	case sql.Above:
		if v == nil {
			return false, nil
		}
		if cmp, err := r.compare(ctx, v, c.Key); err != nil || cmp <= 0 {
			return false, err
		}
	default:
		return false, nil
	}
	switch c := r.upper.(type) {
	case sql.AboveAll:
		return true, nil
	case sql.AboveNull:
		return v == nil, nil
	case sql.Below:
		if v == nil {
			return true, nil
		}
		cmp, err := r.compare(ctx, v, c.Key)
		return err == nil && cmp < 0, err
	case sql.Above:
		if v == nil {
			return true, nil
		}
		cmp, err := r.compare(ctx, v, c.Key)
		return err == nil && cmp <= 0, err
	}
	return false, nil
}

func (r keyRange) compare(ctx *sql.Context, v, key any) (int, error) {
	if r.signed {
		if a, ok := signedInt(v); ok {
			if b, ok := signedInt(key); ok {
				return cmp.Compare(a, b), nil
			}
		}
	}
	return r.typ.Compare(ctx, v, key)
}

func signedInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	}
	return 0, false
}

// sortByKey orders rows by the key columns, stably, descending when reverse.
func sortByKey(ctx *sql.Context, rows []sql.Row, keys []*expression.GetField, reverse bool) error {
	var failed error
	slices.SortStableFunc(rows, func(a, b sql.Row) int {
		for _, k := range keys {
			cmp, err := compareNullsFirst(ctx, k.Type(ctx), a[k.Index()], b[k.Index()])
			if err != nil {
				failed = err
				return 0
			}
			if cmp != 0 {
				if reverse {
					return -cmp
				}
				return cmp
			}
		}
		return 0
	})
	return failed
}

func compareNullsFirst(ctx *sql.Context, typ sql.Type, a, b any) (int, error) {
	switch {
	case a == nil && b == nil:
		return 0, nil
	case a == nil:
		return -1, nil
	case b == nil:
		return 1, nil
	}
	return typ.Compare(ctx, a, b)
}

// project keeps the named columns of each row, in the order named.
func project(schema sql.Schema, cols []string, rows []sql.Row) ([]sql.Row, error) {
	idx := make([]int, len(cols))
	for i, name := range cols {
		if idx[i] = schema.IndexOfColName(name); idx[i] < 0 {
			return nil, fmt.Errorf("no column %s", name)
		}
	}
	out := make([]sql.Row, len(rows))
	for r, row := range rows {
		out[r] = make(sql.Row, len(idx))
		for i, j := range idx {
			out[r][i] = row[j]
		}
	}
	return out, nil
}

// fastPrimaryKeyLookups gives every indexed access to an in-memory table the cheaper PRIMARY
// lookup of scanLookup.
func fastPrimaryKeyLookups(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ita, ok := n.(*plan.IndexedTableAccess)
		if !ok {
			return n, transform.SameTree, nil
		}
		table, ok := ita.Table.(*memory.IndexedTable)
		if !ok {
			return n, transform.SameTree, nil
		}
		fast := *ita
		fast.Table = &scanLookup{IndexedTable: table}
		return &fast, transform.NewTree, nil
	})
}
