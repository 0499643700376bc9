package httpapi

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Tables whose rows /metrics exports, as system.<table>.
const (
	tableAsynchronousMetrics = "asynchronous_metrics"
	tableEvents              = "events"
	tableMetrics             = "metrics"
)

// Name ties one row of a system table to its Prometheus metric. asynchronous_metrics and metrics
// rows are gauges, events rows are counters.
type Name struct {
	Table      string  // asynchronous_metrics, events or metrics
	SQL        string  // the row's name in the table
	Prometheus string  // the metric's name
	Scale      float64 // the Prometheus value is the SQL value times Scale (units in base units)
}

const (
	prefix        = "overloadsql_"
	microToSecond = 1e-6
	percentToOne  = 0.01
)

// Names is the mapping from SQL names to Prometheus names: docs/metrics.md is generated from it
// and a test checks that it covers every row the server can produce.
var Names = []Name{
	{tableAsynchronousMetrics, "OSCPUOverload", prefix + "os_cpu_overload_ratio", 1},
	{tableAsynchronousMetrics, "KernelRunQueueOverload", prefix + "kernel_run_queue_overload_ratio", 1},
	{tableAsynchronousMetrics, "GoRunQueueOverload", prefix + "go_run_queue_overload_ratio", 1},
	{tableAsynchronousMetrics, "OSIdleTimeNormalized", prefix + "os_idle_time_ratio", 1},
	{tableAsynchronousMetrics, "OSUserTimeNormalized", prefix + "os_user_time_ratio", 1},
	{tableAsynchronousMetrics, "OSSystemTimeNormalized", prefix + "os_system_time_ratio", 1},
	{tableAsynchronousMetrics, "CPUBusyRatio", prefix + "cpu_busy_ratio", 1},
	{tableAsynchronousMetrics, "MemoryResident", prefix + "memory_resident_bytes", 1},
	{tableAsynchronousMetrics, "OSMemoryTotal", prefix + "os_memory_total_bytes", 1},
	{tableAsynchronousMetrics, "OSMemoryAvailable", prefix + "os_memory_available_bytes", 1},
	{tableAsynchronousMetrics, "CGroupMemoryTotal", prefix + "cgroup_memory_limit_bytes", 1},
	{tableAsynchronousMetrics, "CGroupMemoryUsed", prefix + "cgroup_memory_used_bytes", 1},
	{tableAsynchronousMetrics, "MemoryOverloadRatio", prefix + "memory_overload_ratio", 1},
	{tableAsynchronousMetrics, "CGroupMaxCPU", prefix + "cgroup_max_cpus", 1},
	{tableAsynchronousMetrics, "PSICPUSomeAvg10", prefix + "psi_cpu_some_avg10_ratio", percentToOne},
	{tableAsynchronousMetrics, "PSIMemorySomeAvg10", prefix + "psi_memory_some_avg10_ratio", percentToOne},
	{tableAsynchronousMetrics, "PSIMemoryFullAvg10", prefix + "psi_memory_full_avg10_ratio", percentToOne},
	{tableAsynchronousMetrics, "ConnectionDropProbability", prefix + "connection_drop_probability", 1},
	{tableAsynchronousMetrics, "AdmissionQueueOverload", prefix + "admission_queue_overload_ratio", 1},
	{tableAsynchronousMetrics, "Uptime", prefix + "uptime_seconds", 1},
	{tableAsynchronousMetrics, "StorageBlockCacheBytes", prefix + "storage_block_cache_bytes", 1},
	{tableAsynchronousMetrics, "StorageBlockCacheCapacity", prefix + "storage_block_cache_capacity_bytes", 1},
	{tableAsynchronousMetrics, "StorageBlockCacheHitRatio", prefix + "storage_block_cache_hit_ratio", 1},
	{tableAsynchronousMetrics, "StorageMemTableBytes", prefix + "storage_memtable_bytes", 1},
	{tableAsynchronousMetrics, "StorageMemTables", prefix + "storage_memtables", 1},
	{tableAsynchronousMetrics, "StorageCompactionDebtBytes", prefix + "storage_compaction_debt_bytes", 1},
	{tableAsynchronousMetrics, "StorageRunningCompactions", prefix + "storage_running_compactions", 1},
	{tableAsynchronousMetrics, "StorageL0Sublevels", prefix + "storage_l0_sublevels", 1},
	{tableAsynchronousMetrics, "StorageL0Files", prefix + "storage_l0_files", 1},
	{tableAsynchronousMetrics, "StorageDiskUsed", prefix + "storage_disk_used_bytes", 1},

	{tableEvents, "OSCPUVirtualTimeMicroseconds", prefix + "os_cpu_virtual_time_seconds_total", microToSecond},
	{tableEvents, "OSCPUWaitMicroseconds", prefix + "os_cpu_wait_seconds_total", microToSecond},
	{tableEvents, "KernelRunQueueWaitMicroseconds", prefix + "kernel_run_queue_wait_seconds_total", microToSecond},
	{tableEvents, "GoRunQueueWaitMicroseconds", prefix + "go_run_queue_wait_seconds_total", microToSecond},
	{tableEvents, "Query", prefix + "queries_total", 1},
	{tableEvents, "FailedQuery", prefix + "failed_queries_total", 1},
	{tableEvents, "AcceptedConnections", prefix + "accepted_connections_total", 1},
	{tableEvents, "OverloadRejectedQueries", prefix + "overload_rejected_queries_total", 1},
	{tableEvents, "OverloadDryRunRejectedQueries", prefix + "overload_dry_run_rejected_queries_total", 1},
	{tableEvents, "OverloadDroppedConnections", prefix + "overload_dropped_connections_total", 1},
	{tableEvents, "OverloadDryRunDroppedConnections", prefix + "overload_dry_run_dropped_connections_total", 1},
	{tableEvents, "MaxConnectionsRejectedConnections", prefix + "max_connections_rejected_connections_total", 1},
	{tableEvents, "AdminMaxConnectionsRejectedConnections", prefix + "admin_max_connections_rejected_connections_total", 1},
	{tableEvents, "ConnectTimeoutClosedConnections", prefix + "connect_timeout_closed_connections_total", 1},
	{tableEvents, "HandshakeEvictedConnections", prefix + "handshake_evicted_connections_total", 1},
	{tableEvents, "PacketTooLargeClosedConnections", prefix + "packet_too_large_closed_connections_total", 1},
	{tableEvents, "DelayedLogins", prefix + "delayed_logins_total", 1},
	{tableEvents, "AdmissionQueueWaitMicroseconds", prefix + "admission_queue_wait_seconds_total", microToSecond},
	{tableEvents, "AdmissionRejectedQueries", prefix + "admission_rejected_queries_total", 1},
	{tableEvents, "MemoryLimitExceededQueries", prefix + "memory_limit_exceeded_queries_total", 1},
	{tableEvents, "MemoryQuotaExceededQueries", prefix + "memory_quota_exceeded_queries_total", 1},
	{tableEvents, "LockWaitTimeoutQueries", prefix + "lock_wait_timeout_queries_total", 1},
	{tableEvents, "WriteLockGrants", prefix + "write_lock_grants_total", 1},
	{tableEvents, "WriteLockWaits", prefix + "write_lock_waits_total", 1},
	{tableEvents, "WriteLockWaitMicroseconds", prefix + "write_lock_wait_seconds_total", microToSecond},
	{tableEvents, "WriteLockHoldMicroseconds", prefix + "write_lock_hold_seconds_total", microToSecond},
	{tableEvents, "PointPlannedQueries", prefix + "point_planned_queries_total", 1},
	{tableEvents, "PointPlanShapes", prefix + "point_plan_shapes_total", 1},
	{tableEvents, "PointPlanDifferences", prefix + "point_plan_differences_total", 1},
	{tableEvents, "StorageCommits", prefix + "storage_commits_total", 1},
	{tableEvents, "StorageRollbacks", prefix + "storage_rollbacks_total", 1},
	{tableEvents, "StorageStatementRollbacks", prefix + "storage_statement_rollbacks_total", 1},
	{tableEvents, "StorageSavepointRollbacks", prefix + "storage_savepoint_rollbacks_total", 1},
	{tableEvents, "StorageBlockCacheHits", prefix + "storage_block_cache_hits_total", 1},
	{tableEvents, "StorageBlockCacheMisses", prefix + "storage_block_cache_misses_total", 1},
	{tableEvents, "StorageCompactions", prefix + "storage_compactions_total", 1},
	{tableEvents, "StorageWriteStalls", prefix + "storage_write_stalls_total", 1},
	{tableEvents, "StorageWriteStallMicroseconds", prefix + "storage_write_stall_seconds_total", microToSecond},
	{tableEvents, "StorageWALFsyncs", prefix + "storage_wal_fsyncs_total", 1},
	{tableEvents, "StorageWALFsyncMicroseconds", prefix + "storage_wal_fsync_seconds_total", microToSecond},

	{tableMetrics, "MySQLConnection", prefix + "mysql_connections", 1},
	{tableMetrics, "Query", prefix + "running_queries", 1},
	{tableMetrics, "OverloadWarnings", prefix + "warnings", 1},
	{tableMetrics, "AdmissionSlots", prefix + "admission_slots", 1},
	{tableMetrics, "AdmissionRunningStatements", prefix + "admission_running_statements", 1},
	{tableMetrics, "AdmissionStalledStatements", prefix + "admission_stalled_statements", 1},
	{tableMetrics, "AdmissionQueuedStatements", prefix + "admission_queued_statements", 1},
	{tableMetrics, "AdmissionQueueStanding", prefix + "admission_queue_standing", 1},
	{tableMetrics, "WriteLockHolder", prefix + "write_lock_holder_connection_id", 1},
	{tableMetrics, "WriteLockWaitingStatements", prefix + "write_lock_waiting_statements", 1},
	{tableMetrics, "MemoryTrackingSessions", prefix + "memory_tracking_sessions_bytes", 1},
	{tableMetrics, "MemoryTrackingSessionsLimit", prefix + "memory_tracking_sessions_limit_bytes", 1},
	{tableMetrics, "UserLocks", prefix + "user_locks", 1},
}

