package data

import (
	"time"

	"overloadsql/httpapi"
	"overloadsql/overload"
	"overloadsql/storage/kv"
)

// Gauges are the store's rows of system.asynchronous_metrics: Pebble's state now.
func Gauges(o kv.Observation) []overload.Metric {
	hitRatio := 0.0
	if reads := o.BlockCacheHits + o.BlockCacheMisses; reads > 0 {
		hitRatio = float64(o.BlockCacheHits) / float64(reads)
	}
	return []overload.Metric{
		{Name: "StorageBlockCacheBytes", Value: float64(o.BlockCacheBytes),
			Description: "Bytes of table blocks held in the storage's block cache (off the Go heap in the cgo build, counted inside max_server_memory_usage; at most storage_cache_bytes)."},
		{Name: "StorageBlockCacheCapacity", Value: float64(o.BlockCacheCapacity),
			Description: "Size limit of the storage's block cache: storage_cache_bytes."},
		{Name: "StorageBlockCacheHitRatio", Value: hitRatio,
			Description: "Share of block reads since start served by the block cache (StorageBlockCacheHits / (StorageBlockCacheHits + StorageBlockCacheMisses)); 0 before the first read."},
		{Name: "StorageMemTableBytes", Value: float64(o.MemTableBytes),
			Description: "Bytes of the memtables: recent commits not yet flushed to table files (off the Go heap in the cgo build, counted inside max_server_memory_usage)."},
		{Name: "StorageMemTables", Value: float64(o.MemTables),
			Description: "Memtables: the one taking writes plus those waiting for a flush; writes stall when four are queued."},
		{Name: "StorageCompactionDebtBytes", Value: float64(o.CompactionDebtBytes),
			Description: "Pebble's estimate of the bytes compactions must rewrite for the LSM to reach a stable shape; a debt that keeps growing means writes outpace compactions."},
		{Name: "StorageRunningCompactions", Value: float64(o.RunningCompactions),
			Description: "Compactions running now (at most one at a time)."},
		{Name: "StorageL0Sublevels", Value: float64(o.L0Sublevels),
			Description: "Sublevels of level 0: each read looks at every one, and writes stall when there are too many."},
		{Name: "StorageL0Files", Value: float64(o.L0Files),
			Description: "Table files in level 0."},
		{Name: "StorageDiskUsed", Value: float64(o.DiskBytes),
			Description: "Bytes on disk of the data_dir's store: table files, write-ahead logs, manifest and options (checkpoints taken by SYSTEM BACKUP are not counted)."},
	}
}

// Events are the store's rows of system.events: cumulative since start.
func Events(o kv.Observation) []overload.Event {
	return []overload.Event{
		{Name: "StorageCommits", Value: uint64(o.Commits), Description: "Transactions that wrote stored tables and committed (a read-only transaction is not counted)."},
		{Name: "StorageRollbacks", Value: uint64(o.Rollbacks), Description: "Transactions rolled back in the storage: ROLLBACK, a failed autocommit statement, a transaction ended by a disconnect or KILL."},
		{Name: "StorageStatementRollbacks", Value: uint64(o.StatementRollbacks), Description: "Failed statements inside a transaction whose own changes were undone (the transaction went on)."},
		{Name: "StorageSavepointRollbacks", Value: uint64(o.SavepointRollbacks), Description: "ROLLBACK TO SAVEPOINT statements."},
		{Name: "StorageBlockCacheHits", Value: uint64(o.BlockCacheHits), Description: "Block reads served by the storage's block cache."},
		{Name: "StorageBlockCacheMisses", Value: uint64(o.BlockCacheMisses), Description: "Block reads that went to the table files."},
		{Name: "StorageCompactions", Value: uint64(o.Compactions), Description: "Compactions finished."},
		{Name: "StorageWriteStalls", Value: uint64(o.WriteStalls), Description: "Times the storage held all writes back because flushes or compactions lagged (four memtables queued, or too many L0 sublevels)."},
		{Name: "StorageWriteStallMicroseconds", Value: uint64(o.WriteStallTime / time.Microsecond), Description: "Total time writes were held back by write stalls."},
		{Name: "StorageWALFsyncs", Value: o.WALFsync.Count, Description: "Syncs of the write-ahead log (one per commit group under storage_sync = commit; one a second under none)."},
		{Name: "StorageWALFsyncMicroseconds", Value: uint64(o.WALFsync.Sum / time.Microsecond), Description: "Total time of the write-ahead log's syncs; the distribution is the histogram overloadsql_storage_wal_fsync_duration_seconds on /metrics."},
	}
}

// Events of the write lock: cumulative since start.
func (l *WriteLock) Events() []overload.Event {
	return []overload.Event{
		{Name: "WriteLockGrants", Value: uint64(l.grants.Load()), Description: "Transactions that got the write lock (one transaction writes stored tables at a time)."},
		{Name: "WriteLockWaits", Value: uint64(l.waits.Load()), Description: "Statements that queued for the write lock because another transaction held it (granted, timed out or killed)."},
		{Name: "WriteLockWaitMicroseconds", Value: uint64(l.waitNanos.Load() / 1e3), Description: "Total time statements waited for the write lock."},
		{Name: "WriteLockHoldMicroseconds", Value: uint64(l.holdNanos.Load() / 1e3), Description: "Total time transactions held the write lock, from their first write to their end (of those that ended)."},
	}
}

// Histograms are the store's histograms for /metrics.
func Histograms(o kv.Observation) []httpapi.Histogram {
	h := o.WALFsync
	bounds := make([]float64, len(h.Bounds))
	for i, b := range h.Bounds {
		bounds[i] = b.Seconds()
	}
	return []httpapi.Histogram{{
		SQL:     "StorageWALFsync",
		Count:   h.Count,
		Sum:     h.Sum.Seconds(),
		Bounds:  bounds,
		Buckets: h.Buckets,
		Description: "Duration of the write-ahead log's syncs, in seconds (a bucket counts the syncs of at most its bound, " +
			"read from Pebble's finer buckets).",
	}}
}
