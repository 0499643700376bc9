package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, kv.ErrLocked) {
		t.Fatalf("second opener: %v, want kv.ErrLocked", err)
	}
	// a newer format is refused
	r := newRunner(t, s, "main")
	tx, _ := txnOf(r.ctx)
	_ = tx.beginWrite(r.ctx)
	_ = tx.putKnown(kv.KeyFormat, []byte(`{"version": 99}`))
	if err := tx.commit(r.ctx); err != nil {
		t.Fatal(err)
	}
	r.close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, kv.ErrNewerFormat) {
		t.Fatalf("newer format: %v", err)
	}

	// a directory with other files is not taken over
	other := t.TempDir()
	_ = os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o644)
	if _, err := Open(other, Options{}); !errors.Is(err, kv.ErrNotDataDir) {
		t.Fatalf("foreign directory: %v", err)
	}
	// a store whose manifest is gone is corrupt, never re-initialised
	broken := t.TempDir()
	s, err = Open(broken, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	names, _ := os.ReadDir(broken)
	for _, n := range names {
		if strings.HasPrefix(n.Name(), "MANIFEST") {
			_ = os.WriteFile(filepath.Join(broken, n.Name()), []byte("garbage"), 0o644)
		}
	}
	if _, err := Open(broken, Options{}); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("corrupt manifest: %v", err)
	}
	if os.Getuid() != 0 {
		ro := filepath.Join(t.TempDir(), "ro")
		_ = os.Mkdir(ro, 0o500)
		if _, err := Open(filepath.Join(ro, "data"), Options{}); !errors.Is(err, kv.ErrUnwritable) {
			t.Fatalf("unwritable: %v", err)
		}
	}
}

func TestTransactions(t *testing.T) {
	s, err := Open("data", Options{FS: vfs.NewMem(), MaxTransactionBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := newRunner(t, s, "main")
	b := newRunner(t, s, "main")
	defer a.close()
	defer b.close()
	a.must("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100), UNIQUE KEY uv (v))")
	a.must("INSERT INTO t VALUES (1, 'a')")

	// a reader keeps its snapshot while a writer commits
	b.must("BEGIN")
	if got := rowsString(b.must("SELECT id FROM t")); got != "[[1]]" {
		t.Fatal(got)
	}
	a.must("INSERT INTO t VALUES (2, 'b')")
	if got := rowsString(b.must("SELECT id FROM t")); got != "[[1]]" {
		t.Fatalf("repeatable read: %s", got)
	}
	b.must("COMMIT")

	// savepoints and a failed statement in a transaction
	a.must("BEGIN")
	a.must("INSERT INTO t VALUES (3, 'c')")
	a.must("SAVEPOINT s1")
	a.must("INSERT INTO t VALUES (4, 'd')")
	a.must("ROLLBACK TO SAVEPOINT s1")
	if _, err := a.exec("INSERT INTO t VALUES (5, 'e'), (6, 'a')"); err == nil {
		t.Fatal("duplicate unique key accepted")
	}
	a.must("COMMIT")
	if got := rowsString(a.must("SELECT id FROM t ORDER BY id")); got != "[[1] [2] [3]]" {
		t.Fatalf("after savepoint and failed statement: %s", got)
	}
	// a failed autocommit statement leaves nothing and frees the write lock
	if _, err := a.exec("INSERT INTO t VALUES (7, 'x'), (8, 'a')"); err == nil {
		t.Fatal("duplicate accepted")
	}
	b.must("INSERT INTO t VALUES (9, 'z')")
	if got := rowsString(b.must("SELECT id FROM t ORDER BY id")); got != "[[1] [2] [3] [9]]" {
		t.Fatalf("after failed autocommit statement: %s", got)
	}
	// DDL is atomic: a CREATE TABLE whose foreign key fails creates nothing
	if _, err := a.exec("CREATE TABLE bad (id INT PRIMARY KEY, x INT, FOREIGN KEY (x) REFERENCES nowhere (id))"); err == nil {
		t.Fatal("foreign key to a missing table accepted")
	}
	if _, err := a.exec("SELECT * FROM bad"); err == nil {
		t.Fatal("the failed CREATE TABLE left its table")
	}
	// a transaction over the byte limit fails with 1197 and is rolled back
	a.must("BEGIN")
	var failed error
	for i := 100; i < 2000 && failed == nil; i++ {
		_, failed = a.exec("INSERT INTO t VALUES (" + itoa(i) + ", '" + strings.Repeat("y", 80) + itoa(i) + "')")
	}
	// the engine wraps the storage's error in its insert error, which keeps the text
	if failed == nil || !strings.Contains(failed.Error(), "errno 1197") {
		t.Fatalf("over the limit: %v", failed)
	}
	_, _ = a.exec("COMMIT")
	if got := rowsString(b.must("SELECT count(*) FROM t")); got != "[[4]]" {
		t.Fatalf("after the rolled-back large transaction: %s", got)
	}
	b.must("INSERT INTO t VALUES (10, 'after')")
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestRowCountsFromManyGoroutines asks one transaction for row counts from several goroutines
// at once, as the engine's planning of subqueries may: the race detector holds the cache safe.
func TestRowCountsFromManyGoroutines(t *testing.T) {
	s, r := memStore(t, Options{})
	r.must("CREATE TABLE t (id INT PRIMARY KEY)")
	r.must("INSERT INTO t VALUES (1), (2), (3)")
	r.must("BEGIN")
	r.must("INSERT INTO t VALUES (4)")
	db, err := s.Provider().Database(r.ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok, err := db.GetTableInsensitive(r.ctx, "t")
	if err != nil || !ok {
		t.Fatalf("table t: %v %v", ok, err)
	}
	counted := tbl.(sql.StatisticsTable)
	var wg sync.WaitGroup
	counts := make([]uint64, 8)
	errs := make([]error, len(counts))
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				tx, err := txnOf(r.ctx)
				if err != nil {
					errs[i] = err
					return
				}
				tx.forgetCounts([]byte{kv.SpaceCounter})
				counts[i], _, errs[i] = counted.RowCount(r.ctx)
			}
		}()
	}
	wg.Wait()
	for i := range counts {
		if errs[i] != nil || counts[i] != 4 {
			t.Errorf("goroutine %d: row count %d, %v; want 4", i, counts[i], errs[i])
		}
	}
	r.must("COMMIT")
}
