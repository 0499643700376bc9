package server

import "github.com/dolthub/go-mysql-server/memory"

// The in-memory engine's provider registers the procedures of the engine's own test suite
// (memory.ExternalStoredProcedures) in each provider it builds. The server has none: a CALL of
// one fails with 1305 as in MySQL (checked on go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc,
// TestEngineTestProceduresDoNotExist).
func init() { memory.ExternalStoredProcedures = nil }
