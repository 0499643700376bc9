package server

import (
	"fmt"
	"log/slog"

	sqle "github.com/dolthub/go-mysql-server"
	gms "github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// protocolHandler is the outermost layer of the engine's connection handler: it gives a new
// connection the status flags MySQL sends in its greeting and in the handshake's OK packet.
// The engine updates a connection's flags after each statement, but starts them at zero, so
// clients that trust the handshake (PyMySQL, mysqlclient) believed autocommit was off and
// their ROLLBACK did nothing.
type protocolHandler struct {
	mysql.Handler
	logger *slog.Logger
}

// handlerOption installs protocolHandler around the engine's handler (and its interceptors).
func handlerOption(logger *slog.Logger) gms.Option {
	return func(e *sqle.Engine, sm *gms.SessionManager, h mysql.Handler) (*sqle.Engine, *gms.SessionManager, mysql.Handler) {
		return e, sm, &protocolHandler{Handler: h, logger: logger}
	}
}

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
