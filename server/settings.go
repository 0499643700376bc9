package server

import (
	"strings"
	"sync"
	"sync/atomic"

	"overloadsql/mysqlerr"
	"overloadsql/server/config"
	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A statement that sets overloadsql's globals (SET GLOBAL / SET PERSIST of a server setting, of
// a session setting's default, of a simulation variable) changes them all or none. The engine
// sets each variable in turn and calls the variable's NotifyChanged hook under its registry
// lock; the hook only checks privileges and stages the value by connection (stage). When the
// statement ends, commitSettings takes the settings lock and either applies every staged value
// as one change (validated as a whole; for SET PERSIST saved first, so a failed save changes
// nothing) or, when the statement or the check failed, puts the engine's globals back to the
// running values.

// stagedChange is one global a running statement set: the variable's name and its value as the
// engine converted it.
type stagedChange struct {
	name  string
	value any
}

// staging holds the staged changes of the statements running now, by connection. Its lock is a
// leaf: it is taken under the engine's registry lock and takes nothing else.
type staging struct {
	pending atomic.Int64 // staged changes of all connections, so a statement that set nothing pays one load
	mu      sync.Mutex
	byConn  map[uint32][]stagedChange
}

func (st *staging) add(conn uint32, c stagedChange) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.byConn == nil {
		st.byConn = map[uint32][]stagedChange{}
	}
	st.byConn[conn] = append(st.byConn[conn], c)
	st.pending.Add(1)
}

func (st *staging) take(conn uint32) []stagedChange {
	if st.pending.Load() == 0 {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	changes := st.byConn[conn]
	delete(st.byConn, conn)
	st.pending.Add(-int64(len(changes)))
	return changes
}

// stage records a client's change of one of overloadsql's globals until its statement ends.
func (vs *variables) stage(ctx *sql.Context, v sql.SystemVarValue) {
	vs.s.staged.add(ctx.Session.ID(), stagedChange{name: v.Var.GetName(), value: v.Val})
}

// commitSettings ends a statement on connection conn that may have set overloadsql's globals.
// user is the connection's user; failed says whether the statement failed; persist are the values its SET PERSIST /
// PERSIST_ONLY parts save (nil for none). The staged changes and persist are applied together
// or not at all; on any failure the engine's globals show the running values again.
func (s *Server) commitSettings(conn uint32, user string, failed bool, persist map[string]string) error {
	changes := s.staged.take(conn)
	if len(changes) == 0 && len(persist) == 0 {
		return nil
	}
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	if failed {
		s.showGlobals(changes)
		return nil
	}
	if len(persist) > 0 && !s.auth.IsAdmin(user) {
		s.showGlobals(changes)
		return errNeedAdmin("SET PERSIST")
	}
	running := s.cfg.Load()
	next := running.Clone()
	values := map[string]string{}
	sim := s.sampler.Simulation()
	for _, c := range changes {
		f, _ := c.value.(float64)
		if !simulate(&sim, c.name, f) {
			values[c.name] = variableText(c.value)
		}
	}
	if err := next.SetValues(values); err != nil {
		s.showGlobals(changes)
		return errConstraint("%v; no value of the statement was changed", err)
	}
	if restart := config.RestartRequired(running, next); len(restart) > 0 {
		s.showGlobals(changes)
		return errConstraint("%s can only change with a restart: edit the config file and restart the server; no value of the statement was changed", strings.Join(restart, ", "))
	}
	if len(persist) > 0 {
		if err := s.persist.save(next, persist); err != nil {
			s.logger.Error("SET PERSIST failed; nothing was changed", "err", err)
			s.showGlobals(changes)
			return mysqlerr.New(mysql.ERUnknownError, "SET PERSIST: %v; no value was changed", err)
		}
	}
	tlsFiles := next.TLSCertFile != running.TLSCertFile || next.TLSKeyFile != running.TLSKeyFile
	if err := s.apply(next, tlsFiles); err != nil {
		s.showGlobals(changes)
		return errConstraint("%v; no value of the statement was changed", err)
	}
	s.sampler.Simulate(sim)
	// A reload between the statement's SET and now assigned the engine's globals again.
	s.showGlobals(changes)
	return nil
}

// showGlobals makes the engine's globals of the changed variables show the running values. The
// caller holds the settings lock.
func (s *Server) showGlobals(changes []stagedChange) {
	if len(changes) == 0 {
		return
	}
	cfg := s.cfg.Load()
	sim := s.sampler.Simulation()
	values := make(map[string]any, len(changes))
	for _, c := range changes {
		switch c.name {
		case simOverload:
			values[c.name] = sim.Overload
		case simCPUBusy:
			values[c.name] = sim.CPUBusy
		case simMemory:
			values[c.name] = sim.Memory
		default:
			if def, ok := cfg.SessionDefault(c.name); ok {
				values[c.name] = def
			} else if st, ok := serverSetting(c.name); ok {
				text, _ := cfg.ServerSettingValue(c.name)
				if _, v, err := serverSettingVariable(st, text); err == nil {
					values[c.name] = v
				}
			}
		}
	}
	if err := sql.SystemVariables.AssignValues(values); err != nil {
		s.logger.Error("show the running settings as globals", "err", err)
	}
}

func serverSetting(name string) (config.ServerSetting, bool) {
	for _, st := range config.ServerSettings() {
		if st.Name == name {
			return st, true
		}
	}
	return config.ServerSetting{}, false
}

// persistedValues returns what the SET PERSIST / SET PERSIST_ONLY parts of a statement save: the
// values the engine recorded in the connection's persisted globals. A statement that is not a
// SET saves nothing.
func persistedValues(cl *client, query string) (map[string]string, error) {
	if cl == nil {
		return nil, nil
	}
	stmt, err := ast.Parse(statement.RewriteSystem(query))
	if err != nil {
		return nil, mysqlerr.New(mysql.ERUnknownError,
			"SET PERSIST: the statement could not be read again to save it (%v); nothing was changed", err)
	}
	set, ok := stmt.(*ast.Set)
	if !ok {
		return nil, nil
	}
	values := map[string]string{}
	for _, e := range set.Exprs {
		if e.Scope != ast.SetScope_Persist && e.Scope != ast.SetScope_PersistOnly {
			continue
		}
		name := strings.ToLower(e.Name.Name.String())
		if !config.Persistable(name) {
			return nil, mysqlerr.New(mysql.ERNotSupportedYet,
				"SET PERSIST %s: only overloadsql's server and session settings can be persisted; %s is set for now but not saved, and no overloadsql setting of the statement was changed", name, name)
		}
		v, ok := cl.persisted[name]
		if !ok {
			return nil, mysqlerr.New(mysql.ERUnknownError,
				"SET PERSIST %s: the engine recorded no value; nothing was changed", name)
		}
		values[name] = variableText(v)
	}
	return values, nil
}
