package server

import (
	"math"

	"overloadsql/mysqlerr"
	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// The diagnostics area, as MySQL keeps it: after a failed statement SHOW WARNINGS and SHOW
// ERRORS show the error, and @@warning_count / @@error_count count the messages of the last
// statement that produced any. The engine keeps warnings per session but forgets errors, and
// has neither variable nor SHOW ERRORS / SHOW COUNT(*) ...; protocolHandler fills the gap.

// Names of the read-only session variables that count the last statement's messages.
const (
	warningCountVariable = "warning_count"
	errorCountVariable   = "error_count"
)

// registerDiagnosticVariables adds @@warning_count and @@error_count. The server updates them
// after each statement with a context that carries no statement text; a client's SET carries
// one and is refused as MySQL refuses it.
func registerDiagnosticVariables() {
	var vars []sql.SystemVariable
	for _, name := range []string{warningCountVariable, errorCountVariable} {
		vars = append(vars, &sql.MysqlSystemVariable{
			Name:    name,
			Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Session),
			Dynamic: true,
			Type:    types.NewSystemIntType(name, 0, math.MaxUint16, false),
			Default: int64(0),
			NotifyChanged: func(ctx *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
				if ctx != nil && ctx.Query() != "" {
					return mysqlerr.New(mysql.ERIncorrectGlobalLocalVar, "Variable '%s' is a read only variable", v.Var.GetName())
				}
				return nil
			},
		})
	}
	sql.SystemVariables.AddSystemVariables(vars)
}

// recordDiagnostics updates the connection's diagnostics after a statement: a failed one leaves
// its error as the only message (level Error), and both counters follow.
func (h *protocolHandler) recordDiagnostics(c *mysql.Conn, err *mysql.SQLError) {
	cl := clientOf(c)
	if cl == nil {
		return
	}
	sess := cl.session
	errors := 0
	if err != nil {
		sess.ClearWarnings()
		sess.Warn(&sql.Warning{Level: "Error", Code: err.Num, Message: err.Message})
		errors = 1
	}
	h.setCount(cl, warningCountVariable, int64(sess.WarningCount()))
	h.setCount(cl, errorCountVariable, int64(errors))
}

// setCount sets one of the counters of a connection's session, unless it already has that value.
func (h *protocolHandler) setCount(cl *client, name string, n int64) {
	if v, _ := cl.session.GetSessionVariable(cl.sessionContext(), name); v == n {
		return
	}
	if err := cl.session.SetSessionVariable(cl.sessionContext(), name, n); err != nil {
		h.logger.Error("update @@"+name, "err", err)
	}
}

// answerDiagnostics answers SHOW ERRORS, SHOW COUNT(*) WARNINGS and SHOW COUNT(*) ERRORS, which
// the engine does not know. handled is false for any other statement.
func (h *protocolHandler) answerDiagnostics(c *mysql.Conn, stmt *statement.Summary, callback func(*sqltypes.Result, bool) error, more bool) (handled bool, err error) {
	kind := stmt.Diagnostics()
	if kind != statement.ShowErrors && kind != statement.CountWarnings && kind != statement.CountErrors {
		return false, nil
	}
	cl := clientOf(c)
	var messages []*sql.Warning
	if cl != nil {
		messages = cl.session.Warnings()
	}
	switch kind {
	case statement.CountWarnings, statement.CountErrors:
		name, n := "@@session.warning_count", len(messages)
		if kind == statement.CountErrors {
			name, n = "@@session.error_count", countErrors(messages)
		}
		return true, callback(&sqltypes.Result{
			Fields: []*querypb.Field{{Name: name, Type: sqltypes.Int64}},
			Rows:   [][]sqltypes.Value{{sqltypes.NewInt64(int64(n))}},
		}, more)
	}
	result := &sqltypes.Result{Fields: []*querypb.Field{
		{Name: "Level", Type: sqltypes.VarChar, Charset: mysql.CharacterSetUtf8},
		{Name: "Code", Type: sqltypes.Uint32},
		{Name: "Message", Type: sqltypes.VarChar, Charset: mysql.CharacterSetUtf8},
	}}
	// The engine keeps the messages newest first.
	for i := len(messages) - 1; i >= 0; i-- {
		if m := messages[i]; m.Level == "Error" {
			result.Rows = append(result.Rows, []sqltypes.Value{
				sqltypes.NewVarChar(m.Level), sqltypes.NewUint32(uint32(m.Code)), sqltypes.NewVarChar(m.Message),
			})
		}
	}
	return true, callback(result, more)
}

func countErrors(messages []*sql.Warning) int {
	n := 0
	for _, m := range messages {
		if m.Level == "Error" {
			n++
		}
	}
	return n
}
