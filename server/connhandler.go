package server

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"overloadsql/internal/loglimit"
	"overloadsql/mysqlerr"
	"overloadsql/server/access"
	"overloadsql/server/statement"
	"overloadsql/server/wire"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// maxLoggedInput is the most of anything a client sent (a statement, a name) that goes into a
// log line.
const maxLoggedInput = 1024

// connectionHandler sits between the protocol layer and the engine's handler: it links each
// connection's packet reader to the connection's prepared statements (so the reader can refuse
// a reset of an unknown one), refuses more than maxPreparedStatements per connection, answers a
// COM_RESET_CONNECTION that comes before any session exists (the engine's handler would
// dereference the missing session), releases the write lock of the transaction a reset ends and
// gives the reset's OK the new session's status flags, and logs each failed statement once, as
// one line.
type connectionHandler struct {
	mysql.Handler
	s *Server
}

func (h connectionHandler) NewConnection(c *mysql.Conn) {
	// Called from the connection's goroutine, like every later use of PrepareData.
	wire.TrackPrepared(c.Conn, func(id uint32) bool { _, ok := c.PrepareData[id]; return ok })
	h.Handler.NewConnection(c)
}

func (h connectionHandler) ComResetConnection(c *mysql.Conn) error {
	if clientOf(c) == nil {
		return nil // no session yet: nothing to reset
	}
	err := h.Handler.ComResetConnection(c)
	// The engine closed the session, and its transaction with it: the write lock goes too.
	h.s.forgetConnection(c)
	// The OK of the reset carries the new session's status, as MySQL's does: no transaction,
	// autocommit as the new session's @@autocommit (the engine left the old session's flags).
	c.StatusFlags &^= mysql.ServerInTransaction | mysql.ServerStatusAutocommit
	if cl := clientOf(c); cl == nil || cl.autocommit() {
		c.StatusFlags |= mysql.ServerStatusAutocommit
	}
	return err
}

// ComInitDB refuses a non-admin a database it may not USE (access.Usable), with MySQL's
// 1044: the engine made mysql the current database of `mariadb -u app mysql` or of a
// COM_INIT_DB, where USE mysql failed, and SHOW TABLES listed it.
func (h connectionHandler) ComInitDB(c *mysql.Conn, schemaName string) error {
	if !h.s.auth.IsAdmin(c.User) && !access.Usable(schemaName) {
		host := c.RemoteAddr().String()
		if hp, _, err := net.SplitHostPort(host); err == nil {
			host = hp
		}
		return mysqlerr.New(mysql.ERDBAccessDenied,
			"Access denied for user '%s'@'%s' to database '%s'", c.User, host, schemaName)
	}
	return h.Handler.ComInitDB(c, schemaName)
}

func (h connectionHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	err := h.Handler.ComQuery(ctx, c, query, callback)
	h.failed(c, query, err)
	return err
}

func (h connectionHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, query, callback)
	h.failed(c, strings.TrimSuffix(query, rest), err)
	return rest, err
}

// maxPreparedStatements is how many prepared statements one connection may hold: MySQL's
// default max_prepared_stmt_count (which MySQL counts across all connections).
const maxPreparedStatements = 16382

// maxPlaceholders is the most '?' a prepared statement may hold. MySQL allows 65535; the
// protocol layer counts them in 16 bits and sizes the NULL bitmap of COM_STMT_EXECUTE as
// (count+7)/8 in 16 bits too: 65529 to 65535 placeholders made every execution panic (and drop
// the connection), and more wrapped the count, so that the statement's parameters could not be
// bound.
const maxPlaceholders = 65535 - 7

func (h connectionHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	// The protocol layer has already stored the new statement; a refused one must not stay.
	// Each placeholder takes a byte of the text: a shorter statement is not read.
	if len(query) > maxPlaceholders && statement.Placeholders(query) > maxPlaceholders {
		delete(c.PrepareData, prepare.StatementID)
		return nil, mysqlerr.New(mysqlerr.ERPsManyParam,
			"Prepared statement contains too many placeholders (at most %d)", maxPlaceholders)
	}
	if len(c.PrepareData) > maxPreparedStatements {
		delete(c.PrepareData, prepare.StatementID)
		return nil, mysqlerr.New(mysqlerr.ERMaxPreparedStmtCountReached,
			"Can't create more than max_prepared_stmt_count statements (current value: %d)", maxPreparedStatements)
	}
	fields, err := h.Handler.ComPrepare(ctx, c, query, prepare)
	if cl := clientOf(c); err == nil && cl != nil {
		err = h.s.sessionAccounts.KeepPrepared(cl.session, c.PrepareData, query)
	}
	if err != nil {
		delete(c.PrepareData, prepare.StatementID)
	}
	h.failed(c, query, err)
	return fields, err
}

func (h connectionHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	err := h.Handler.ComStmtExecute(ctx, c, prepare, callback)
	h.failed(c, prepare.PrepareStmt, err)
	return err
}

// failed logs a failed statement as one line: the error as the client gets it (MySQL's number
// and SQLSTATE; never a stack), the user, the
// connection id and at most maxLoggedInput bytes of the statement; at most
// statementLogBurst lines per connection per second, the rest counted in the next line.
func (h connectionHandler) failed(c *mysql.Conn, stmt string, err error) {
	if err == nil {
		return
	}
	cl := clientOf(c)
	if cl == nil {
		return
	}
	suppressed, ok := cl.errorLog.take(time.Now())
	if !ok {
		return
	}
	attrs := []any{"user", truncate(c.User, maxLoggedInput), "connection", c.ConnectionID,
		"err", truncate(firstLine(mysqlerr.ForClient(err).Error()), maxLoggedInput), "statement", truncate(stmt, maxLoggedInput)}
	if suppressed > 0 {
		attrs = append(attrs, "suppressed", suppressed)
	}
	h.s.logger.Info("statement failed", attrs...)
}

// statementLogBurst is how many failed statements per second one connection may log.
const statementLogBurst = 5

// logBudget allows statementLogBurst lines per second and counts the lines it refused.
type logBudget struct{ lines loglimit.Budget }

// take reports whether a line may be written now, and how many were refused since the last.
func (b *logBudget) take(now time.Time) (suppressed int, ok bool) {
	return b.lines.Take(now, statementLogBurst, false)
}

// truncate cuts s to at most n bytes, saying how long it was.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
