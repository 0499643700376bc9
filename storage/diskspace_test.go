package storage

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"overloadsql/mysqlerr"
	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/vitess/go/mysql"
)

// quotaFS is a filesystem of a fixed size over another: a write past the size writes what
// fits and fails with ENOSPC, as a full disk does. Preallocated space counts as used.
type quotaFS struct {
	vfs.FS
	mu    sync.Mutex
	limit int64 // bytes the filesystem holds; negative: no limit
	used  int64
	alloc map[string]int64 // path → bytes it holds
}

func newQuotaFS(inner vfs.FS) *quotaFS {
	return &quotaFS{FS: inner, limit: -1, alloc: map[string]int64{}}
}

// fill makes the filesystem full: it holds what it holds now plus slack bytes.
func (q *quotaFS) fill(slack int64) {
	q.mu.Lock()
	q.limit = q.used + slack
	q.mu.Unlock()
}

// free lifts the limit: space is back.
func (q *quotaFS) free() {
	q.mu.Lock()
	q.limit = -1
	q.mu.Unlock()
}

var errNoSpace = syscall.ENOSPC

// extend lets path hold end bytes, or as many as fit; it returns how many bytes of the range
// [start, end) may be written.
func (q *quotaFS) extend(path string, start, end int64) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.alloc[path]
	if end <= a {
		return end - start, nil
	}
	grow := end - a
	if q.limit >= 0 && q.used+grow > q.limit {
		room := max(q.limit-q.used, 0)
		q.used += room
		q.alloc[path] = a + room
		return max(a+room-start, 0), &os.PathError{Op: "write", Path: path, Err: errNoSpace}
	}
	q.used += grow
	q.alloc[path] = end
	return end - start, nil
}

func (q *quotaFS) drop(path string) {
	q.mu.Lock()
	q.used -= q.alloc[path]
	delete(q.alloc, path)
	q.mu.Unlock()
}

func (q *quotaFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := q.FS.Create(name, c)
	if err != nil {
		return nil, err
	}
	q.drop(name)
	return &quotaFile{File: f, q: q, path: name}, nil
}

func (q *quotaFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := q.FS.OpenReadWrite(name, c, opts...)
	if err != nil {
		return nil, err
	}
	return &quotaFile{File: f, q: q, path: name}, nil
}

func (q *quotaFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := q.FS.ReuseForWrite(oldname, newname, c)
	if err != nil {
		return nil, err
	}
	q.move(oldname, newname)
	return &quotaFile{File: f, q: q, path: newname}, nil
}

func (q *quotaFS) move(oldname, newname string) {
	q.drop(newname)
	q.mu.Lock()
	q.alloc[newname] = q.alloc[oldname]
	delete(q.alloc, oldname)
	q.mu.Unlock()
}

func (q *quotaFS) Rename(oldname, newname string) error {
	if err := q.FS.Rename(oldname, newname); err != nil {
		return err
	}
	q.move(oldname, newname)
	return nil
}

func (q *quotaFS) Remove(name string) error {
	if err := q.FS.Remove(name); err != nil {
		return err
	}
	q.drop(name)
	return nil
}

func (q *quotaFS) RemoveAll(dir string) error {
	if err := q.FS.RemoveAll(dir); err != nil {
		return err
	}
	q.mu.Lock()
	for p, a := range q.alloc {
		if strings.HasPrefix(p, dir+"/") {
			q.used -= a
			delete(q.alloc, p)
		}
	}
	q.mu.Unlock()
	return nil
}

func (q *quotaFS) GetDiskUsage(string) (vfs.DiskUsage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.limit < 0 {
		return vfs.DiskUsage{AvailBytes: 1 << 40, TotalBytes: 1 << 41, UsedBytes: uint64(q.used)}, nil
	}
	return vfs.DiskUsage{AvailBytes: uint64(max(q.limit-q.used, 0)), TotalBytes: uint64(q.limit), UsedBytes: uint64(q.used)}, nil
}

type quotaFile struct {
	vfs.File
	q    *quotaFS
	path string
	pos  int64
}

func (f *quotaFile) Write(p []byte) (int, error) {
	n, qerr := f.q.extend(f.path, f.pos, f.pos+int64(len(p)))
	w, err := f.File.Write(p[:n])
	f.pos += int64(w)
	if err == nil {
		err = qerr
	}
	return w, err
}

