package server

import (
	"context"

	"overloadsql/server/memlimit"
	"overloadsql/server/wire"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// guardMemory runs the memory guard of package server/memlimit until ctx is done, on the
// server's registry of running statements and its sessions' accounts.
func (s *Server) guardMemory(ctx context.Context) {
	g := memlimit.Guard{
		Statements: s.statements,
		Accounts:   s.sessionAccounts,
		Heap:       s.memory,
		Config:     s.cfg.Load,
		Measured:   func() uint64 { return s.sampler.Snapshot().MemoryLimit },
		OffHeap:    s.storageOffHeapBytes,
		Note:       s.memoryLog.note,
		Stopped:    func(n int) { s.counters.memoryLimitExceeded.Add(uint64(n)) },
	}
	g.Run(ctx)
}

// beginSessionMemory opens the memory account of a new session on conn, in its user's workload.
func (s *Server) beginSessionMemory(conn *mysql.Conn, sess sql.Session) {
	s.sessionAccounts.Open(sess, conn.User, wire.IsAdminConn(conn.Conn), s.cfg.Load().UserWorkload(conn.User))
}

// endSession releases the memory account of a closed connection's session.
func (s *Server) endSession(c *mysql.Conn) {
	if cl := clientOf(c); cl != nil {
		s.sessionAccounts.End(cl.session)
	}
}
