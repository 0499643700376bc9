package server

import (
	"errors"
	"math"
	"strconv"

	"overloadsql/mysqlerr"
	"overloadsql/overload"
	"overloadsql/server/config"
	"overloadsql/tables"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// Names of the session settings that decide statement rejection.
const (
	minThrowSetting = "min_os_cpu_wait_time_ratio_to_throw"
	maxThrowSetting = "max_os_cpu_wait_time_ratio_to_throw"
)

// Names of the admin-only simulation variables.
const (
	simOverload = "simulated_os_cpu_overload"
	simCPUBusy  = "simulated_cpu_busy_ratio"
	simMemory   = "simulated_memory_overload_ratio"
)

// variables are overloadsql's variables in the engine's system-variable registry: the two
// session settings (SET, SET SESSION, SET @@, SET GLOBAL for admins, SHOW VARIABLES), the
// simulation globals and the server settings as globals (SET GLOBAL / SET PERSIST).
// The engine keeps that registry process-wide, so the last server built in a process owns it.
type variables struct {
	s *Server
}

func newVariables(s *Server) *variables { return &variables{s: s} }

func (vs *variables) register() error {
	cfg := vs.s.cfg.Load()
	var vars []sql.SystemVariable
	for _, st := range config.SessionSettings() {
		def, _ := cfg.SessionDefault(st.Name)
		hi, accepts := math.MaxFloat64, "a number >= 0"
		if m := config.SessionSettingMax(st.Name); m > 0 {
			hi, accepts = m, "a number from 0 to "+number(m)
		}
		vars = append(vars, &sql.MysqlSystemVariable{
			Name:              st.Name,
			Scope:             sql.GetMysqlScope(sql.SystemVariableScope_Both),
			Dynamic:           true,
			SetVarHintApplies: true,
			Type:              checkedVariableType{SystemVariableType: types.NewSystemDoubleType(st.Name, 0, hi), name: st.Name, accepts: accepts},
			Default:           def,
			NotifyChanged:     vs.sessionSettingChanged,
		})
	}
	vars = append(vars, vs.workloadVariable())
	for _, name := range []string{simOverload, simCPUBusy, simMemory} {
		vars = append(vars, &sql.MysqlSystemVariable{
			Name:          name,
			Scope:         sql.GetMysqlScope(sql.SystemVariableScope_Global),
			Dynamic:       true,
			Type:          checkedVariableType{SystemVariableType: types.NewSystemDoubleType(name, -1, math.MaxFloat64), name: name, accepts: "a number >= 0, or -1 for off"},
			Default:       -1.0,
			NotifyChanged: vs.simulationChanged,
		})
	}
	for _, st := range config.ServerSettings() {
		if st.Engine {
			continue // the engine's own variable; its default is set at start
		}
		v, _ := cfg.ServerSettingValue(st.Name)
		typ, def, err := serverSettingVariable(st, v)
		if err != nil {
			return err
		}
		vars = append(vars, &sql.MysqlSystemVariable{
			Name:          st.Name,
			Scope:         sql.GetMysqlScope(sql.SystemVariableScope_Global),
			Dynamic:       true,
			Type:          typ,
			Default:       def,
			NotifyChanged: vs.serverSettingChanged,
		})
	}
	sql.SystemVariables.AddSystemVariables(vars)
	return nil
}

// serverSettingVariable gives a server setting's system-variable type and its value in that type.
func serverSettingVariable(st config.ServerSetting, text string) (sql.SystemVariableType, any, error) {
	switch st.Type {
	case "Float64":
		f, err := strconv.ParseFloat(text, 64)
		return checkedVariableType{SystemVariableType: types.NewSystemDoubleType(st.Name, 0, math.MaxFloat64), name: st.Name, accepts: "a number >= 0"}, f, err
	case "UInt64":
		u, err := strconv.ParseUint(text, 10, 64)
		return checkedVariableType{SystemVariableType: types.NewSystemUintType(st.Name, 0, math.MaxUint64), name: st.Name, accepts: "a whole number >= 0", unsigned: true}, u, err
	}
	return types.NewSystemStringType(st.Name), text, nil
}

// internal reports whether a change comes from the server itself (config load and reload)
// rather than from a client's SET.
func internal(ctx *sql.Context) bool {
	return ctx == nil || ctx.Session == nil || ctx.Session.Client().User == ""
}

// isAdmin reports whether the change comes from an admin's session.
func (vs *variables) isAdmin(ctx *sql.Context) bool {
	return vs.s.auth.IsAdmin(ctx.Session.Client().User)
}

func errNeedAdmin(what string) error {
	return mysqlerr.New(mysql.ERSpecifiedAccessDenied,
		"Access denied; you need the admin privilege for this operation (%s)", what)
}

func errConstraint(format string, args ...any) error {
	return mysqlerr.New(mysql.ERWrongValueForVar, format, args...)
}

func (vs *variables) sessionSettingChanged(ctx *sql.Context, scope sql.SystemVariableScope, v sql.SystemVarValue) error {
	if internal(ctx) {
		return nil
	}
	name := v.Var.GetName()
	if scope.IsGlobalOnly() {
		if !vs.isAdmin(ctx) {
			return errNeedAdmin("SET GLOBAL " + name)
		}
		vs.stage(ctx, v)
		return nil
	}
	if vs.isAdmin(ctx) {
		return nil
	}
	value, _ := v.Val.(float64)
	return checkConstraint(vs.s.cfg.Load().Constraints, name, value)
}

// checkConstraint applies [constraints.<name>] to a value a non-admin sets.
func checkConstraint(constraints map[string]config.Constraint, name string, value float64) error {
	c, ok := constraints[name]
	if !ok {
		return nil
	}
	if err := c.Check(name, value); err != nil {
		return errConstraint("%v; the value stays unchanged (admins are not bound by constraints)", err)
	}
	return nil
}

// simulationChanged stages an admin's SET GLOBAL of a simulation variable; the server's own
// assignments (putting the globals back after a failed statement) apply at once.
func (vs *variables) simulationChanged(ctx *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
	if !internal(ctx) {
		if !vs.isAdmin(ctx) {
			return errNeedAdmin("SET GLOBAL " + v.Var.GetName())
		}
		vs.stage(ctx, v)
		return nil
	}
	value, _ := v.Val.(float64)
	sim := vs.s.sampler.Simulation()
	simulate(&sim, v.Var.GetName(), value)
	vs.s.sampler.Simulate(sim)
	return nil
}

// simulate sets the value of sim that the simulation variable name stands for; it reports
// false, changing nothing, for any other name.
func simulate(sim *overload.Simulation, name string, value float64) bool {
	switch name {
	case simOverload:
		sim.Overload = value
	case simCPUBusy:
		sim.CPUBusy = value
	case simMemory:
		sim.Memory = value
	default:
		return false
	}
	return true
}

// serverSettingChanged stages SET GLOBAL / SET PERSIST of a server setting; commitSettings
// validates and applies the statement's changes together when it ends. (The engine's registry
// lock is held here: see the lock order in the package comment.)
func (vs *variables) serverSettingChanged(ctx *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
	if internal(ctx) {
		return nil
	}
	if !vs.isAdmin(ctx) {
		return errNeedAdmin("SET GLOBAL " + v.Var.GetName())
	}
	vs.stage(ctx, v)
	return nil
}

// applyDefaults makes the engine's globals show cfg after a reload. A session setting's global
// (the default of new sessions) changes only where the file changed it since prev, so a reload
// does not undo an admin's SET GLOBAL of something the file does not touch.
func (vs *variables) applyDefaults(prev, cfg *config.Config) {
	values := map[string]any{}
	for _, st := range config.SessionSettings() {
		def, _ := cfg.SessionDefault(st.Name)
		if was, _ := prev.SessionDefault(st.Name); was == def {
			continue
		}
		values[st.Name] = def
		if sv, _, ok := sql.SystemVariables.GetGlobal(st.Name); ok {
			sv.SetDefault(def)
		}
	}
	for _, st := range config.ServerSettings() {
		if st.Engine {
			continue // needs a restart
		}
		text, _ := cfg.ServerSettingValue(st.Name)
		if _, v, err := serverSettingVariable(st, text); err == nil {
			values[st.Name] = v
		}
	}
	if err := sql.SystemVariables.AssignValues(values); err != nil {
		vs.s.logger.Error("show reloaded settings as globals", "err", err)
	}
}

// throwSettings are a session's rejection thresholds; a connection without a session yet (its
// first statement) has the global defaults.
func throwSettings(sess sql.Session) (lo, hi float64) {
	return sessionFloat(sess, minThrowSetting), sessionFloat(sess, maxThrowSetting)
}

func sessionFloat(sess sql.Session, name string) float64 {
	if sess != nil {
		if v, err := sess.GetSessionVariable(nil, name); err == nil {
			f, _ := v.(float64)
			return f
		}
	}
	_, v, _ := sql.SystemVariables.GetGlobal(name)
	f, _ := v.(float64)
	return f
}

// rows are system.settings as the scanning session sees them.
func (vs *variables) rows(ctx *sql.Context) ([]tables.SessionSetting, error) {
	cfg := vs.s.cfg.Load()
	var rows []tables.SessionSetting
	for _, st := range config.SessionSettings() {
		value := sessionFloat(ctx.Session, st.Name)
		_, global, ok := sql.SystemVariables.GetGlobal(st.Name)
		if !ok {
			return nil, errors.New("session setting " + st.Name + " is not registered")
		}
		def, _ := global.(float64)
		row := tables.SessionSetting{
			Name: st.Name, Value: number(value), Default: number(def), Changed: value != def,
			Description: st.Description, Type: st.Type,
		}
		if c, ok := cfg.Constraints[st.Name]; ok {
			row.Readonly = c.Readonly
			row.Min, row.Max = optionalNumber(c.Min), optionalNumber(c.Max)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func optionalNumber(f *float64) *string {
	if f == nil {
		return nil
	}
	s := number(*f)
	return &s
}

// groupConcatMaxLen is the engine's variable that bounds GROUP_CONCAT's result.
const groupConcatMaxLen = "group_concat_max_len"

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): group_concat_max_len may not
// exceed max_allowed_packet (1231; the engine takes any value and builds GROUP_CONCAT up to it).
// Test: TestGroupConcatIsBounded fails without it.
//
// boundGroupConcat keeps group_concat_max_len at or below max_allowed_packet: the engine
// builds GROUP_CONCAT's result up to that length, so a larger value would let one statement
// build a value of any size. (MySQL accepts the larger value and still stops at
// max_allowed_packet; here the SET is refused with 1231, saying why.)
func (s *Server) boundGroupConcat() {
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:              groupConcatMaxLen,
		Scope:             sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic:           true,
		SetVarHintApplies: true,
		Type:              types.NewSystemUintType(groupConcatMaxLen, 4, config.MaxAllowedPacket),
		Default:           uint64(1024),
		NotifyChanged: func(_ *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
			limit := s.cfg.Load().MaxAllowedPacket
			if n, ok := v.Val.(uint64); ok && n > uint64(limit) {
				return errConstraint("Variable '%s' can't be set to the value of '%d': it may not exceed max_allowed_packet (%d)",
					groupConcatMaxLen, n, limit)
			}
			return nil
		},
	}})
}