// Histogram is one distribution for /metrics: Buckets[i] observations were at most Bounds[i]
// (cumulative, in base units), Count in all with the total Sum.
type Histogram struct {
	SQL         string // the name in HistogramNames
	Description string
	Count       uint64
	Sum         float64
	Bounds      []float64
	Buckets     []uint64
}

// HistogramNames are the histograms /metrics exports. They have no table: SQL shows only their
// count and sum, as system.events rows (StorageWALFsyncs, StorageWALFsyncMicroseconds).
var HistogramNames = []Name{
	{"", "StorageWALFsync", prefix + "storage_wal_fsync_duration_seconds", 1},
}

// tableWorkloads is system.workloads, exported with a workload label.
const tableWorkloads = "workloads"

// WorkloadValue is one value of one workload: the column SQL of its row in system.workloads.
type WorkloadValue struct {
	Workload string
	SQL      string
	Value    float64
}

// WorkloadNames maps the columns of system.workloads that /metrics exports, one series per
// workload with the label workload="name"; counters are cumulative since the server started.
var WorkloadNames = []Name{
	{tableWorkloads, "running", prefix + "workload_running_statements", 1},
	{tableWorkloads, "stalled", prefix + "workload_stalled_statements", 1},
	{tableWorkloads, "queued", prefix + "workload_queued_statements", 1},
	{tableWorkloads, "admitted", prefix + "workload_admitted_statements_total", 1},
	{tableWorkloads, "refused", prefix + "workload_refused_statements_total", 1},
	{tableWorkloads, "overloaded", prefix + "workload_overload_rejected_statements_total", 1},
	{tableWorkloads, "queue_wait_us", prefix + "workload_queue_wait_seconds_total", microToSecond},
	{tableWorkloads, "cpu_time_us", prefix + "workload_cpu_seconds_total", microToSecond},
	{tableWorkloads, "weight", prefix + "workload_weight", 1},
	{tableWorkloads, "priority", prefix + "workload_priority", 1},
	{tableWorkloads, "max_memory_usage", prefix + "workload_max_memory_usage_bytes", 1},
	{tableWorkloads, "memory_usage", prefix + "workload_memory_usage_bytes", 1},
}

