package storage

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Observe counts commits, rollbacks and lock holds, and reads Pebble's gauges.
func TestObserve(t *testing.T) {
	s, r := memStore(t, Options{})
	before := s.Observe()
	r.must("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100), KEY kv (v))")
	for i := 0; i < 20; i++ {
		r.must(fmt.Sprintf("INSERT INTO t VALUES (%d, 'v%d')", i, i))
	}
	r.must("BEGIN")
	r.must("INSERT INTO t VALUES (100, 'x')")
	r.must("ROLLBACK")
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r.must("SELECT COUNT(*) FROM t WHERE v = 'v3'")
	}
	o := s.Observe()
	if got := o.Commits - before.Commits; got < 21 {
		t.Errorf("Commits grew by %d, want >= 21 (CREATE TABLE and 20 INSERTs)", got)
	}
	if got := o.Rollbacks - before.Rollbacks; got != 1 {
		t.Errorf("Rollbacks grew by %d, want 1", got)
	}
	if o.LockHold <= before.LockHold {
		t.Errorf("LockHold %v did not grow from %v", o.LockHold, before.LockHold)
	}
	if o.WALFsync.Count == 0 || o.WALFsync.Sum <= 0 {
		t.Errorf("WALFsync = %+v, want syncs of the commits", o.WALFsync)
	}
	if last := o.WALFsync.Buckets[len(o.WALFsync.Buckets)-1]; last > o.WALFsync.Count {
		t.Errorf("last bucket %d > count %d", last, o.WALFsync.Count)
	}
	for i := 1; i < len(o.WALFsync.Buckets); i++ {
		if o.WALFsync.Buckets[i] < o.WALFsync.Buckets[i-1] {
			t.Errorf("buckets not cumulative: %v", o.WALFsync.Buckets)
		}
	}
	if o.DiskBytes == 0 || o.BlockCacheCapacity != 64<<20 || o.MemTables < 1 {
		t.Errorf("gauges: %+v", o)
	}
	if o.BlockCacheHits+o.BlockCacheMisses == 0 {
		t.Errorf("no block reads counted after a flush and three lookups: %+v", o)
	}
}

// A checkpoint taken while transfers commit opens as a store with a consistent state: the sum
// of the balances is kept, the row count and the index agree with the rows.
func TestCheckpointOnline(t *testing.T) {
	fs := vfs.NewMem()
	s, err := Open("data", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	setup := newRunner(t, s, "main")
	setup.must("CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL, tag VARCHAR(20) NOT NULL, KEY kb (bal), UNIQUE KEY ut (tag))")
	const accounts = 20
	for i := 0; i < accounts; i++ {
		setup.must(fmt.Sprintf("INSERT INTO acct VALUES (%d, 100, 't%d')", i, i))
	}
	setup.close()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 2; w++ {
		// Built here, not in the goroutine: the engine's constructor sets global status
		// variables without a lock.
		r := newRunner(t, s, "main")
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			defer r.close()
			rnd := rand.New(rand.NewSource(seed))
			for n := 0; n < 2000; n++ {
				select {
				case <-stop:
					return
				default:
				}
				a, b := rnd.Intn(accounts), rnd.Intn(accounts)
				if a == b {
					continue
				}
				amt := rnd.Intn(10) + 1
				q := []string{"BEGIN",
					fmt.Sprintf("UPDATE acct SET bal = bal - %d WHERE id = %d", amt, a),
					fmt.Sprintf("UPDATE acct SET bal = bal + %d WHERE id = %d", amt, b),
					fmt.Sprintf("UPDATE acct SET tag = 'n%d' WHERE id = %d", n*2+int(seed), a),
					"COMMIT"}
				for _, x := range q {
					if _, err := r.exec(x); err != nil {
						_, _ = r.exec("ROLLBACK")
						break
					}
				}
			}
		}(int64(w))
	}
	time.Sleep(20 * time.Millisecond)
	if err := s.Checkpoint("backup"); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint("backup"); err == nil {
		t.Error("a second checkpoint into the same directory succeeded")
	}
	close(stop)
	wg.Wait()

	b, err := Open("backup", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r := newRunner(t, b, "main")
	defer r.close()
	checks := map[string]string{
		"SELECT SUM(bal) FROM acct":                                       strconv.Itoa(accounts * 100),
		"SELECT COUNT(*) FROM acct":                                       strconv.Itoa(accounts),
		"SELECT COUNT(*) FROM acct FORCE INDEX (kb) WHERE bal > -1000000": strconv.Itoa(accounts),
		"SELECT COUNT(DISTINCT tag) FROM acct IGNORE INDEX (ut)":          strconv.Itoa(accounts),
		"SELECT COUNT(*) FROM acct a JOIN acct b ON a.tag = b.tag":        strconv.Itoa(accounts),
	}
	for q, want := range checks {
		if got := fmt.Sprint(r.must(q)[0][0]); got != want {
			t.Errorf("%s = %s on the checkpoint, want %s", q, got, want)
		}
	}
}

// information_schema.TABLES shows the exact row count and a data length that counts the rows in
// the memtables as well as those in the table files.
func TestTableRowsAndDataLength(t *testing.T) {
	s, r := memStore(t, Options{})
	r.must("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(200), KEY kv (v))")
	const q = "SELECT TABLE_ROWS, DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'main' AND TABLE_NAME = 't'"
	if got := fmt.Sprint(r.must(q)); got != "[[0 0]]" {
		t.Errorf("empty table: %s, want [[0 0]]", got)
	}
	for i := 0; i < 10; i++ {
		var vals []string
		for j := 0; j < 100; j++ {
			vals = append(vals, fmt.Sprintf("(%d, '%0100d')", i*100+j, j))
		}
		r.must("INSERT INTO t VALUES " + strings.Join(vals, ", "))
	}
	check := func(when string) {
		row := r.must(q)[0]
		rows, length := fmt.Sprint(row[0]), row[1]
		n, _ := strconv.ParseUint(fmt.Sprint(length), 10, 64)
		// a row is at least its 100-byte value; the rows are not compressible below 20 bytes each
		if rows != "1000" || n < 1000*20 || n > 1000*400 {
			t.Errorf("%s: TABLE_ROWS %s DATA_LENGTH %d, want 1000 rows of 20 to 400 bytes", when, rows, n)
		}
	}
	check("in the memtable")
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	check("flushed")
}
