package storage

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/queries"
)

// The engine's own test suite, run on the store. Each entry is one of go-mysql-server's
// enginetest functions. By default TestEngine runs the suites that pass whole (greenSuites),
// as a regression gate; STORAGE_ENGINETESTS=all runs every suite, STORAGE_ENGINETESTS=a,b the
// named ones.
var engineSuites = []struct {
	name string
	run  func(*testing.T, *harness)
}{
	{"Queries", func(t *testing.T, h *harness) { enginetest.TestQueries(t, h) }},
	{"JoinQueries", func(t *testing.T, h *harness) { enginetest.TestJoinQueries(t, h) }},
	{"InfoSchema", func(t *testing.T, h *harness) { enginetest.TestInfoSchema(t, h) }},
	{"ColumnAliases", func(t *testing.T, h *harness) { enginetest.TestColumnAliases(t, h) }},
	{"OrderByGroupBy", func(t *testing.T, h *harness) { enginetest.TestOrderByGroupBy(t, h) }},
	{"QueryErrors", func(t *testing.T, h *harness) { enginetest.TestQueryErrors(t, h) }},
	{"InsertInto", func(t *testing.T, h *harness) { enginetest.TestInsertInto(t, h) }},
	{"InsertIgnoreInto", func(t *testing.T, h *harness) { enginetest.TestInsertIgnoreInto(t, h) }},
	{"InsertDuplicateKeyKeyless", func(t *testing.T, h *harness) { enginetest.TestInsertDuplicateKeyKeyless(t, h) }},
	{"IgnoreIntoWithDuplicateUniqueKeyKeyless", func(t *testing.T, h *harness) { enginetest.TestIgnoreIntoWithDuplicateUniqueKeyKeyless(t, h) }},
	{"InsertIntoErrors", func(t *testing.T, h *harness) { enginetest.TestInsertIntoErrors(t, h) }},
	{"ReplaceInto", func(t *testing.T, h *harness) { enginetest.TestReplaceInto(t, h) }},
	{"ReplaceIntoErrors", func(t *testing.T, h *harness) { enginetest.TestReplaceIntoErrors(t, h) }},
	{"Update", func(t *testing.T, h *harness) { enginetest.TestUpdate(t, h) }},
	{"UpdateIgnore", func(t *testing.T, h *harness) { enginetest.TestUpdateIgnore(t, h) }},
	{"UpdateErrors", func(t *testing.T, h *harness) { enginetest.TestUpdateErrors(t, h) }},
	{"Delete", func(t *testing.T, h *harness) { enginetest.TestDelete(t, h) }},
	{"DeleteErrors", func(t *testing.T, h *harness) { enginetest.TestDeleteErrors(t, h) }},
	{"Truncate", func(t *testing.T, h *harness) { enginetest.TestTruncate(t, h) }},
	{"Scripts", func(t *testing.T, h *harness) { enginetest.TestScripts(t, h) }},
	{"GeneratedColumns", func(t *testing.T, h *harness) { enginetest.TestGeneratedColumns(t, h) }},
	{"ComplexIndexQueries", func(t *testing.T, h *harness) { enginetest.TestComplexIndexQueries(t, h) }},
	{"Triggers", func(t *testing.T, h *harness) { enginetest.TestTriggers(t, h) }},
	{"RollbackTriggers", func(t *testing.T, h *harness) { enginetest.TestRollbackTriggers(t, h) }},
	{"ShowTriggers", func(t *testing.T, h *harness) { enginetest.TestShowTriggers(t, h) }},
	{"TriggerErrors", func(t *testing.T, h *harness) { enginetest.TestTriggerErrors(t, h) }},
	{"StoredProcedures", func(t *testing.T, h *harness) { enginetest.TestStoredProcedures(t, h) }},
	{"Views", func(t *testing.T, h *harness) { enginetest.TestViews(t, h) }},
	{"CreateTable", func(t *testing.T, h *harness) { enginetest.TestCreateTable(t, h) }},
	{"DropTable", func(t *testing.T, h *harness) { enginetest.TestDropTable(t, h) }},
	{"RenameTable", func(t *testing.T, h *harness) { enginetest.TestRenameTable(t, h) }},
	{"RenameColumn", func(t *testing.T, h *harness) { enginetest.TestRenameColumn(t, h) }},
	{"AddColumn", func(t *testing.T, h *harness) { enginetest.TestAddColumn(t, h) }},
	{"ModifyColumn", func(t *testing.T, h *harness) { enginetest.TestModifyColumn(t, h) }},
	{"DropColumn", func(t *testing.T, h *harness) { enginetest.TestDropColumn(t, h) }},
	{"DropColumnKeylessTables", func(t *testing.T, h *harness) { enginetest.TestDropColumnKeylessTables(t, h) }},
	{"CreateDatabase", func(t *testing.T, h *harness) { enginetest.TestCreateDatabase(t, h) }},
	{"DropDatabase", func(t *testing.T, h *harness) { enginetest.TestDropDatabase(t, h) }},
	{"PkOrdinalsDDL", func(t *testing.T, h *harness) { enginetest.TestPkOrdinalsDDL(t, h) }},
	{"PkOrdinalsDML", func(t *testing.T, h *harness) { enginetest.TestPkOrdinalsDML(t, h) }},
	{"CreateForeignKeys", func(t *testing.T, h *harness) { enginetest.TestCreateForeignKeys(t, h) }},
	{"DropForeignKeys", func(t *testing.T, h *harness) { enginetest.TestDropForeignKeys(t, h) }},
	{"ForeignKeys", func(t *testing.T, h *harness) { enginetest.TestForeignKeys(t, h) }},
	{"CreateCheckConstraints", func(t *testing.T, h *harness) { enginetest.TestCreateCheckConstraints(t, h) }},
	{"ChecksOnInsert", func(t *testing.T, h *harness) { enginetest.TestChecksOnInsert(t, h) }},
	{"ChecksOnUpdate", func(t *testing.T, h *harness) { enginetest.TestChecksOnUpdate(t, h) }},
	{"DisallowedCheckConstraints", func(t *testing.T, h *harness) { enginetest.TestDisallowedCheckConstraints(t, h) }},
	{"DropCheckConstraints", func(t *testing.T, h *harness) { enginetest.TestDropCheckConstraints(t, h) }},
	{"TransactionScripts", transactionScripts},
	{"OnUpdateExprScripts", func(t *testing.T, h *harness) { enginetest.TestOnUpdateExprScripts(t, h) }},
	{"AddDropPks", func(t *testing.T, h *harness) { enginetest.TestAddDropPks(t, h) }},
	{"NullRanges", func(t *testing.T, h *harness) { enginetest.TestNullRanges(t, h) }},
	{"AlterTable", func(t *testing.T, h *harness) { enginetest.TestAlterTable(t, h) }},
	{"ColumnDefaults", func(t *testing.T, h *harness) { enginetest.TestColumnDefaults(t, h) }},
	{"Blobs", func(t *testing.T, h *harness) { enginetest.TestBlobs(t, h) }},
	{"Indexes", func(t *testing.T, h *harness) { enginetest.TestIndexes(t, h) }},
	{"IndexPrefix", func(t *testing.T, h *harness) { enginetest.TestIndexPrefix(t, h) }},
	{"IndexedExpressions", func(t *testing.T, h *harness) { enginetest.TestIndexedExpressions(t, h) }},
	{"ShowTableStatus", func(t *testing.T, h *harness) { enginetest.TestShowTableStatus(t, h) }},
	{"Use", func(t *testing.T, h *harness) { enginetest.TestUse(t, h) }},
	{"TupleQueries", func(t *testing.T, h *harness) { enginetest.TestTupleQueries(t, h) }},
	{"TimeQueries", func(t *testing.T, h *harness) { enginetest.TestTimeQueries(t, h) }},
	{"WindowFunctions", func(t *testing.T, h *harness) { enginetest.TestWindowFunctions(t, h) }},
	{"JsonScripts", func(t *testing.T, h *harness) { enginetest.TestJsonScripts(t, h, nil) }},
	{"PreparedInsert", func(t *testing.T, h *harness) { enginetest.TestPreparedInsert(t, h) }},
	{"QueriesPrepared", func(t *testing.T, h *harness) { enginetest.TestQueriesPrepared(t, h) }},
	{"ScriptsPrepared", func(t *testing.T, h *harness) { enginetest.TestScriptsPrepared(t, h) }},
	{"InsertQueriesPrepared", func(t *testing.T, h *harness) { enginetest.TestInsertQueriesPrepared(t, h) }},
	{"UpdateQueriesPrepared", func(t *testing.T, h *harness) { enginetest.TestUpdateQueriesPrepared(t, h) }},
	{"DeleteQueriesPrepared", func(t *testing.T, h *harness) { enginetest.TestDeleteQueriesPrepared(t, h) }},
	{"ReplaceQueriesPrepared", func(t *testing.T, h *harness) { enginetest.TestReplaceQueriesPrepared(t, h) }},
	{"Variables", func(t *testing.T, h *harness) { enginetest.TestVariables(t, h) }},
	{"CharsetCollationEngine", func(t *testing.T, h *harness) { enginetest.TestCharsetCollationEngine(t, h) }},
}

