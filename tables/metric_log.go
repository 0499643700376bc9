package tables

import "overloadsql/history"

// MetricLog is system.metric_log: the counters of system.events as increments over each
// asynchronous_metrics_update_period_s (metric ProfileEvent_<event>) and the gauges of
// system.metrics (CurrentMetric_<metric>), one row per name per period, for
// metric_log_retention_s. It is ClickHouse's metric_log in its transposed form.
func MetricLog(points func() []history.Point) *Table {
	return pointTable("metric_log", points)
}
