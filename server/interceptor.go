package server

import (
	"context"
	"fmt"
	"runtime/debug"

	"overloadsql/mysqlerr"
	"overloadsql/overload"
	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/data"
	"overloadsql/server/memlimit"
	"overloadsql/server/statement"
	"overloadsql/server/wire"

	gms "github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// interceptor sees every statement before the engine parses it: it answers overloadsql's own
// statements (SYSTEM RELOAD CONFIG, SYSTEM BACKUP TO, TRUNCATE system.warnings), rejects work under CPU overload,
// and records SET PERSIST.
type interceptor struct {
	s *Server
}

var _ gms.Interceptor = (*interceptor)(nil)

func (i *interceptor) Priority() int { return 0 }

// resultCallback receives a statement's results; more says whether more follow.
type resultCallback = func(*sqltypes.Result, bool) error

func (i *interceptor) Query(ctx context.Context, chain gms.Chain, c *mysql.Conn, query string, callback resultCallback) error {
	stmt := &inFlightOf(ctx, query, false).summary
	if handled, err := i.own(c, stmt, callback); handled {
		return err
	}
	return i.serve(ctx, c, stmt, callback, func(ctx context.Context, cb resultCallback) error {
		return chain.ComQuery(ctx, c, query, cb)
	})
}

func (i *interceptor) MultiQuery(ctx context.Context, chain gms.Chain, c *mysql.Conn, query string, callback resultCallback) (string, error) {
	// The chain runs the first statement of query and returns the rest; the checks look at
	// that first statement only.
	f := inFlightOf(ctx, query, true)
	if handled, err := i.own(c, &f.summary, func(r *sqltypes.Result, _ bool) error { return callback(r, f.rest != "") }); handled {
		return f.rest, err
	}
	var remainder string
	err := i.serve(ctx, c, &f.summary, callback, func(ctx context.Context, cb resultCallback) error {
		var err error
		remainder, err = chain.ComMultiQuery(ctx, c, query, cb)
		return err
	})
	return remainder, err
}

// serve is the path every text statement takes: the overload check, then the statement runs
// counted as running, cancelled if its client leaves or (an ordinary one) if the heap goes over
// the memory limit, with SET PERSIST saved when it succeeds.
func (i *interceptor) serve(ctx context.Context, c *mysql.Conn, stmt *statement.Summary, callback resultCallback, run func(context.Context, resultCallback) error) (err error) {
	defer i.recovered(c, &err)
	if err := i.admit(c, stmt); err != nil {
		return err
	}
	defer forgetThresholdsIfNamed(c, stmt)
	turn, err := i.s.enterStorage(ctx, c, stmt)
	// Also when enterStorage failed after it took the write lock: leaveStorage gives it back.
	defer func() { i.s.leaveStorage(c, turn, err != nil) }()
	if err != nil {
		return err
	}
	if turn.autocommitOff {
		callback = i.s.committingAutocommit(c, turn.cl, callback)
	}
	ticket, err := i.takeSlot(ctx, c, stmt)
	if err != nil {
		return err
	}
	if ticket != nil {
		defer i.s.admission.Release(ticket)
		ctx = withTicket(ctx, ticket)
	}
	// The waits for the write lock and for a slot watch the socket themselves; the engine
	// watches it while the statement runs.
	if !wire.IsAdminConn(c.Conn) {
		var entry *memlimit.Running
		if ctx, entry, err = i.s.statements.Start(ctx, stmt, currentDatabase(c)); err != nil {
			i.s.counters.memoryLimitExceeded.Add(1)
			i.s.counters.failedQueries.Add(1)
			i.s.memoryLog.note(err.Error())
			return err
		}
		defer i.s.statements.Finish(entry)
		defer func() {
			if se := entry.MemoryError(ctx); se != nil && err != nil {
				err = se
			}
		}()
	}
	i.s.counters.running.Add(1)
	defer i.s.counters.running.Add(-1)
	if stmt.MayChangeSettings() {
		return i.settling(c, stmt, callback, func(cb resultCallback) error { return run(ctx, cb) })
	}
	err = run(ctx, callback)
	if err == nil {
		i.s.interruptKilled(stmt)
	}
	return i.settled(c, err, nil)
}

// settled ends a statement whose results were not held: a statement that set overloadsql's
// globals without looking like it (no leading SET) still has them applied or put back.
func (i *interceptor) settled(c *mysql.Conn, err error, persist map[string]string) error {
	if cerr := i.s.commitSettings(c.ConnectionID, c.User, err != nil, persist); cerr != nil && err == nil {
		return cerr
	}
	return err
}

// recovered turns a panic of the engine into the statement's error: the protocol layer would
// close the connection, and one statement's failure must not take its connection with it.
func (i *interceptor) recovered(c *mysql.Conn, err *error) {
	if p := recover(); p != nil {
		i.s.logger.Error("statement panicked; the connection stays open", "connection", c.ConnectionID, "user", c.User,
			"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		*err = mysqlerr.New(mysql.ERUnknownError, "internal error: %v", p)
	}
}

func (i *interceptor) Prepare(ctx context.Context, chain gms.Chain, c *mysql.Conn, query string, prepare *mysql.PrepareData) (fields []*querypb.Field, err error) {
	defer i.recovered(c, &err)
	defer i.s.leaveStorageAfterPrepare(c, transactionOpen(c))
	fields, err = chain.ComPrepare(ctx, c, query, prepare)
	return fields, err
}

// StmtExecute takes the text statements' path: a prepared statement that names the session's
// thresholds (SET ... = ?) also drops their cached values.
func (i *interceptor) StmtExecute(ctx context.Context, chain gms.Chain, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	return i.serve(ctx, c, &inFlightOf(ctx, prepare.PrepareStmt, false).summary, func(r *sqltypes.Result, _ bool) error { return callback(r) }, func(ctx context.Context, cb resultCallback) error {
		return chain.ComStmtExecute(ctx, c, prepare, func(r *sqltypes.Result) error { return cb(r, false) })
	})
}

// ParsedQuery is part of the interface, but the engine's chain never calls it (v0.20.0).
func (i *interceptor) ParsedQuery(gms.Chain, *mysql.Conn, string, ast.Statement, func(*sqltypes.Result, bool) error) error {
	return mysqlerr.New(mysql.ERNotSupportedYet, "pre-parsed queries are not supported")
}

// admit decides whether a statement runs under the current CPU overload. The order
// keeps the common cases cheap: not overloaded costs one atomic load; protection off, or a
// random draw that lets the statement through, reads the statement's hints only if its summary
// found some; only a statement about to be rejected is classified (exempt or not).
func (i *interceptor) admit(c *mysql.Conn, stmt *statement.Summary) error {
	r := i.s.sampler.Overload()
	if r <= 0 {
		return nil
	}
	var lo, hi float64
	if cl := clientOf(c); cl != nil {
		lo, hi = cl.thresholds()
	} else {
		lo, hi = throwSettings(nil)
	}
	if hints := stmt.Hints(); hints != nil {
		lo, hi = hinted(hints, lo, hi, i.hintConstraints(c))
	}
	p := overload.Probability(r, lo, hi)
	if p <= 0 || (p < 1 && i.s.random() >= p) {
		return nil
	}
	if stmt.Exempt(currentDatabase(c)).Exempt {
		return nil
	}
	msg := mysqlerr.OverloadedMessage(r, lo, hi, p)
	if i.s.cfg.Load().OverloadEnforcement == config.EnforcementDryRun {
		i.s.counters.overloadDryRunRejected.Add(1)
		i.s.rejectLog.note("dry run, served anyway: " + msg)
		return nil
	}
	i.s.counters.overloadRejected.Add(1)
	i.s.counters.failedQueries.Add(1)
	if workload, err := i.s.statementWorkload(c, stmt); err == nil {
		i.s.admission.NoteOverloaded(workload)
	}
	i.s.rejectLog.note(msg)
	return mysqlerr.New(mysqlerr.ERServerOverloaded, "%s", msg)
}

// hintConstraints are the constraints a connection's SET_VAR hints must keep: the config's for a
// non-admin, nil for an admin, who is not bound by them.
func (i *interceptor) hintConstraints(c *mysql.Conn) map[string]config.Constraint {
	if i.s.auth.IsAdmin(c.User) {
		return nil
	}
	return i.s.cfg.Load().Constraints
}

// hinted applies a statement's SET_VAR hints for the two thresholds. As MySQL ignores invalid
// hints, it ignores hints with values that are not non-negative numbers, and hints that break
// one of constraints (a non-admin's; nil for admins, who are not bound): the session's value
// applies, and the engine shows the warning (access.PlanCheck's warnIgnoredHints).
func hinted(hints []statement.Hint, lo, hi float64, constraints map[string]config.Constraint) (float64, float64) {
	for _, h := range hints {
		f, err := h.Number()
		if err != nil || access.IgnoredHint(constraints, h) != nil {
			continue
		}
		switch h.Name {
		case minThrowSetting:
			lo = f
		case maxThrowSetting:
			hi = f
		}
	}
	return lo, hi
}

// own answers the statements that overloadsql handles itself; handled is false for all others.
func (i *interceptor) own(c *mysql.Conn, stmt *statement.Summary, callback resultCallback) (handled bool, err error) {
	switch {
	case stmt.IsSystemReloadConfig():
		if !i.s.auth.IsAdmin(c.User) {
			return true, errNeedAdmin("SYSTEM RELOAD CONFIG")
		}
		if err := i.s.Reload("SYSTEM RELOAD CONFIG"); err != nil {
			return true, mysqlerr.New(mysql.ERUnknownError, "SYSTEM RELOAD CONFIG failed, the running settings stay: %v", err)
		}
		return true, callback(&sqltypes.Result{}, false)
	case isBackup(stmt):
		dir, _ := stmt.SystemBackup()
		if !i.s.auth.IsAdmin(c.User) {
			return true, errNeedAdmin("SYSTEM BACKUP")
		}
		r, err := data.Backup(i.s.store, i.s.cfg.Load().DataDirPath(), access.SecureFiles{Dir: i.s.cfg.Load().SecureFilePriv}, dir, i.s.logger)
		if err != nil {
			return true, err
		}
		return true, callback(r, false)
	case stmt.IsTruncateWarnings(currentDatabase(c)):
		if !i.s.auth.IsAdmin(c.User) {
			return true, errNeedAdmin("TRUNCATE system.warnings")
		}
		n := i.s.registry.Len()
		i.s.registry.Truncate()
		return true, callback(&sqltypes.Result{RowsAffected: uint64(n)}, false)
	}
	return false, nil
}

func isBackup(stmt *statement.Summary) bool {
	_, ok := stmt.SystemBackup()
	return ok
}

// forgetThresholdsIfNamed drops a connection's cached thresholds after a statement that names
// them (SET, SET @@, SET ... = DEFAULT in any case), so the next check reads the session again.
func forgetThresholdsIfNamed(c *mysql.Conn, stmt *statement.Summary) {
	if cl := clientOf(c); cl != nil && cl.cached.Load() && stmt.NamesThresholds() {
		cl.cached.Store(false)
	}
}

// settling runs a statement that may set overloadsql's globals with its results held back, then
// applies what it set (and, for SET PERSIST, saves it first) as one change: the statement
// succeeds with every change made, or fails with none.
func (i *interceptor) settling(c *mysql.Conn, stmt *statement.Summary, callback resultCallback, run func(resultCallback) error) error {
	type held struct {
		r    *sqltypes.Result
		more bool
	}
	var results []held
	err := run(func(r *sqltypes.Result, more bool) error {
		results = append(results, held{r, more})
		return nil
	})
	var persist map[string]string
	if err == nil && stmt.Persists() {
		persist, err = persistedValues(clientOf(c), stmt.Text())
	}
	if err := i.settled(c, err, persist); err != nil {
		return err
	}
	for _, h := range results {
		if err := callback(h.r, h.more); err != nil {
			return err
		}
	}
	return nil
}

// variableText writes a system variable's value as config text.
func variableText(v any) string {
	if f, ok := v.(float64); ok {
		return number(f)
	}
	return fmt.Sprint(v)
}
