package integration

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// storageRows reads the rows of system.events (or asynchronous_metrics) named Storage* and
// WriteLock* as numbers.
func storageRows(t *testing.T, db *sql.DB, table string) map[string]float64 {
	t.Helper()
	col := "metric"
	if table == "events" {
		col = "event"
	}
	out := map[string]float64{}
	for _, r := range queryStrings(t, db, "SELECT "+col+", value FROM system."+table+" WHERE "+col+" LIKE 'Storage%' OR "+col+" LIKE 'WriteLock%'") {
		name, v, _ := strings.Cut(r, "\t")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("system.%s %s = %q", table, name, v)
		}
		out[name] = f
	}
	return out
}

// The storage's state and activity show in system.asynchronous_metrics, system.events and on
// /metrics, and information_schema.TABLES has the real row count and size.
func TestStorageMetrics(t *testing.T) {
	s, base := startHTTPServer(t, "storage_cache_bytes = 8388608\n")
	db := s.db()
	before := storageRows(t, db, "events")
	mustExec(t, db, "CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(100) NOT NULL, KEY kv (v))")
	const commits = 100
	for i := 0; i < commits; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO m VALUES (%d, '%090d')", i, i))
	}
	// a rollback, and a failed statement undone inside a transaction
	tx := session(t, db)
	mustExec(t, tx, "BEGIN", "INSERT INTO m VALUES (1000, 'x')")
	if _, err := tx.ExecContext(context.Background(), "INSERT INTO m VALUES (1, 'dup')"); mysqlError(t, err).Number != 1062 {
		t.Fatalf("duplicate key: %v", err)
	}
	mustExec(t, tx, "ROLLBACK")
	// a wait for the write lock: the holder keeps it for at least hold
	const hold = 300 * time.Millisecond
	holder, waiter := session(t, db), session(t, db)
	mustExec(t, holder, "BEGIN", "UPDATE m SET v = 'held' WHERE id = 1")
	waited := make(chan error, 1)
	go func() {
		_, err := waiter.ExecContext(context.Background(), "UPDATE m SET v = 'waited' WHERE id = 2")
		waited <- err
	}()
	eventually(t, 10*time.Second, "the second writer waits", func() (bool, string) {
		got := gauge(t, db, "WriteLockWaitingStatements")
		return got == "1", "WriteLockWaitingStatements = " + got
	})
	time.Sleep(hold)
	mustExec(t, holder, "COMMIT")
	if err := <-waited; err != nil {
		t.Fatalf("the waiting writer: %v", err)
	}
	for i := 0; i < 5; i++ {
		mustExec(t, db, "SELECT COUNT(*) FROM m WHERE v > ''")
	}

	after := storageRows(t, db, "events")
	grew := func(name string, atLeast float64) {
		t.Helper()
		if d := after[name] - before[name]; d < atLeast {
			t.Errorf("system.events %s grew by %v, want at least %v", name, d, atLeast)
		}
	}
	grew("StorageCommits", commits+2)
	grew("StorageRollbacks", 1)
	grew("StorageStatementRollbacks", 1)
	grew("StorageWALFsyncs", 1)
	grew("StorageWALFsyncMicroseconds", 1)
	grew("WriteLockGrants", commits+3)
	grew("WriteLockWaits", 1)
	grew("WriteLockWaitMicroseconds", float64(hold/time.Microsecond))
	grew("WriteLockHoldMicroseconds", float64(hold/time.Microsecond))
	for _, name := range []string{"StorageBlockCacheHits", "StorageBlockCacheMisses", "StorageCompactions", "StorageWriteStalls", "StorageWriteStallMicroseconds", "StorageSavepointRollbacks"} {
		if _, ok := after[name]; !ok {
			t.Errorf("system.events has no row %s", name)
		}
	}

	gauges := storageRows(t, db, "asynchronous_metrics")
	checks := []struct {
		name   string
		lo, hi float64
	}{
		{"StorageBlockCacheCapacity", 8 << 20, 8 << 20},
		{"StorageBlockCacheBytes", 0, 8 << 20},
		{"StorageBlockCacheHitRatio", 0, 1},
		{"StorageMemTableBytes", 1, 1 << 30},
		{"StorageMemTables", 1, 4},
		{"StorageCompactionDebtBytes", 0, 1 << 40},
		{"StorageRunningCompactions", 0, 1},
		{"StorageL0Sublevels", 0, 100},
		{"StorageL0Files", 0, 1000},
		{"StorageDiskUsed", 1, 1 << 40},
	}
	for _, c := range checks {
		v, ok := gauges[c.name]
		if !ok || v < c.lo || v > c.hi {
			t.Errorf("system.asynchronous_metrics %s = %v (present %v), want in [%v, %v]", c.name, v, ok, c.lo, c.hi)
		}
	}

	code, body := httpGet(t, base+"/metrics", "", "")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	values := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		if name, v, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, "#") {
			f, _ := strconv.ParseFloat(v, 64)
			values[name] = f
		}
	}
	if n := values["overloadsql_storage_wal_fsync_duration_seconds_count"]; n < 1 {
		t.Errorf("overloadsql_storage_wal_fsync_duration_seconds_count = %v, want >= 1", n)
	}
	if inf := values[`overloadsql_storage_wal_fsync_duration_seconds_bucket{le="+Inf"}`]; inf != values["overloadsql_storage_wal_fsync_duration_seconds_count"] {
		t.Errorf("the +Inf bucket %v is not the count", inf)
	}
	if _, ok := values[`overloadsql_storage_wal_fsync_duration_seconds_bucket{le="0.001"}`]; !ok {
		t.Error("/metrics has no 1 ms bucket of the fsync histogram")
	}
	for _, name := range []string{"overloadsql_storage_commits_total", "overloadsql_storage_block_cache_hit_ratio", "overloadsql_write_lock_wait_seconds_total", "overloadsql_storage_disk_used_bytes"} {
		if _, ok := values[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}
	if values["overloadsql_write_lock_wait_seconds_total"] < hold.Seconds() {
		t.Errorf("overloadsql_write_lock_wait_seconds_total = %v, want >= %v", values["overloadsql_write_lock_wait_seconds_total"], hold.Seconds())
	}

	row := queryStrings(t, db, "SELECT TABLE_ROWS, DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'main' AND TABLE_NAME = 'm'")
	f := strings.Split(row[0], "\t")
	length, _ := strconv.Atoi(f[1])
	if f[0] != strconv.Itoa(commits) || length < commits*90 || length > commits*400 {
		t.Errorf("information_schema.TABLES: TABLE_ROWS %s DATA_LENGTH %s, want %d rows of 90 to 400 bytes", f[0], f[1], commits)
	}
}
