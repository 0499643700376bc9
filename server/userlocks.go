package server

import (
	"fmt"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): user-level locks are
// package userlock's (MySQL 8's rules: names forgotten when released, waits that KILL ends,
// deadlocks detected, held locks charged to the session's memory account).
// Test: TestUserLocks in integration/user_locks_test.go fails without it.
func (s *Server) useUserLocks(engine *sqle.Engine) {
	p, ok := engine.Analyzer.Catalog.DbProvider.(boundedProvider)
	if !ok {
		panic(fmt.Sprintf("server: the engine's provider is a %T, not the boundedProvider", engine.Analyzer.Catalog.DbProvider))
	}
	for _, f := range s.userLocks.Functions(s.chargeUserLock) {
		p.functions[f.FunctionName()] = f
	}
}

// chargeUserLock charges a lock the session of ctx holds to its memory account.
func (s *Server) chargeUserLock(ctx *sql.Context, key string, size int64) error {
	m := s.sessionAccounts.of(ctx)
	if m == nil {
		return nil
	}
	return m.keep("(user-level lock '"+key+"')", size, size > 0)
}
