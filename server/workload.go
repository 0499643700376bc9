package server

import (
	"strings"

	"overloadsql/admission"
	"overloadsql/mysqlerr"
	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/statement"
	"overloadsql/tables"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// A session's workload (config [[workloads]], package admission) is, for each statement:
// its SET_VAR(workload = 'name') hint; else the session's `workload` variable (SET workload =
// 'name'); else its user's default workload (users[].workload, else "default"). A name that is
// not a workload fails with MySQL's 1231 (42000, ER_WRONG_VALUE_FOR_VAR), naming the known
// workloads. A session whose workload a reload removed goes back to its user's default. A
// non-admin may not choose when [constraints.workload] is readonly: SET fails with 1231 and a
// hint is ignored with warning 1231, as for the other settings.

// workloadVariable is the session variable `workload`: "" (its default) is the user's
// default workload.
func (vs *variables) workloadVariable() sql.SystemVariable {
	return &sql.MysqlSystemVariable{
		Name:          config.WorkloadSetting,
		Scope:         sql.GetMysqlScope(sql.SystemVariableScope_Session),
		Dynamic:       true,
		Type:          types.NewSystemStringType(config.WorkloadSetting),
		Default:       "",
		NotifyChanged: vs.workloadChanged,
	}
}

// workloadChanged checks a session's SET workload: a known workload (or "" for the user's
// default), and for a non-admin, no readonly constraint; then it moves the session's memory
// account into the workload, which fails with 241 when the workload cannot take what the
// session keeps.
func (vs *variables) workloadChanged(ctx *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
	if internal(ctx) {
		return nil
	}
	name, _ := v.Val.(string)
	cfg := vs.s.cfg.Load()
	if !vs.isAdmin(ctx) {
		if k, ok := cfg.Constraints[config.WorkloadSetting]; ok && k.Readonly {
			return errConstraint("setting workload is readonly (constraints.workload.readonly); the value stays unchanged (admins are not bound by constraints)")
		}
	}
	target := name
	if name == "" {
		target = cfg.UserWorkload(ctx.Session.Client().User)
	} else if _, ok := cfg.LookupWorkload(name); !ok {
		return errUnknownWorkload(cfg, name, "")
	}
	// The session's memory account follows it into the workload (server/memlimit/workloads.go).
	return vs.s.sessionAccounts.Join(ctx.Session, target, name)
}

// errUnknownWorkload is MySQL's error for a value a variable cannot take, naming the known
// workloads; how says where the name came from ("" for SET).
func errUnknownWorkload(cfg *config.Config, name, how string) error {
	return mysqlerr.New(mysql.ERWrongValueForVar,
		"Variable 'workload' can't be set to the value of '%s'%s: no such workload; the workloads are %s (config [[workloads]])",
		mysqlerr.Clipped(name, mysqlerr.QuotedValue), how, strings.Join(cfg.WorkloadNames(), ", "))
}

// statementWorkload is the workload a statement on c runs in (see the top of this file).
func (s *Server) statementWorkload(c *mysql.Conn, stmt *statement.Summary) (string, error) {
	cfg := s.cfg.Load()
	for _, h := range stmt.Hints() {
		if h.Name != config.WorkloadSetting {
			continue
		}
		if !s.auth.IsAdmin(c.User) && access.IgnoredHint(cfg.Constraints, h) != nil {
			break // the engine warns (access.PlanCheck's warnIgnoredHints)
		}
		if _, ok := cfg.LookupWorkload(h.Value); !ok || !s.admission.Known(h.Value) {
			return "", errUnknownWorkload(cfg, h.Value, " (SET_VAR hint)")
		}
		return h.Value, nil
	}
	return s.sessionWorkload(c.User, sessionOf(c)), nil
}

// sessionWorkload is the workload of a session's statements without a hint: its `workload`
// variable when that names a workload new statements may use, else the user's default. sess
// may be nil (a connection's first statement).
func (s *Server) sessionWorkload(user string, sess sql.Session) string {
	if sess != nil {
		if v, err := sess.GetSessionVariable(nil, config.WorkloadSetting); err == nil {
			if name, _ := v.(string); name != "" && s.admission.Known(name) {
				return name
			}
		}
	}
	return s.cfg.Load().UserWorkload(user)
}

func sessionOf(c *mysql.Conn) sql.Session {
	if cl := clientOf(c); cl != nil {
		return cl.session
	}
	return nil
}

// admissionWorkloads are the controller's workloads in cfg.
func admissionWorkloads(cfg *config.Config) []admission.Workload {
	var ws []admission.Workload
	for _, w := range cfg.AllWorkloads() {
		ws = append(ws, admission.Workload{Name: w.Name, Priority: w.Priority, Weight: w.Weight,
			MaxConcurrent: w.MaxConcurrentStatements, MaxQueued: w.MaxQueuedStatements})
	}
	return ws
}

// workloadRows are system.workloads: the controller's state with each workload's memory bound.
func (s *Server) workloadRows() []tables.Workload {
	cfg := s.cfg.Load()
	var rows []tables.Workload
	for _, w := range s.admission.Workloads() {
		c, _ := cfg.LookupWorkload(w.Name)
		rows = append(rows, tables.Workload{
			Name: w.Name, Priority: int64(w.Priority), Weight: w.Weight,
			MaxConcurrentStatements: int64(w.MaxConcurrent), MaxQueuedStatements: int64(w.MaxQueued),
			MaxMemoryUsage: c.MaxMemoryUsage, MemoryUsage: s.sessionAccounts.WorkloadUsage(w.Name), Removed: w.Removed,
			Running: int64(w.Running), Stalled: int64(w.Stalled), Queued: int64(w.Queued),
			Admitted: w.Admitted, Refused: w.Refused, Overloaded: w.Overloaded,
			QueueWaitMicros: uint64(w.QueueWait.Microseconds()), CPUTimeMicros: uint64(w.CPU.Microseconds()),
			RecentCPUMicros: uint64(w.RecentCPU.Microseconds()),
		})
	}
	return rows
}
