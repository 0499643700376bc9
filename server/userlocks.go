package server

import (
	"overloadsql/engine/functions"

	sqle "github.com/dolthub/go-mysql-server"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): user-level locks are
// package userlock's (MySQL 8's rules: names of 1 to 64 characters compared without case and
// forgotten when released, waits that KILL ends, deadlocks detected, held locks charged to the
// session's memory account).
// Test: TestUserLocks and TestLockNames/LockNamesAreBounded fail without it.
func (s *Server) useUserLocks(e *sqle.Engine) {
	functions.Override(e, s.userLocks.Functions(s.sessionAccounts.KeepLock))
}