// greenSuites pass whole on the store.
var greenSuites = "Queries ColumnAliases OrderByGroupBy QueryErrors InsertIgnoreInto InsertDuplicateKeyKeyless " +
	"IgnoreIntoWithDuplicateUniqueKeyKeyless InsertIntoErrors ReplaceInto ReplaceIntoErrors Update UpdateIgnore " +
	"UpdateErrors Delete DeleteErrors Truncate Triggers RollbackTriggers ShowTriggers TriggerErrors DropTable " +
	"RenameTable RenameColumn ModifyColumn DropColumn DropColumnKeylessTables CreateDatabase PkOrdinalsDDL " +
	"PkOrdinalsDML DropForeignKeys ChecksOnInsert ChecksOnUpdate DisallowedCheckConstraints DropCheckConstraints " +
	"OnUpdateExprScripts AddDropPks NullRanges ColumnDefaults Blobs Indexes Use TupleQueries TimeQueries " +
	"WindowFunctions QueriesPrepared UpdateQueriesPrepared DeleteQueriesPrepared ReplaceQueriesPrepared Variables"

func TestEngine(t *testing.T) {
	only := map[string]bool{}
	v := os.Getenv("STORAGE_ENGINETESTS")
	if v == "" {
		for _, n := range strings.Fields(greenSuites) {
			only[n] = true
		}
	} else if v != "all" {
		for _, n := range strings.Split(v, ",") {
			only[n] = true
		}
	}
	for _, s := range engineSuites {
		if len(only) > 0 && !only[s.name] {
			continue
		}
		t.Run(s.name, func(t *testing.T) { s.run(t, newHarness(t)) })
		// with precise lookups, the engine's own answers must not change: it drops the
		// filters a lookup's ranges cover, so the rows a lookup returns are the answer
		// (Variables reads no table, and sets process-wide variables a second run would see)
		if s.name == "Variables" || raceEnabled {
			continue
		}
		t.Run("Precise"+s.name, func(t *testing.T) {
			h := newHarness(t)
			h.precise = true
			s.run(t, h)
		})
	}
}

