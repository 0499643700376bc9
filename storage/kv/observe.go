package kv

import (
	"sort"
	"time"

	"github.com/cockroachdb/pebble/v2"
	dto "github.com/prometheus/client_model/go"
)

// Observation is one reading of the store's state for monitoring: Pebble's gauges (block
// cache, memtables, compactions, L0, disk) and the store's cumulative counters since Open.
type Observation struct {
	// BlockCacheBytes is the memory the block cache holds; BlockCacheCapacity its limit.
	BlockCacheBytes, BlockCacheCapacity int64
	// BlockCacheHits and BlockCacheMisses count block reads since Open.
	BlockCacheHits, BlockCacheMisses int64
	// MemTableBytes is the memory of the memtables (the mutable one and those waiting for a
	// flush); MemTables is their number.
	MemTableBytes uint64
	MemTables     int64
	// CompactionDebtBytes is Pebble's estimate of the bytes to compact for the LSM to reach a
	// stable shape; RunningCompactions the compactions in progress; Compactions those since Open.
	CompactionDebtBytes uint64
	RunningCompactions  int64
	Compactions         int64
	// L0Sublevels and L0Files are the shape of level 0: a read looks at every sublevel, and
	// writes stall when they grow.
	L0Sublevels int32
	L0Files     int64
	// DiskBytes is the space the store's files take: tables, logs, manifest.
	DiskBytes uint64
	// WALFsync is the distribution of the write-ahead log's syncs since Open.
	WALFsync Histogram
	// WriteStalls counts the times Pebble held writes back (too many memtables or L0
	// sublevels); WriteStallTime is their total length.
	WriteStalls    int64
	WriteStallTime time.Duration
	// Commits, Rollbacks, StatementRollbacks and SavepointRollbacks count transactions ended,
	// failed statements undone and ROLLBACK TO statements.
	Commits, Rollbacks, StatementRollbacks, SavepointRollbacks int64
	// LockWait and LockHold are the total time transactions waited for, and held, the write lock.
	LockWait, LockHold time.Duration
}

// Histogram is a cumulative distribution of durations: Buckets[i] observations took at most
// Bounds[i]; Count observations in all took Sum.
type Histogram struct {
	Count   uint64
	Sum     time.Duration
	Bounds  []time.Duration
	Buckets []uint64
}

// FsyncBounds are the bucket bounds of Observation.WALFsync, from a fast SSD's sync to a
// stalled disk's.
var FsyncBounds = []time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond,
	500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
}

// Observe reads the store's monitoring values. It takes Pebble's metrics lock briefly and no
// lock of the store's.
func (s *Store) Observe() Observation {
	m := s.db.Metrics()
	o := Observation{
		BlockCacheBytes:     m.BlockCache.Size,
		BlockCacheCapacity:  s.opts.CacheBytes,
		BlockCacheHits:      m.BlockCache.Hits,
		BlockCacheMisses:    m.BlockCache.Misses,
		MemTableBytes:       m.MemTable.Size,
		MemTables:           m.MemTable.Count,
		CompactionDebtBytes: m.Compact.EstimatedDebt,
		RunningCompactions:  m.Compact.NumInProgress,
		Compactions:         m.Compact.Count,
		L0Sublevels:         m.Levels[0].Sublevels,
		L0Files:             m.Levels[0].TablesCount,
		DiskBytes:           m.DiskSpaceUsage(),
		WriteStalls:         s.stats.WriteStalls.Load(),
		WriteStallTime:      time.Duration(s.stats.WriteStallNanos.Load()),
		Commits:             s.stats.Commits.Load(),
		Rollbacks:           s.stats.Rollbacks.Load(),
		StatementRollbacks:  s.stats.StatementRollbacks.Load(),
		SavepointRollbacks:  s.stats.SavepointRollbacks.Load(),
		LockWait:            time.Duration(s.stats.LockWaitNanos.Load()),
		LockHold:            time.Duration(s.stats.LockHoldNanos.Load()),
	}
	o.WALFsync = fsyncHistogram(m)
	return o
}

// fsyncHistogram re-buckets Pebble's log-sync histogram (nanoseconds, about a hundred buckets)
// into FsyncBounds. A bound's count is that of Pebble's largest bucket not above it, so it never
// counts a sync longer than the bound.
func fsyncHistogram(m *pebble.Metrics) Histogram {
	h := Histogram{Bounds: FsyncBounds, Buckets: make([]uint64, len(FsyncBounds))}
	if m.LogWriter.FsyncLatency == nil {
		return h
	}
	var d dto.Metric
	if err := m.LogWriter.FsyncLatency.Write(&d); err != nil || d.Histogram == nil {
		return h
	}
	ph := d.Histogram
	h.Count = ph.GetSampleCount()
	h.Sum = time.Duration(ph.GetSampleSum())
	bs := ph.GetBucket()
	sort.Slice(bs, func(i, j int) bool { return bs[i].GetUpperBound() < bs[j].GetUpperBound() })
	j := 0
	var cum uint64
	for i, b := range FsyncBounds {
		for j < len(bs) && bs[j].GetUpperBound() <= float64(b) {
			cum = bs[j].GetCumulativeCount()
			j++
		}
		h.Buckets[i] = cum
	}
	return h
}

// stallListener counts Pebble's write stalls into st.
func stallListener(st *Stats) *pebble.EventListener {
	var began time.Time
	return &pebble.EventListener{
		// Pebble calls Begin and End in pairs, from the commit pipeline under its own lock.
		WriteStallBegin: func(pebble.WriteStallBeginInfo) {
			began = time.Now()
			st.WriteStalls.Add(1)
		},
		WriteStallEnd: func() {
			if !began.IsZero() {
				st.WriteStallNanos.Add(int64(time.Since(began)))
				began = time.Time{}
			}
		},
	}
}
