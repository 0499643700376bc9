package storage

import (
	"context"
	"strings"
	"testing"

	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2/vfs"
	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// harness runs go-mysql-server's engine tests on a store in memory. Around each statement it
// does what the server does: BeginStatement (with the write lock for a statement that may
// write) and EndStatement, which undoes a failed statement.
type harness struct {
	t       *testing.T
	store   *Store
	session *Session
	setup   []setup.SetupScript
	skips   map[string]string
	// precise: the store's lookups are precise (Options.PreciseLookups)
	precise bool
}

var (
	_ enginetest.Harness             = (*harness)(nil)
	_ enginetest.IndexHarness        = (*harness)(nil)
	_ enginetest.ForeignKeyHarness   = (*harness)(nil)
	_ enginetest.KeylessTableHarness = (*harness)(nil)
	_ enginetest.TransactionHarness  = (*harness)(nil)
	_ enginetest.SkippingHarness     = (*harness)(nil)
)

func newHarness(t *testing.T) *harness {
	return &harness{t: t, skips: map[string]string{}}
}

func (h *harness) SupportsNativeIndexCreation() bool { return true }
func (h *harness) SupportsForeignKeys() bool         { return true }
func (h *harness) SupportsKeylessTables() bool       { return true }

func (h *harness) SkipQueryTest(query string) bool {
	_, ok := h.skips[strings.ToLower(query)]
	return ok
}

func (h *harness) Setup(scripts ...[]setup.SetupScript) {
	h.setup = nil
	for _, s := range scripts {
		h.setup = append(h.setup, s...)
	}
}

func (h *harness) openStore() *Store {
	if h.store != nil {
		_ = h.store.Close()
	}
	s, err := Open("data", Options{FS: vfs.NewMem(), Sync: kv.SyncNone, NoMainDatabase: true, CacheBytes: 8 << 20,
		MemTableBytes: 4 << 20, PreciseLookups: h.precise})
	if err != nil {
		h.t.Fatal(err)
	}
	h.store = s
	h.t.Cleanup(func() {
		if h.store == s {
			_ = s.Close()
			h.store = nil
		}
	})
	return s
}

func (h *harness) newSession() *Session {
	return h.store.NewSession(enginetest.NewBaseSession())
}

func (h *harness) NewContext() *sql.Context {
	if h.session == nil {
		h.session = h.newSession()
	}
	return sql.NewContext(context.Background(), sql.WithSession(h.session))
}

func (h *harness) NewSession() *sql.Context {
	h.session = h.newSession()
	return h.NewContext()
}

func (h *harness) NewEngine(t *testing.T) (enginetest.QueryEngine, error) {
	h.openStore()
	h.session = nil
	e, err := enginetest.NewEngine(t, h, h.store.Provider(), h.setup, memory.NewStatsProv())
	if err != nil {
		return nil, err
	}
	// the statements of a test run in a session of their own, as in the engine's harness
	if h.session != nil {
		h.session.Close()
	}
	h.session = nil
	return &statementEngine{Engine: e}, nil
}

// statementEngine is the engine with the statement boundaries the server sets.
type statementEngine struct {
	*sqle.Engine
}

func (e *statementEngine) EngineAnalyzer() *analyzer.Analyzer { return e.Engine.Analyzer }
func (e *statementEngine) EngineEventScheduler() sql.EventScheduler {
	return e.Engine.EngineEventScheduler()
}

func (e *statementEngine) Query(ctx *sql.Context, query string) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	return e.QueryWithBindings(ctx, query, nil, nil, nil)
}

func (e *statementEngine) QueryWithBindings(ctx *sql.Context, query string, parsed sqlparser.Statement, bindings map[string]sqlparser.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return e.Engine.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	}
	if err := s.BeginStatement(ctx, statementWrites(query)); err != nil {
		s.EndStatement(ctx, true, explicitTransaction(ctx))
		return nil, nil, nil, err
	}
	sch, iter, flags, err := e.Engine.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	if err != nil {
		s.EndStatement(ctx, true, explicitTransaction(ctx))
		return nil, nil, nil, err
	}
	return sch, &statementIter{RowIter: iter, s: s}, flags, nil
}

// statementIter ends the statement when the client has read it.
type statementIter struct {
	sql.RowIter
	s      *Session
	failed bool
}

func (i *statementIter) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := i.RowIter.Next(ctx)
	if err != nil && err.Error() != "EOF" {
		i.failed = true
	}
	return r, err
}

func (i *statementIter) Close(ctx *sql.Context) error {
	err := i.RowIter.Close(ctx)
	i.s.EndStatement(ctx, i.failed || err != nil, explicitTransaction(ctx))
	return err
}

// explicitTransaction says whether the session is in a transaction that outlives a statement.
func explicitTransaction(ctx *sql.Context) bool {
	if ctx.GetIgnoreAutoCommit() {
		return true
	}
	v, err := ctx.GetSessionVariable(ctx, "autocommit")
	if err != nil {
		return false
	}
	switch x := v.(type) {
	case int8:
		return x == 0
	case int64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

// statementWrites is the server's classification, roughly: anything but a plain read.
func statementWrites(q string) bool {
	q = strings.TrimSpace(q)
	for strings.HasPrefix(q, "(") || strings.HasPrefix(q, "/*") {
		if strings.HasPrefix(q, "(") {
			q = strings.TrimSpace(q[1:])
			continue
		}
		end := strings.Index(q, "*/")
		if end < 0 {
			break
		}
		q = strings.TrimSpace(q[end+2:])
	}
	fields := strings.FieldsFunc(q, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '(' || r == ';' })
	if len(fields) == 0 {
		return false
	}
	word := strings.ToLower(fields[0])
	switch word {
	case "select", "show", "describe", "desc", "explain", "with", "set", "use", "begin", "start", "commit",
		"rollback", "savepoint", "release", "table", "values", "do", "prepare", "deallocate", "execute", "kill":
		return strings.Contains(strings.ToLower(q), "for update") || strings.Contains(strings.ToLower(q), "into ")
	}
	return true
}