// transactionScripts runs the engine's two-client transaction scripts, except those in which a
// client writes while another's transaction holds writes: under one writer at a time the
// second waits for the lock, and with both clients on one goroutine the wait can only time out.
func transactionScripts(t *testing.T, h *harness) {
	for _, script := range queries.TransactionTests {
		if interleavesWriters(script) {
			t.Run(script.Name, func(t *testing.T) {
				t.Skip("interleaved writers: one writer at a time (model A), both clients on one goroutine")
			})
			continue
		}
		enginetest.TestTransactionScript(t, newHarness(t), script)
	}
}

var clientComment = regexp.MustCompile(`^\s*/\*\s*client\s+(\w+)\s*\*/`)

func interleavesWriters(script queries.TransactionTest) bool {
	type client struct {
		autocommitOff, explicit, holds bool
	}
	clients := map[string]*client{}
	for _, a := range script.Assertions {
		name := "default"
		q := a.Query
		if m := clientComment.FindStringSubmatch(q); m != nil {
			name = m[1]
			q = q[len(m[0]):]
		}
		c := clients[name]
		if c == nil {
			c = &client{}
			clients[name] = c
		}
		lq := strings.ToLower(strings.TrimSpace(q))
		switch {
		case strings.HasPrefix(lq, "set autocommit"):
			off := strings.Contains(lq, "off") || strings.Contains(lq, "0")
			if !off {
				c.holds, c.explicit = false, false
			}
			c.autocommitOff = off
			continue
		case strings.HasPrefix(lq, "begin") || strings.HasPrefix(lq, "start transaction"):
			c.explicit, c.holds = true, false
			continue
		case strings.HasPrefix(lq, "commit") || strings.HasPrefix(lq, "rollback") && !strings.Contains(lq, "to"):
			c.explicit, c.holds = false, false
			continue
		}
		if !statementWrites(q) {
			continue
		}
		for other, oc := range clients {
			if other != name && oc.holds {
				return true
			}
		}
		if c.explicit || c.autocommitOff {
			c.holds = true
		}
	}
	return false
}
