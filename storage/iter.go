package storage

import (
	"io"

	"overloadsql/storage/rowcodec"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dolthub/go-mysql-server/sql"
)

// Iterators are opened lazily, at their first Next: the engine builds a statement's row
// sources before it opens the statement's editors, and the editor is where a transaction
// takes the write lock and starts reading its batch. A scan that starts after that sees the
// latest committed rows and the transaction's writes as they were when it started, and none
// of the statement's later writes (Pebble batch iterators are frozen at creation), which is
// the engine's Halloween protection.

// openIter opens an iterator on the transaction's view, counted so that the batch and
// snapshot it reads outlive it. While an editor of table tid is in a statement, a scan of
// tid reads the batch as it was when that editor's statement began (views), so that a table
// a statement reads again while it writes it, as a join's inner side is read for every outer
// row, does not show the statement's own writes (memory's editors apply their edits at the
// statement's end); other tables, such as those a trigger writes, read the batch as it is.
// latest asks for the batch as it is (the engine's foreign-key lookups, which must see the
// statement's writes).
func (t *txn) openIter(tid uint32, lower, upper []byte, latest bool) (*pebble.Iterator, error) {
	var it *pebble.Iterator
	var err error
	opts := &pebble.IterOptions{LowerBound: lower, UpperBound: upper}
	if v := t.views[tid]; v != nil && !latest {
		it, err = v.it.Clone(pebble.CloneOptions{IterOptions: opts})
	} else {
		it, err = t.reader().NewIter(opts)
	}
	if err != nil {
		return nil, err
	}
	t.iters.Lock()
	defer t.iters.Unlock()
	t.track(it)
	if t.batch == nil {
		t.snapIters++
	}
	return it, nil
}

// track counts it as open; iters is held.
func (t *txn) track(it *pebble.Iterator) {
	t.openIters++
	if t.open == nil {
		t.open = map[*pebble.Iterator]bool{}
	}
	t.open[it] = true
}

// closeLeftovers closes the iterators still open when the transaction ends: their reader goes
// with it. Their owners' later Close is then a no-op.
func (t *txn) closeLeftovers() {
	t.iters.Lock()
	defer t.iters.Unlock()
	for it := range t.open {
		_ = it.Close()
	}
	clear(t.open)
	t.openIters, t.snapIters = 0, 0
	t.views = nil
	t.releaseZombies()
}

func (t *txn) closeIter(it *pebble.Iterator, onSnapshot bool) error {
	t.iters.Lock()
	defer t.iters.Unlock()
	if !t.open[it] {
		return nil // closed at the transaction's end
	}
	delete(t.open, it)
	err := it.Close()
	t.openIters--
	if onSnapshot {
		t.snapIters--
	}
	if t.openIters == 0 {
		t.releaseZombies()
	}
	return err
}

// retire closes a batch or snapshot now, or once the last open iterator is closed.
func (t *txn) retire(c io.Closer) {
	if c == nil {
		return
	}
	t.iters.Lock()
	defer t.iters.Unlock()
	if t.openIters == 0 {
		_ = c.Close()
		return
	}
	t.zombies = append(t.zombies, c)
}

func (t *txn) releaseZombies() {
	for _, z := range t.zombies {
		_ = z.Close()
	}
	t.zombies = nil
}

// rangeSpec is a key range of one index (or of the rows), iterated in key order or reversed.
type rangeSpec struct {
	lower, upper []byte
	reverse      bool
	// point: the range holds no key but lower, which a point read finds.
	point bool
}

// rowIter yields the rows of a table over a list of ranges, either of the rows themselves or
// of a secondary index whose entries hold the row keys.
type rowIter struct {
	tbl    *Table
	tx     *txn
	ranges []rangeSpec
	// secondary: the ranges are index entries whose values are row-key suffixes.
	secondary bool
	// latest: read the batch as it is, not as the statement began (see openIter).
	latest bool
	// filter, when not nil, holds the rows to return, over the whole row (indexPartition).
	filter sql.Expression

	cur        int
	it         *pebble.Iterator
	onSnapshot bool
	valid      bool
	done       bool
}

