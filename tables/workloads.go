package tables

import "github.com/dolthub/go-mysql-server/sql"

// Workload is one row of system.workloads.
type Workload struct {
	Name                                         string
	Priority                                     int64
	Weight                                       float64
	MaxConcurrentStatements, MaxQueuedStatements int64
	MaxMemoryUsage, MemoryUsage                  uint64
	Removed                                      bool
	Running, Stalled, Queued                     int64
	Admitted, Refused, Overloaded                uint64
	QueueWaitMicros, CPUTimeMicros               uint64
	RecentCPUMicros                              uint64
}

// WorkloadColumns are system.workloads' columns with their descriptions, in order (for the
// reference and for /metrics).
var WorkloadColumns = []struct{ Name, Description string }{
	{"name", "The workload's name ([[workloads]] name; default is built in)."},
	{"priority", "Lower runs first."},
	{"weight", "Share of the CPU among the workloads of the same priority."},
	{"max_concurrent_statements", "Its statements that may run at once, stalled ones included; 0 = no bound of its own."},
	{"max_queued_statements", "Its statements that may wait at once; 0 = no bound of its own."},
	{"max_memory_usage", "Its memory bound in bytes; 0 = no bound of its own."},
	{"memory_usage", "Bytes its sessions keep now between statements (user variables, session variables, prepared statements), against max_memory_usage."},
	{"removed", "1 while a workload that a reload removed still has statements."},
	{"running", "Its statements running now (holding a CPU slot or stalled)."},
	{"stalled", "Of those, the ones past admission_stall_limit_ms, holding no slot."},
	{"queued", "Its statements waiting for a CPU slot now."},
	{"admitted", "Statements that got a CPU slot (or started stalled), since start."},
	{"refused", "Statements that got no CPU slot (error 202), since start."},
	{"overloaded", "Statements rejected for CPU overload (error 745), since start."},
	{"queue_wait_us", "Time its statements waited for a CPU slot, waits in progress included, microseconds."},
	{"cpu_time_us", "CPU time its statements used (the process's CPU time while they ran, shared equally among the running statements), microseconds."},
	{"recent_cpu_us", "The CPU time the fair share compares: used over about the last second (halved every second), per unit of weight, microseconds."},
}

// Workloads is system.workloads: every workload with its bounds and what it does now.
func Workloads(workloads func() []Workload) *Table {
	types := []sql.Type{text, int64T, double, int64T, int64T, uint64T, uint64T, boolean, int64T, int64T, int64T,
		uint64T, uint64T, uint64T, uint64T, uint64T, uint64T}
	schema := make(sql.Schema, len(WorkloadColumns))
	for i, c := range WorkloadColumns {
		schema[i] = column(c.Name, types[i])
	}
	return NewTable("workloads", schema, func(*sql.Context) ([]sql.Row, error) {
		ws := workloads()
		rows := make([]sql.Row, 0, len(ws))
		for _, w := range ws {
			rows = append(rows, sql.Row{w.Name, w.Priority, w.Weight, w.MaxConcurrentStatements, w.MaxQueuedStatements,
				w.MaxMemoryUsage, w.MemoryUsage, flag(w.Removed), w.Running, w.Stalled, w.Queued, w.Admitted, w.Refused, w.Overloaded,
				w.QueueWaitMicros, w.CPUTimeMicros, w.RecentCPUMicros})
		}
		return rows, nil
	})
}