func (f *quotaFile) WriteAt(p []byte, off int64) (int, error) {
	n, qerr := f.q.extend(f.path, off, off+int64(len(p)))
	w, err := f.File.WriteAt(p[:n], off)
	if err == nil {
		err = qerr
	}
	return w, err
}

func (f *quotaFile) Preallocate(off, length int64) error {
	f.q.mu.Lock()
	defer f.q.mu.Unlock()
	a := f.q.alloc[f.path]
	grow := off + length - a
	if grow <= 0 {
		return nil
	}
	if f.q.limit >= 0 && f.q.used+grow > f.q.limit {
		return &os.PathError{Op: "fallocate", Path: f.path, Err: errNoSpace}
	}
	f.q.used += grow
	f.q.alloc[f.path] = off + length
	return nil
}

// diskModel is the rows of table t as the acknowledged statements left them.
type diskModel map[int][2]string

func (m diskModel) String() string {
	ids := make([]int, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%d %s %s\n", id, m[id][0], m[id][1])
	}
	return b.String()
}

func diskState(t *testing.T, r *runner) string {
	t.Helper()
	var b strings.Builder
	for _, row := range r.must("SELECT id, v, s FROM t ORDER BY id") {
		fmt.Fprintf(&b, "%v %v %v\n", row[0], row[1], row[2])
	}
	return b.String()
}

// errNum is the MySQL error number the client would get for err.
func errNum(err error) int {
	if err == nil {
		return 0
	}
	return mysqlerr.ForClient(err).Num
}

const testReserve = 1 << 20

