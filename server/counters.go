package server

import (
	"sync/atomic"

	"overloadsql/admission"
	"overloadsql/overload"
	"overloadsql/server/wire"
	"overloadsql/tables"
)

// counters are the server's own cumulative events since start (system.events) and its gauges
// (system.metrics).
type counters struct {
	wire.Counters // the listeners', gates' and packet readers'

	queries, failedQueries atomic.Uint64
	overloadRejected       atomic.Uint64
	overloadDryRunRejected atomic.Uint64
	delayedLogins          atomic.Uint64
	admissionRejected      atomic.Uint64
	memoryLimitExceeded    atomic.Uint64
	lockWaitTimeouts       atomic.Uint64
	connections            atomic.Int64
	// running counts statements from the interceptor, not the engine's event hooks, which miss
	// statements that panic.
	running atomic.Int64
}

func (c *counters) events() []overload.Event {
	return []overload.Event{
		{Name: "Query", Value: c.queries.Load(), Description: "Statements the server started to run (not counting rejected ones)."},
		{Name: "FailedQuery", Value: c.failedQueries.Load(), Description: "Statements that ended with an error, rejections by overload protection included."},
		{Name: "AcceptedConnections", Value: c.AcceptedConnections.Load(), Description: "Connections accepted on the main listener (the admin listener is not counted)."},
		{Name: "OverloadRejectedQueries", Value: c.overloadRejected.Load(), Description: "Statements rejected with SERVER_OVERLOADED (745) because the CPU was overloaded."},
		{Name: "OverloadDryRunRejectedQueries", Value: c.overloadDryRunRejected.Load(), Description: "Statements that would have been rejected for CPU overload but were served because overload_enforcement is dry_run."},
		{Name: "OverloadDroppedConnections", Value: c.OverloadDropped.Load(), Description: "Connections refused with error 1040 at accept time because the CPU was overloaded."},
		{Name: "OverloadDryRunDroppedConnections", Value: c.OverloadDryRunDropped.Load(), Description: "Connections that would have been dropped for CPU overload but were served because overload_enforcement is dry_run."},
		{Name: "MaxConnectionsRejectedConnections", Value: c.MaxConnectionsRejected.Load(), Description: "Connections refused with error 1040 because max_connections connections were open."},
		{Name: "AdminMaxConnectionsRejectedConnections", Value: c.AdminRejected.Load(), Description: "Connections to admin_listen refused with error 1040 because admin_max_connections connections were open and all had logged in."},
		{Name: "ConnectTimeoutClosedConnections", Value: c.ConnectTimeouts.Load(), Description: "Connections closed because they had not logged in within connect_timeout."},
		{Name: "HandshakeEvictedConnections", Value: c.HandshakeEvictions.Load(), Description: "Unauthenticated connections closed to make room for a new one (max_unauthenticated_connections, or a full listener)."},
		{Name: "PacketTooLargeClosedConnections", Value: c.PacketTooLarge.Load(), Description: "Connections closed with error 1153 for sending more than max_allowed_packet (or, before login, more than 64 KiB)."},
		{Name: "DelayedLogins", Value: c.delayedLogins.Load(), Description: "Login answers delayed after repeated failed logins from the same address (connection_control_* settings)."},
		{Name: "AdmissionRejectedQueries", Value: c.admissionRejected.Load(), Description: "Statements that got no CPU slot (error 202, TOO_MANY_SIMULTANEOUS_QUERIES): the admission queue was full, their queue_max_wait_ms passed, or the queue was standing (queue_codel_interval_ms)."},
		{Name: "LockWaitTimeoutQueries", Value: c.lockWaitTimeouts.Load(), Description: "Statements that waited innodb_lock_wait_timeout seconds for the write lock and failed with error 1205 (Lock wait timeout exceeded)."},
		{Name: "MemoryLimitExceededQueries", Value: c.memoryLimitExceeded.Load(), Description: "Ordinary statements cancelled or refused with error 1041 (Out of memory) because the server's heap was over max_server_memory_usage (or 90% of the cgroup or host memory when it is 0)."},
	}
}

func (c *counters) gauges(activeWarnings int, slots admission.State, writeLockHolder uint32, writeLockWaiting int) []tables.Gauge {
	return []tables.Gauge{
		{Name: "MySQLConnection", Value: c.connections.Load(), Description: "Open MySQL-protocol connections, both listeners."},
		{Name: "Query", Value: c.running.Load(), Description: "Statements running now (not counting those queued for a CPU slot)."},
		{Name: "OverloadWarnings", Value: int64(activeWarnings), Description: "Warnings shown in system.warnings now."},
		{Name: "AdmissionSlots", Value: int64(slots.Slots), Description: "CPU slots now: how many ordinary statements may run at once (adapts to the Go scheduler's run queue, at most max_concurrent_statements)."},
		{Name: "AdmissionRunningStatements", Value: int64(slots.Running), Description: "Ordinary statements holding a CPU slot now (admin-listener sessions and exempt statements take none)."},
		{Name: "AdmissionStalledStatements", Value: int64(slots.Stalled), Description: "Ordinary statements running past admission_stall_limit_ms now: they no longer hold a CPU slot and share the CPU through the Go scheduler."},
		{Name: "AdmissionQueuedStatements", Value: int64(slots.Queued), Description: "Statements waiting for a CPU slot now (at most max_queued_statements)."},
		{Name: "AdmissionQueueStanding", Value: boolGauge(slots.Standing), Description: "1 while the admission queue is standing (queue_codel_interval_ms): one statement waits per CPU slot, the others get error 202 at once; else 0."},
		{Name: "WriteLockHolder", Value: int64(writeLockHolder), Description: "Connection id whose transaction holds the write lock now (0: none): one transaction writes stored tables at a time, from its first writing statement to its end."},
		{Name: "WriteLockWaitingStatements", Value: int64(writeLockWaiting), Description: "Statements waiting for the write lock now (each at most innodb_lock_wait_timeout seconds)."},
	}
}

// boolGauge is a gauge's value for a condition: 1 when it holds, else 0.
func boolGauge(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// pointPlanVerifyEvery: one statement in this many of each learned point-read shape is also
// planned by the engine and the plans compared (package engine/pointplan).
const pointPlanVerifyEvery = 1024

func (s *Server) pointPlanEvents() []overload.Event {
	planned, learned, differed := s.points.Stats()
	return []overload.Event{
		{Name: "PointPlannedQueries", Value: planned, Description: "SELECTs of one table by integer keys of an index that the server planned from a learned plan, without the engine's analysis."},
		{Name: "PointPlanShapes", Value: learned, Description: "Statement shapes whose plan the server learned from the engine's analysis for reuse."},
		{Name: "PointPlanDifferences", Value: differed, Description: "Learned plans that differed from the engine's plan when checked (one statement in 1024 of each shape); their shapes went back to the engine."},
	}
}
