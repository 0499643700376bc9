package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"overloadsql/mysqlerr"
	"overloadsql/server/statement"

	sqle "github.com/dolthub/go-mysql-server"
	gms "github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// protocolHandler is the outermost layer of the engine's connection handler, where what a
// client sees is made MySQL's: a new connection gets the status flags MySQL sends in its
// greeting and in the handshake's OK packet; every error gets MySQL's number and SQLSTATE
// (mysqlerr.ForClient) and is kept for SHOW WARNINGS / SHOW ERRORS (diagnostics.go).
type protocolHandler struct {
	mysql.Handler
	logger *slog.Logger
	life   connectionLife
}

// connectionLife is what the server does when a connection starts its first statement and when
// it closes.
type connectionLife interface {
	// ensureSession builds the connection's session if it has none yet: the engine builds it
	// only inside its handler, after the interceptors, which need it from the first statement
	// on (the write lock, the session's thresholds).
	ensureSession(ctx context.Context, c *mysql.Conn) error
	// forgetConnection is called after the engine dropped a closed connection's session.
	forgetConnection(c *mysql.Conn)
	// endSession is called when a connection closed, after forgetConnection: its session's
	// memory account is released.
	endSession(c *mysql.Conn)
}

// handlerOption installs protocolHandler around the engine's handler (and its interceptors).
func handlerOption(logger *slog.Logger, life connectionLife) gms.Option {
	return func(e *sqle.Engine, sm *gms.SessionManager, h mysql.Handler) (*sqle.Engine, *gms.SessionManager, mysql.Handler) {
		return e, sm, &protocolHandler{Handler: h, logger: logger, life: life}
	}
}

func (h *protocolHandler) ConnectionClosed(c *mysql.Conn) {
	h.Handler.ConnectionClosed(c)
	h.life.forgetConnection(c)
	h.life.endSession(c)
}

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): the greeting and the
// handshake's OK packet carry SERVER_STATUS_AUTOCOMMIT when @@GLOBAL.autocommit is on (the engine: 0).
// Test: TestHandshakeStatusFlags fails without it.
func (h *protocolHandler) NewConnection(c *mysql.Conn) {
	h.Handler.NewConnection(c)
	on, err := globalAutocommit()
	if err != nil {
		h.logger.Error("new connection: status flags assume autocommit", "err", err)
	}
	if on {
		c.StatusFlags |= mysql.ServerStatusAutocommit
	}
}

// globalAutocommit is @@GLOBAL.autocommit, the value every new session starts with; true (the
// default) when it cannot be read.
func globalAutocommit() (bool, error) {
	_, v, ok := sql.SystemVariables.GetGlobal(sql.AutoCommitSessionVar)
	if !ok {
		return true, fmt.Errorf("no global %s variable", sql.AutoCommitSessionVar)
	}
	on, err := sql.ConvertToBool(sql.NewEmptyContext(), v)
	if err != nil {
		return true, fmt.Errorf("read @@GLOBAL.%s: %w", sql.AutoCommitSessionVar, err)
	}
	return on, nil
}

func (h *protocolHandler) ComInitDB(c *mysql.Conn, schemaName string) error {
	return errorOrNil(mysqlerr.ForClient(h.Handler.ComInitDB(c, schemaName)))
}

func (h *protocolHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if err := h.life.ensureSession(ctx, c); err != nil {
		return errorOrNil(mysqlerr.ForClient(err))
	}
	stmt := newInFlight(ctx, query, false)
	if handled, err := h.answerDiagnostics(c, &stmt.summary, callback, false); handled {
		return err
	}
	return errorOrNil(h.run(c, &stmt.summary, func() error { return h.Handler.ComQuery(stmt, c, query, okInfoFixed(callback)) }))
}

// ComMultiQuery runs the first statement of query and returns the rest; none after a statement
// that failed. As in MySQL, a multi-statement query stops at its first error: its ERR packet
// ends the answer. The protocol layer runs whatever rest it is given, also after writing the
// error: given one, the statements after a failed one would run unseen (BEGIN; UPDATE that
// fails; DELETE ... would run the DELETE) and their answers would follow the ERR packet, which
// the client reads as the next statement's ("Packet sequence number wrong").
func (h *protocolHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	rest, err := h.comMultiQuery(ctx, c, query, callback)
	if err != nil {
		return "", err
	}
	return rest, nil
}

func (h *protocolHandler) comMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	if err := h.life.ensureSession(ctx, c); err != nil {
		return "", errorOrNil(mysqlerr.ForClient(err))
	}
	stmt := newInFlight(ctx, query, true)
	more := stmt.rest != ""
	if handled, err := h.answerDiagnostics(c, &stmt.summary, callback, more); handled {
		return stmt.rest, err
	}
	var remainder string
	err := h.run(c, &stmt.summary, func() error {
		var err error
		remainder, err = h.Handler.ComMultiQuery(stmt, c, query, okInfoFixed(callback))
		return err
	})
	return remainder, errorOrNil(err)
}

func (h *protocolHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	if err := h.life.ensureSession(ctx, c); err != nil {
		return nil, errorOrNil(mysqlerr.ForClient(err))
	}
	var fields []*querypb.Field
	summary := statement.Summarize(query)
	err := h.run(c, &summary, func() error {
		var err error
		fields, err = h.Handler.ComPrepare(ctx, c, query, prepare)
		return err
	})
	return fields, errorOrNil(err)
}

// ComStmtExecute summarizes the prepared statement's text at each execution: the summary
// remembers answers that depend on the session (the exemption), so it is not kept between them.
func (h *protocolHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	stmt := newInFlight(ctx, prepare.PrepareStmt, false)
	return errorOrNil(h.run(c, &stmt.summary, func() error { return h.Handler.ComStmtExecute(stmt, c, prepare, callback) }))
}

// run runs one statement and returns its error as the client sees it, after keeping the error
// in the diagnostics area. A statement that reads the diagnostics (SELECT @@warning_count) runs
// with the session's warnings locked, since the engine would clear them.
func (h *protocolHandler) run(c *mysql.Conn, stmt *statement.Summary, exec func() error) *mysql.SQLError {
	kind := stmt.Diagnostics()
	if cl := clientOf(c); cl != nil && kind == statement.ReadsDiagnostics {
		cl.session.LockWarnings()
		defer cl.session.UnlockWarnings()
	}
	err := mysqlerr.ForClient(exec())
	if kind == statement.ClearsDiagnostics {
		h.recordDiagnostics(c, err)
	}
	return err
}

// okInfoLength is the one info length the protocol library writes readably: it writes an OK
// packet's info text as '#' and the text to the end of the packet, while MySQL writes a
// length-encoded string and libmysqlclient / libmariadb read one, so they take '#' (35) as the
// length. A shorter info ("Statement prepared" of SQL PREPARE) made them fail with ERROR 2027
// (malformed packet); a longer one ("Rows matched: ...") they read cut to 35 bytes, and
// clients that read to the end of the packet (PyMySQL, Node's mysql) see it whole after the '#'.
const okInfoLength = '#'

// okInfoFixed pads a short OK-packet info text with spaces to okInfoLength.
func okInfoFixed(callback mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(r *sqltypes.Result, more bool) error {
		if r != nil && len(r.Fields) == 0 && r.Info != "" && len(r.Info) < okInfoLength {
			r.Info += strings.Repeat(" ", okInfoLength-len(r.Info))
		}
		return callback(r, more)
	}
}

// errorOrNil keeps a nil *mysql.SQLError from becoming a non-nil error.
func errorOrNil(err *mysql.SQLError) error {
	if err == nil {
		return nil
	}
	return err
}
