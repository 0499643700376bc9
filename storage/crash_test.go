package storage

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"strings"
	"testing"
	"time"

	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// The crash tests run a random workload on Pebble's crashable in-memory filesystem and, at
// random points, take the filesystem as a crash would leave it (what was synced, plus a random
// part of what was not), open a store on it and compare it with the state after the last
// acknowledged commit. The reopened store then carries the workload on.

// state is what a crash must preserve: the tables' rows and catalog.
func state(r *runner) string {
	var b strings.Builder
	for _, tbl := range []string{"t", "k"} {
		rows, err := r.exec("SHOW CREATE TABLE " + tbl)
		if err != nil {
			fmt.Fprintf(&b, "%s: none\n", tbl)
			continue
		}
		fmt.Fprintf(&b, "%s\n", rowsString(rows))
		order := "id"
		if tbl == "k" {
			order = "a, b"
		}
		fmt.Fprintf(&b, "%s\n", rowsString(r.must("SELECT * FROM "+tbl+" ORDER BY "+order)))
		fmt.Fprintf(&b, "%s\n", rowsString(r.must("SELECT count(*) FROM "+tbl)))
	}
	return b.String()
}

// checkIntegrity verifies the store's invariants: every index has one entry per row, each
// naming a stored row; the row counters equal the rows; no data belongs to a table id that no
// descriptor names.
func checkIntegrity(t *testing.T, r *runner) {
	t.Helper()
	tx, err := txnOf(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	live := map[uint32]bool{}
	for _, sdb := range r.store.Provider().AllDatabases(r.ctx) {
		db := sdb.(*Database)
		tables, err := db.tables(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			live[tb.Desc.ID] = true
			rows := 0
			_ = scanPrefix(tx.reader(), kv.IndexPrefix(tb.Desc.ID, kv.IIDRows), func(k, v []byte) error { rows++; return nil })
			n, err := tx.rowCount(tb.Desc.ID)
			if err != nil {
				t.Fatal(err)
			}
			if int64(rows) != n {
				t.Fatalf("table %s: %d rows, counter %d", tb.Desc.Name, rows, n)
			}
			check := func(name string, iid uint16) {
				entries := 0
				_ = scanPrefix(tx.reader(), kv.IndexPrefix(tb.Desc.ID, iid), func(k, v []byte) error {
					entries++
					if _, ok, _ := tx.get(append(kv.IndexPrefix(tb.Desc.ID, kv.IIDRows), v...)); !ok {
						t.Fatalf("table %s index %s: an entry names no row", tb.Desc.Name, name)
					}
					return nil
				})
				if entries != rows {
					t.Fatalf("table %s index %s: %d entries for %d rows", tb.Desc.Name, name, entries, rows)
				}
			}
			for _, idx := range tb.Desc.Indexes {
				check(idx.Name, idx.ID)
			}
			if len(tb.Desc.PK) == 0 {
				check("row hash", kv.IIDRowHash)
			}
		}
	}
	_ = scanPrefix(tx.reader(), []byte{kv.SpaceData}, func(k, v []byte) error {
		if tid := binary.BigEndian.Uint32(k[1:5]); !live[tid] {
			t.Fatalf("data of table id %d, which no descriptor names", tid)
		}
		return nil
	})
	r.sess.EndStatement(r.ctx, false, false)
}

type crashWorkload struct {
	rng    *rand.Rand
	extra  []string // added columns of t
	nextC  int
	hasIdx map[string]bool
}

// step returns the statements of one random step: one autocommit statement, or a transaction.
func (w *crashWorkload) step() (stmts []string, ddl bool) {
	rng := w.rng
	dml := func() string {
		id := rng.Intn(40)
		switch rng.Intn(4) {
		case 0, 1:
			return fmt.Sprintf("INSERT INTO t (id, v, s) VALUES (%d, %d, 's%d') ON DUPLICATE KEY UPDATE v = v + 1", id, rng.Intn(100), rng.Intn(1000))
		case 2:
			if rng.Intn(2) == 0 {
				return fmt.Sprintf("INSERT INTO k VALUES (%d, %d)", rng.Intn(5), rng.Intn(5))
			}
			return fmt.Sprintf("DELETE FROM k WHERE a = %d LIMIT 1", rng.Intn(5))
		default:
			if rng.Intn(2) == 0 {
				return fmt.Sprintf("UPDATE t SET v = %d, s = 'u%d' WHERE id = %d", rng.Intn(100), rng.Intn(100), id)
			}
			return fmt.Sprintf("DELETE FROM t WHERE id = %d", id)
		}
	}
	switch p := rng.Intn(100); {
	case p < 50:
		return []string{dml()}, false
	case p < 80:
		stmts = []string{"BEGIN"}
		for i := 0; i < 1+rng.Intn(5); i++ {
			stmts = append(stmts, dml())
			if rng.Intn(6) == 0 {
				stmts = append(stmts, "SAVEPOINT sp", dml(), "ROLLBACK TO SAVEPOINT sp")
			}
		}
		if rng.Intn(4) == 0 {
			return append(stmts, "ROLLBACK"), false
		}
		return append(stmts, "COMMIT"), false
	}
	switch rng.Intn(7) {
	case 0:
		w.nextC++
		c := fmt.Sprintf("c%d", w.nextC)
		w.extra = append(w.extra, c)
		return []string{fmt.Sprintf("ALTER TABLE t ADD COLUMN %s INT DEFAULT %d", c, w.nextC)}, true
	case 1:
		if len(w.extra) == 0 {
			return []string{"ALTER TABLE t MODIFY COLUMN s VARCHAR(40)"}, true
		}
		c := w.extra[0]
		w.extra = w.extra[1:]
		return []string{"ALTER TABLE t DROP COLUMN " + c}, true
	case 2:
		if w.hasIdx["ks"] {
			w.hasIdx["ks"] = false
			return []string{"DROP INDEX ks ON t"}, true
		}
		w.hasIdx["ks"] = true
		return []string{"CREATE INDEX ks ON t (s)"}, true
	case 3:
		return []string{"TRUNCATE TABLE t"}, true
	case 4:
		return []string{"DROP TABLE k", "CREATE TABLE k (a INT, b INT)"}, true
	case 5:
		return []string{"ALTER TABLE t MODIFY COLUMN v BIGINT"}, true
	default:
		return []string{"ALTER TABLE t MODIFY COLUMN v INT"}, true
	}
}

func TestCrashRecovery(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { crashRun(t, seed, kv.SyncCommit) })
	}
	t.Run("sync-none", func(t *testing.T) { crashRun(t, 100, kv.SyncNone) })
}

