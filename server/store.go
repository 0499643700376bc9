package server

import (
	"time"

	"overloadsql/httpapi"
	"overloadsql/server/config"
	"overloadsql/server/data"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// The user databases live in one storage.Store on data_dir (storage/doc.go), opened by package
// server/data; `system` and information_schema stay virtual. The engine sees data.Provider: the
// store's databases plus `system`. Each connection's session is a storage session; the server
// marks every statement's start and end on it (enterStorage, leaveStorage), and the store's
// writers are ordered by the server's own write lock (data.StoreLock), so that lock waits show
// in the process list, obey innodb_lock_wait_timeout and KILL, and are counted.

// openStore opens the data directory of cfg (on fs; nil is the operating system's). A new one's
// database main gets collation, collation_server.
func (s *Server) openStore(cfg *config.Config, fs vfs.FS, collation sql.CollationID) error {
	lock := data.StoreLock{Lock: &s.writes, Waits: &s.lockWaits, TimedOut: func() { s.counters.lockWaitTimeouts.Add(1) }}
	st, err := data.Open(cfg, fs, collation, lock, s.logger)
	if err != nil {
		return err
	}
	s.store = st
	return nil
}

// storageOffHeapBytes is the memory of the store outside the Go heap (data.OffHeap).
func (s *Server) storageOffHeapBytes(now time.Time) uint64 { return s.offHeap.Bytes(now, s.store) }

// closeStore closes the store, once the statements have ended.
func (s *Server) closeStore() {
	if s.store == nil {
		return
	}
	if err := s.store.Close(); err != nil {
		s.logger.Error("storage: close", "err", err)
	}
}

// histograms are the distributions /metrics exports.
func (s *Server) histograms() []httpapi.Histogram {
	if s.store == nil {
		return nil
	}
	return data.Histograms(s.store.Observe())
}