func (r *rowIter) Next(ctx *sql.Context) (sql.Row, error) {
	for !r.done {
		if r.it == nil {
			if r.cur >= len(r.ranges) {
				r.done = true
				break
			}
			rg := r.ranges[r.cur]
			if rg.point && !r.secondary && (r.latest || r.tx.views[r.tbl.tid()] == nil) {
				// what openIter would read, without an iterator
				r.cur++
				v, ok, err := r.tx.get(rg.lower)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				if row, keep, err := r.row(ctx, v); err != nil || keep {
					return row, err
				}
				continue
			}
			it, err := r.tx.openIter(r.tbl.tid(), rg.lower, rg.upper, r.latest)
			if err != nil {
				return nil, err
			}
			r.it, r.onSnapshot = it, r.tx.batch == nil
			if rg.reverse {
				r.valid = it.Last()
			} else {
				r.valid = it.First()
			}
		} else {
			if r.ranges[r.cur].reverse {
				r.valid = r.it.Prev()
			} else {
				r.valid = r.it.Next()
			}
		}
		if !r.valid {
			err := r.tx.closeIter(r.it, r.onSnapshot)
			r.it = nil
			if err != nil {
				return nil, err
			}
			r.cur++
			continue
		}
		v, err := r.it.ValueAndErr()
		if err != nil {
			return nil, err
		}
		if r.secondary {
			raw, ok, err := r.tx.get(r.tbl.rowKey(v))
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, rowcodec.Corrupt("an index entry names a missing row")
			}
			v = raw
		}
		if row, keep, err := r.row(ctx, v); err != nil || keep {
			return row, err
		}
	}
	return nil, io.EOF
}

// row decodes a stored row; keep is false for a row the filter leaves out.
func (r *rowIter) row(ctx *sql.Context, raw []byte) (row sql.Row, keep bool, err error) {
	if r.filter == nil {
		row, err = r.tbl.decodeRow(raw)
		return row, true, err
	}
	full, err := r.tbl.fullRow(raw)
	if err != nil {
		return nil, false, err
	}
	ok, err := sql.EvaluateCondition(ctx, r.filter, full)
	if err != nil || !sql.IsTrue(ok) {
		return nil, false, err
	}
	return r.tbl.project(full), true, nil
}

func (r *rowIter) Close(ctx *sql.Context) error {
	r.done = true
	if r.it != nil {
		err := r.tx.closeIter(r.it, r.onSnapshot)
		r.it = nil
		return err
	}
	return nil
}

// tableView is the frozen view of one table while its editors are in a statement.
type tableView struct {
	it      *pebble.Iterator
	editors int
}

// beginTableView freezes tid's view for an editor's statement, before it writes.
func (t *txn) beginTableView(tid uint32) {
	if t.batch == nil {
		return
	}
	if v := t.views[tid]; v != nil {
		v.editors++
		return
	}
	it, err := t.batch.NewIter(nil)
	if err != nil {
		return
	}
	t.iters.Lock()
	t.track(it)
	t.iters.Unlock()
	if t.views == nil {
		t.views = map[uint32]*tableView{}
	}
	t.views[tid] = &tableView{it: it, editors: 1}
}

func (t *txn) endTableView(tid uint32) {
	v := t.views[tid]
	if v == nil {
		return
	}
	if v.editors--; v.editors <= 0 {
		delete(t.views, tid)
		_ = t.closeIter(v.it, false)
	}
}

// endViews drops every frozen view (the statement ended, or the batch goes).
func (t *txn) endViews() {
	for tid, v := range t.views {
		delete(t.views, tid)
		_ = t.closeIter(v.it, false)
	}
}