// TestFullDisk fills the disk under a store at a step of a workload: the statement that finds
// no space fails with error 1114 and its transaction is rolled back, reads go on and show the
// acknowledged commits, writes succeed once space is back, and a reopened store has exactly
// the acknowledged commits.
func TestFullDisk(t *testing.T) {
	type step struct {
		stmts []string
		// apply changes the model when the step is acknowledged
		apply func(diskModel)
	}
	insert := func(id, v int, s string) step {
		return step{[]string{fmt.Sprintf("INSERT INTO t VALUES (%d, %d, '%s')", id, v, s)},
			func(m diskModel) { m[id] = [2]string{fmt.Sprint(v), s} }}
	}
	bigTxn := func(from, n int) step {
		stmts := []string{"BEGIN"}
		for i := from; i < from+n; i += 100 {
			var vals []string
			for j := i; j < i+100 && j < from+n; j++ {
				vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", j, j%7, strings.Repeat("x", 150)))
			}
			stmts = append(stmts, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
		}
		stmts = append(stmts, "COMMIT")
		return step{stmts, func(m diskModel) {
			for j := from; j < from+n; j++ {
				m[j] = [2]string{fmt.Sprint(j % 7), strings.Repeat("x", 150)}
			}
		}}
	}
	cases := []struct {
		name string
		// slack is the free space left when the disk fills, beside the reserve
		slack int64
		// flush writes the memtable out once the disk is full, so that a flush meets it
		flush bool
		// full is the step run on the full disk (its i-th attempt), and what it would change
		full func(i int) step
		// schema is a statement whose result must not change when the step fails
		schema string
	}{
		{name: "autocommit-insert", full: func(i int) step { return insert(10100+i, 1, strings.Repeat("a", 150)) }},
		{name: "explicit-transaction", full: func(i int) step {
			id := 10200 + i
			return step{[]string{"BEGIN", fmt.Sprintf("UPDATE t SET v = %d WHERE id < 50", 90+i), fmt.Sprintf("INSERT INTO t VALUES (%d, 2, 'b')", id), "COMMIT"},
				func(m diskModel) {
					for k, r := range m {
						if k < 50 {
							m[k] = [2]string{fmt.Sprint(90 + i), r[1]}
						}
					}
					m[id] = [2]string{"2", "b"}
				}}
		}},
		{name: "large-transaction", slack: testReserve / 2, full: func(i int) step { return bigTxn(20000+10000*i, 4000) }},
		{name: "create-index", slack: testReserve / 2, schema: "SHOW INDEX FROM t",
			full: func(i int) step {
				return step{[]string{fmt.Sprintf("CREATE INDEX ks%d ON t (s)", i)}, func(diskModel) {}}
			}},
		{name: "alter-rewrite", slack: testReserve / 2, schema: "SHOW CREATE TABLE t",
			full: func(i int) step {
				return step{[]string{fmt.Sprintf("ALTER TABLE t MODIFY COLUMN v BIGINT DEFAULT %d", i)}, func(diskModel) {}}
			}},
		{name: "flush-meets-it", flush: true, full: func(i int) step { return insert(10300+i, 3, strings.Repeat("c", 150)) }},
	}
	for _, mode := range []kv.SyncMode{kv.SyncCommit, kv.SyncNone} {
		for ci, c := range cases {
			t.Run(fmt.Sprintf("%s/sync%d", c.name, mode), func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(ci*10 + int(mode))))
				q := newQuotaFS(vfs.NewMem())
				var fullEvents []bool
				var evMu sync.Mutex
				open := func() *Store {
					s, err := Open("data", Options{FS: q, Sync: mode, CacheBytes: 1 << 20, MemTableBytes: 4 << 20,
						DiskReserveBytes: testReserve,
						OnDiskFull: func(full bool) {
							evMu.Lock()
							fullEvents = append(fullEvents, full)
							evMu.Unlock()
						},
						OnSyncError: func(err error) { t.Errorf("sync error: %v", err) }})
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				s := open()
				r := newRunner(t, s, "main")
				model := diskModel{}
				run := func(st step) error {
					for _, q := range st.stmts {
						if _, err := r.exec(q); err != nil {
							if st.stmts[0] == "BEGIN" {
								_, _ = r.exec("ROLLBACK")
							}
							return err
						}
					}
					st.apply(model)
					return nil
				}
				r.must("CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(200), KEY kv (v))")
				if err := run(bigTxn(0, 3000)); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 20; i++ {
					if err := run(insert(5000+50*i+rng.Intn(50), rng.Intn(100), fmt.Sprintf("r%d", i))); err != nil {
						t.Fatal(err)
					}
				}
				if !c.flush {
					if err := s.Flush(); err != nil {
						t.Fatal(err)
					}
				}
				var schemaBefore string
				if c.schema != "" {
					schemaBefore = rowsString(r.must(c.schema))
				}

				q.fill(c.slack)
				if c.flush {
					// the flush completes in the freed reserve
					if err := s.Flush(); err != nil {
						t.Fatal(err)
					}
					if !s.DiskFull() {
						t.Fatal("a flush on the full disk left the store taking writes")
					}
				}
				// the step is retried until the disk refuses it: the first write that meets the
				// full disk completes in the freed reserve; under kv.SyncNone the log is written
				// when one of its 32 KiB blocks is full
				refused := false
				attempt := 0
				for ; attempt < 400 && !refused; attempt++ {
					err := run(c.full(attempt))
					switch {
					case err == nil:
					case errNum(err) == mysql.ERRecordFileFull:
						refused = true
						if !s.DiskFull() && c.slack == 0 {
							t.Errorf("refused with 1114 but the store does not report a full disk")
						}
					default:
						t.Fatalf("%v: %v (error %d), want error 1114", c.full(attempt).stmts, err, errNum(err))
					}
				}
				if !refused {
					t.Fatalf("%v was never refused on the full disk", c.full(0).stmts)
				}
				// reads go on and show exactly the acknowledged commits
				if got, want := diskState(t, r), model.String(); got != want {
					t.Fatalf("after the refusal:\n%s\nwant\n%s", got, want)
				}
				if c.schema != "" {
					if got := rowsString(r.must(c.schema)); got != schemaBefore {
						t.Fatalf("the refused %v changed the schema:\n%s\nwas\n%s", c.full(attempt-1).stmts, got, schemaBefore)
					}
				}
				checkIntegrity(t, r)
				if c.slack == 0 {
					// refused while the disk is full, a small write too
					if err := run(insert(10010, 1, "z")); errNum(err) != mysql.ERRecordFileFull {
						t.Fatalf("a write on the full disk: %v, want error 1114", err)
					}
				}

				q.free()
				if err := run(c.full(attempt)); err != nil {
					t.Fatalf("%v once space is back: %v", c.full(attempt).stmts, err)
				}
				if err := run(insert(10011, 2, "back")); err != nil {
					t.Fatalf("a write once space is back: %v", err)
				}
				if s.DiskFull() {
					t.Errorf("the store reports a full disk after a successful write")
				}
				if got, want := diskState(t, r), model.String(); got != want {
					t.Fatalf("once space is back:\n%s\nwant\n%s", got, want)
				}
				r.close()
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				s = open()
				r = newRunner(t, s, "main")
				if got, want := diskState(t, r), model.String(); got != want {
					t.Fatalf("after reopening:\n%s\nwant\n%s", got, want)
				}
				checkIntegrity(t, r)
				r.close()
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				evMu.Lock()
				defer evMu.Unlock()
				if c.slack == 0 && (len(fullEvents) < 2 || !fullEvents[0] || fullEvents[len(fullEvents)-1]) {
					t.Errorf("disk-full events %v, want full, then writes again", fullEvents)
				}
			})
		}
	}
}