func crashRun(t *testing.T, seed int64, mode kv.SyncMode) {
	rng := rand.New(rand.NewSource(seed))
	fs := vfs.NewCrashableMem()
	open := func(fs vfs.FS) *Store {
		s, err := Open("data", Options{FS: fs, Sync: mode, CacheBytes: 1 << 20, MemTableBytes: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open(fs)
	r := newRunner(t, s, "main")
	r.must("CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(20), KEY kv (v))")
	r.must("CREATE TABLE k (a INT, b INT)")
	w := &crashWorkload{rng: rng, hasIdx: map[string]bool{}}
	acked := state(r)
	history := []string{acked}
	crashes := 0
	midCrashes := 0
	for i := 0; i < 400; i++ {
		stmts, ddl := w.step()
		if ddl && len(stmts) == 1 && mode == kv.SyncCommit && rng.Intn(2) == 0 {
			// crash while the DDL runs: the clone has the state before it or after it
			before := acked
			done := make(chan error, 1)
			go func() { _, err := r.exec(stmts[0]); done <- err }()
			time.Sleep(time.Duration(rng.Intn(3000)) * time.Microsecond)
			clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.Intn(101), RNG: randv2.New(randv2.NewPCG(uint64(seed), uint64(i)))})
			<-done
			acked = state(r)
			history = append(history, acked)
			s2 := open(clone)
			r2 := newRunner(t, s2, "main")
			got := state(r2)
			if got != before && got != acked {
				t.Fatalf("step %d: a crash during %q left\n%s\nneither the state before\n%s\nnor after\n%s", i, stmts[0], got, before, acked)
			}
			checkIntegrity(t, r2)
			r2.close()
			_ = s2.Close()
			midCrashes++
			continue
		}
		failed := false
		for _, q := range stmts {
			if _, err := r.exec(q); err != nil {
				// a failed statement (a duplicate, a column the ALTER cannot drop) must leave
				// nothing; the workload's idea of the schema is corrected from the table
				failed = true
				if strings.HasPrefix(q, "ALTER") || strings.HasPrefix(q, "CREATE INDEX") || strings.HasPrefix(q, "DROP INDEX") {
					t.Logf("%s: %v", q, err)
				}
				if stmts[0] == "BEGIN" {
					_, _ = r.exec("ROLLBACK")
					break
				}
			}
		}
		_ = failed
		acked = state(r)
		history = append(history, acked)
		if rng.Intn(12) == 0 {
			if rng.Intn(3) == 0 {
				_ = s.Flush()
			}
			crashes++
			clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.Intn(101), RNG: randv2.New(randv2.NewPCG(uint64(seed), uint64(i)))})
			r.close()
			_ = s.Close()
			fs = clone
			s = open(fs)
			r = newRunner(t, s, "main")
			got := state(r)
			if mode == kv.SyncCommit {
				if got != acked {
					t.Fatalf("step %d: after the crash\n%s\nwant the last acknowledged state\n%s", i, got, acked)
				}
			} else {
				found := false
				for _, h := range history {
					if h == got {
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("step %d: after the crash the state is no committed prefix:\n%s", i, got)
				}
				acked = got
			}
			history = []string{acked}
			checkIntegrity(t, r)
			w.syncSchema(r)
		}
	}
	checkIntegrity(t, r)
	r.close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d crashes between statements, %d during DDL", crashes, midCrashes)
}

// syncSchema reads the added columns and indexes of t back after a crash.
func (w *crashWorkload) syncSchema(r *runner) {
	w.extra = nil
	w.hasIdx = map[string]bool{}
	for _, row := range r.must("SHOW COLUMNS FROM t") {
		if name := row[0].(string); strings.HasPrefix(name, "c") {
			w.extra = append(w.extra, name)
		}
	}
	for _, row := range r.must("SHOW INDEX FROM t") {
		if row[2].(string) == "ks" {
			w.hasIdx["ks"] = true
		}
	}
}

var _ = pebble.Sync
