// Package history keeps the recent past of the server's figures in memory, for
// system.asynchronous_metric_log, system.metric_log, system.warning_log and the dashboard.
//
// # Model
//
// A [Metrics] log is a ring of frames. A frame is the values of every named figure at one
// instant: the server records one frame per asynchronous_metrics_update_period_s, holding the
// rows of system.asynchronous_metrics, the cumulative counters of system.events and the gauges
// of system.metrics. Names are interned once into at most [MaxNames] slots, so a frame is a
// fixed-size array of values with a bit per slot saying which were present (absent sources are
// absent rows, as in the live tables). Counters are stored cumulative; readers get the
// increment since the previous frame, as ClickHouse's metric_log shows ProfileEvent columns.
//
// A [Warnings] log is a ring of warning events (raised, updated, cleared) fed by the warning
// registry's observer; "updated" is kept at most once per UpdateGap per warning, since the
// registry refreshes a raised warning on every sample.
//
// # Bounds
//
// Both rings are allocated whole when the log is made and never grow: a Metrics log holds one
// frame per second of retention (the update period is at least a second), a Warnings log
// WarningsPerSecond events per second of retention. When a ring is full the oldest entry is
// overwritten; reads also leave out entries older than the retention. A name beyond MaxNames is
// not recorded, and Record reports it so the caller can log it once.
//
// # Concurrency
//
// Each log has one RWMutex, a leaf: nothing else is locked while it is held. Record and the
// readers may run concurrently. The package has no clock and starts no goroutine: callers pass
// the time of every entry and of every read.
package history