// TestFullDiskWithoutReserve lets the full disk reach Pebble's log: the commit fails with
// error 1114 and is not acknowledged, the store refuses every later write and asks the server
// to stop, and a store reopened once space is back has exactly the acknowledged commits.
func TestFullDiskWithoutReserve(t *testing.T) {
	q := newQuotaFS(vfs.NewMem())
	stop := make(chan error, 1)
	open := func() *Store {
		s, err := Open("data", Options{FS: q, Sync: kv.SyncCommit, CacheBytes: 1 << 20, MemTableBytes: 4 << 20,
			DiskReserveBytes: -1, OnSyncError: func(err error) { stop <- err }})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	r := newRunner(t, s, "main")
	r.must("CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(200), KEY kv (v))")
	model := diskModel{}
	for i := 0; i < 50; i++ {
		r.must(fmt.Sprintf("INSERT INTO t VALUES (%d, %d, 'r%d')", i, i%5, i))
		model[i] = [2]string{fmt.Sprint(i % 5), fmt.Sprintf("r%d", i)}
	}
	q.fill(0)
	_, err := r.exec("INSERT INTO t VALUES (100, 1, 'lost')")
	if errNum(err) != mysql.ERRecordFileFull {
		t.Fatalf("the commit on the full disk: %v (error %d), want error 1114", err, errNum(err))
	}
	if err := <-stop; err == nil || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("OnSyncError got %v, want the log's ENOSPC", err)
	}
	q.free()
	if _, err := r.exec("INSERT INTO t VALUES (101, 1, 'x')"); errNum(err) != mysqlerr.ERErrorOnWrite {
		t.Fatalf("a write after the log failed: %v (error %d), want error 1026", err, errNum(err))
	}
	if _, err := r.exec("SELECT count(*) FROM t"); err != nil {
		t.Fatalf("a read after the log failed: %v", err)
	}
	r.close()
	_ = s.Close()
	s = open()
	r = newRunner(t, s, "main")
	if got, want := diskState(t, r), model.String(); got != want {
		t.Fatalf("after reopening:\n%s\nwant\n%s", got, want)
	}
	checkIntegrity(t, r)
	r.must("INSERT INTO t VALUES (102, 1, 'y')")
	r.close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenOnFullDisk opens a store on a full disk: its own writes take the reserve, reads work,
// writes are refused until space is back.
func TestOpenOnFullDisk(t *testing.T) {
	q := newQuotaFS(vfs.NewMem())
	open := func() (*Store, error) {
		return Open("data", Options{FS: q, CacheBytes: 1 << 20, MemTableBytes: 4 << 20, DiskReserveBytes: testReserve})
	}
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, s, "main")
	r.must("CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(200))")
	r.must("INSERT INTO t VALUES (1, 1, 'a')")
	r.close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	q.fill(0)
	s, err = open()
	if err != nil {
		t.Fatalf("open on a full disk with its reserve: %v", err)
	}
	r = newRunner(t, s, "main")
	if got := diskState(t, r); got != "1 1 a\n" {
		t.Fatalf("read on a full disk: %q", got)
	}
	if _, err := r.exec("INSERT INTO t VALUES (2, 2, 'b')"); errNum(err) != mysql.ERRecordFileFull {
		t.Fatalf("a write after opening on a full disk: %v, want error 1114", err)
	}
	q.free()
	r.must("INSERT INTO t VALUES (2, 2, 'b')")
	r.close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
