package engine

import "github.com/dolthub/go-mysql-server/memory"

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): the engine's test
// procedures (memory.ExternalStoredProcedures, registered by every in-memory provider) do not exist.
// Test: TestEngineTestProcedures/EngineTestProceduresDoNotExist fails without it (CALL memory_inout_add runs).
func init() { memory.ExternalStoredProcedures = nil }