// workloadLabel is the label of the workload series.
const workloadLabel = "workload"

// warningMetric is 1 for every resource with a warning in system.warnings.
const warningMetric = prefix + "warning"

// Lookup returns the mapping of a row, and false when Names has none; the row is then exported
// under the name derived by rule (see derive), so a new row is never lost.
func Lookup(table, sql string) (Name, bool) {
	for _, n := range Names {
		if n.Table == table && n.SQL == sql {
			return n, true
		}
	}
	return derive(table, sql), false
}

// derive names a row that Names lacks: snake case of the SQL name, microseconds as seconds, and
// _total for counters.
func derive(table, sql string) Name {
	n := Name{Table: table, SQL: sql, Scale: 1}
	base := sql
	if b, ok := strings.CutSuffix(base, "Microseconds"); ok {
		base, n.Scale = b+"Seconds", microToSecond
	}
	n.Prometheus = prefix + snake(base)
	if table == tableEvents {
		n.Prometheus += "_total"
	}
	return n
}

// snake turns CamelCase into snake_case, keeping runs of capitals together: OSCPUWait → os_cpu_wait.
func snake(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// NamesMarkdown is docs/metrics.md: the mapping as a document for users.
func NamesMarkdown() string {
	var b strings.Builder
	b.WriteString("# Prometheus metric names\n\n")
	b.WriteString("`GET /metrics` on `http_listen` exports every row of `system.asynchronous_metrics` and\n")
	b.WriteString("`system.metrics` as a gauge and every row of `system.events` as a counter, under these names.\n")
	b.WriteString("Values are in base units: microseconds become seconds (scale 0.000001), percentages become\n")
	b.WriteString("ratios (scale 0.01). Rows that a machine lacks (cgroup limits, PSI) are absent, as in the tables.\n")
	b.WriteString("A row without an entry here (none today) would be exported under its snake-case name with the\n")
	b.WriteString("same unit rules. The help text of each metric is the row's `description`.\n\n")
	fmt.Fprintf(&b, "Besides these: `%s{resource=\"...\"} 1` for every resource with a row in\n", warningMetric)
	b.WriteString("`system.warnings` (`cpu`, `memory`, `simulation`, `config`, `overload`, ...), and the Go runtime\n")
	b.WriteString("(`go_*`) and process (`process_*`) metrics of the Prometheus client library.\n\n")
	b.WriteString("This file is generated from the table in `httpapi/names.go`\n")
	b.WriteString("(`go test ./httpapi -run TestNamesDocument -update`).\n\n")
	b.WriteString("| table | SQL name | Prometheus name | type | scale |\n|---|---|---|---|---|\n")
	for _, n := range Names {
		fmt.Fprintf(&b, "| `system.%s` | `%s` | `%s` | %s | %s |\n", n.Table, n.SQL, n.Prometheus, metricType(n.Table), scaleText(n.Scale))
	}
	b.WriteString("\n## Histograms\n\n")
	b.WriteString("Distributions exported as Prometheus histograms (`_bucket{le=\"...\"}`, `_sum`, `_count`); SQL\n")
	b.WriteString("shows their count and total as `system.events` rows.\n\n")
	b.WriteString("| name | Prometheus name | type | scale |\n|---|---|---|---|\n")
	for _, n := range HistogramNames {
		fmt.Fprintf(&b, "| `%s` | `%s` | histogram | %s |\n", n.SQL, n.Prometheus, scaleText(n.Scale))
	}
	b.WriteString("\n## Workloads\n\n")
	b.WriteString("Columns of `system.workloads`, one series per workload with the label `workload=\"name\"`\n")
	b.WriteString("(counters since the server started; a workload that a reload removed is exported until its\n")
	b.WriteString("statements have finished).\n\n")
	b.WriteString("| column | Prometheus name | type | scale |\n|---|---|---|---|\n")
	for _, n := range WorkloadNames {
		fmt.Fprintf(&b, "| `%s` | `%s{workload=\"...\"}` | %s | %s |\n", n.SQL, n.Prometheus, workloadType(n), scaleText(n.Scale))
	}
	return b.String()
}

func metricType(table string) string {
	if table == tableEvents {
		return "counter"
	}
	return "gauge"
}

// workloadType is the type of a workload series: counters end in _total.
func workloadType(n Name) string {
	if strings.HasSuffix(n.Prometheus, "_total") {
		return "counter"
	}
	return "gauge"
}

func scaleText(s float64) string {
	if s == 1 {
		return "1"
	}
	return strconv.FormatFloat(s, 'f', -1, 64)
}
