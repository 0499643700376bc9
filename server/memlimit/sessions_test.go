package memlimit

import (
	"cmp"
	"context"
	"reflect"
	"strings"
	"testing"

	"overloadsql/engine"
	"overloadsql/mysqlerr"
	"overloadsql/server/config"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// accountedBuilder builds plans as the server's plan builder does for the memory quotas: a plan
// that may set user variables is built through Accounts.Build.
type accountedBuilder struct {
	next     sql.NodeExecBuilder
	accounts *Accounts
}

// statementRunner runs a statement of a stored procedure as a statement of its own, whose plan
// accountedBuilder looks at, as the server's procedureRunner does.
type statementRunner struct{ next sql.StatementRunner }

func (r statementRunner) QueryWithBindings(ctx *sql.Context, query string, parsed sqlparser.Statement, bindings map[string]sqlparser.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	return r.next.QueryWithBindings(ctx.WithContext(context.WithValue(ctx.Context, accountedPlan{}, nil)), query, parsed, bindings, qFlags)
}

// accountedPlan marks the context a statement's plan is built with once it was looked at: the
// engine asks the priority builder again for every node below.
type accountedPlan struct{}

func (b accountedBuilder) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	if ctx.Value(accountedPlan{}) != nil {
		return nil, nil
	}
	ctx = ctx.WithContext(context.WithValue(ctx.Context, accountedPlan{}, true))
	variables := false
	engine.InspectPlan(ctx, n, func(n sql.Node) bool {
		variables = variables || KeepsMemory(n)
		return true
	}, func(sql.Expression) bool { return true })
	if variables {
		return b.accounts.Build(ctx, n, func(n sql.Node) (sql.RowIter, error) { return b.next.Build(ctx, n, r) })
	}
	return b.next.Build(ctx, n, r)
}

// quotaFixture is an engine whose sessions have memory accounts: each session may hold
// sessionLimit bytes, all of them serverLimit.
type quotaFixture struct {
	t        testing.TB
	engine   *sqle.Engine
	provider *memory.DbProvider
	accounts *Accounts
}

func newQuotaFixture(t testing.TB, sessionLimit, serverLimit int64) *quotaFixture {
	db := memory.NewDatabase("main")
	provider := memory.NewDBProvider(db)
	engine := sqle.NewDefault(provider)
	a := NewAccounts()
	a.allowance = 0 // the limits here are bytes, below the allowance
	a.sessionLimit.Store(sessionLimit)
	a.serverLimit.Store(serverLimit)
	engine.Analyzer.ExecBuilder.PriorityBuilder = accountedBuilder{next: engine.Analyzer.ExecBuilder, accounts: a}
	runner := statementRunner{next: engine}
	engine.Analyzer.Runner = runner
	engine.Analyzer.ExecBuilder.Runner = runner
	a.Uncache = func(sess sql.Session, key string) { sess.UnprepareQuery(key) }
	return &quotaFixture{t: t, engine: engine, provider: provider, accounts: a}
}

// session opens a session with its account.
func (f *quotaFixture) session() *sql.Context {
	sess := memory.NewSession(sql.NewBaseSession(), f.provider)
	f.accounts.begin(sess, "", false)
	ctx := sql.NewContext(f.t.Context(), sql.WithSession(sess))
	ctx.SetCurrentDatabase("main")
	return ctx
}

// run runs q in ctx's session, reading all its rows.
func (f *quotaFixture) run(ctx *sql.Context, q string) ([]sql.Row, error) {
	_, iter, _, err := f.engine.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	return sql.RowIterToRows(ctx, iter)
}

// quotaRefusal is the account an error of MEMORY_LIMIT_EXCEEDED names ("for session", "total"),
// "" for nil and "not 241: ..." for another error.
func quotaRefusal(err error) string {
	if err == nil {
		return ""
	}
	// What the client gets: the engine's handler unwraps the errors of a row (a trigger's).
	se := sql.CastSQLError(err)
	if se.Num != mysqlerr.ERMemoryLimitExceeded || se.State != mysql.SSUnknownSQLState {
		return "not 241: " + err.Error()
	}
	for _, which := range []string{"for session", "total", "for workload batch", "for workload web"} {
		if strings.HasPrefix(se.Message, "Memory limit ("+which+") exceeded") {
			return which
		}
	}
	return "unnamed: " + se.Message
}

// A session's quota refuses that session's assignment while another session goes on; freeing a
// variable makes room again; the server's account refuses whichever session would fill it.
func TestMemoryQuotaRefusesOneSessionWhileAnotherGoesOn(t *testing.T) {
	f := newQuotaFixture(t, 1000, 2700)
	a, b, c := f.session(), f.session(), f.session()
	for i, step := range []struct {
		ctx     *sql.Context
		query   string
		refused string
	}{
		{a, "SET @a = REPEAT('x', 600)", ""},
		{a, "SET @b = REPEAT('x', 600)", "for session"},
		{b, "SET @a = REPEAT('x', 600)", ""}, // b goes on
		{b, "SELECT 1", ""},
		{a, "SET @a = REPEAT('y', 600)", ""}, // an overwrite of the same size fits
		{a, "SET @a = NULL", ""},
		{a, "SET @b = REPEAT('x', 800)", ""}, // room again
		{c, "SET @c = REPEAT('x', 900)", ""}, // 600 + 800 + 900 and overheads
		{b, "SET @b = REPEAT('x', 200)", "total"},
		{c, "SET @c = 'small'", ""},
		{b, "SET @b = REPEAT('x', 200)", ""},
	} {
		_, err := f.run(step.ctx, step.query)
		if got := quotaRefusal(err); got != step.refused {
			t.Fatalf("step %d %s: refused by %q, want %q", i, step.query, got, step.refused)
		}
	}
	if got := f.accounts.refused.Load(); got != 2 {
		t.Errorf("MemoryQuotaExceededQueries: %d, want 2", got)
	}
}

// Every way of setting a user variable counts: an assignment over the quota fails with 241 and
// leaves every variable the statement named as it was, and its bytes are released.
func TestMemoryQuotaCountsEveryAssignment(t *testing.T) {
	for _, c := range []struct {
		name    string
		setup   []string
		query   string
		refused string
		after   string // a query whose one row shows the variables afterwards
		want    []any
		quota   int64 // the session's; 0 = 1000
	}{
		{name: "SET of several, the last one too big",
			setup: []string{"SET @x = 'before'"},
			query: "SET @x = 'changed', @y = REPEAT('y', 2000)", refused: "for session",
			after: "SELECT @x, @y", want: []any{"before", nil}},
		{name: "SET :=",
			query: "SET @x := REPEAT('x', 2000)", refused: "for session",
			after: "SELECT @x", want: []any{nil}},
		{name: "SELECT ... INTO",
			setup: []string{"SET @x = 'before'"},
			query: "SELECT REPEAT('a', 600), REPEAT('b', 600) INTO @x, @y", refused: "for session",
			after: "SELECT @x, @y", want: []any{"before", nil}},
		{name: "SELECT ... INTO that fits",
			query: "SELECT REPEAT('a', 300), 'b' INTO @x, @y",
			after: "SELECT LENGTH(@x), @y", want: []any{int32(300), "b"}},
		{name: "CALL OUT parameter",
			setup: []string{"CREATE PROCEDURE big(OUT o LONGTEXT) BEGIN SET o = REPEAT('o', 2000); END"},
			query: "CALL big(@o)", refused: "for session",
			after: "SELECT @o", want: []any{nil}},
		{name: "SET in a procedure's body",
			setup: []string{"CREATE PROCEDURE body() BEGIN SET @p = REPEAT('p', 600); SET @q = REPEAT('q', 600); END"},
			query: "CALL body()", refused: "for session",
			// The statements of the procedure before the refused one stay done, as in MySQL.
			after: "SELECT LENGTH(@p), @q", want: []any{int32(600), nil}},
		{name: "prepared SET",
			setup: []string{"PREPARE s FROM 'SET @x = REPEAT(?, 3000)'", "SET @ch = 'c'"},
			query: "EXECUTE s USING @ch", refused: "for session", quota: 3000, // PREPARE costs 1072
			after: "SELECT @x", want: []any{nil}},
		{name: "SET in a trigger",
			setup: []string{"CREATE TABLE t (a INT PRIMARY KEY)", "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @tv = REPEAT('t', 2000)"},
			query: "INSERT INTO t VALUES (1)", refused: "for session",
			after: "SELECT @tv, (SELECT COUNT(*) FROM t)", want: []any{nil, int64(0)}},
		{name: "a session's system variable",
			setup: []string{"SET SESSION session_track_system_variables = REPEAT('s', 500)"},
			query: "SET SESSION session_track_system_variables = REPEAT('s', 2000)", refused: "for session",
			after: "SELECT LENGTH(@@session.session_track_system_variables)", want: []any{int32(500)}},
		{name: "a system variable's refused value is not charged",
			setup: []string{"SET SESSION sql_mode = REPEAT('z', 900)"}, // fails: no such mode
			query: "SET @x = REPEAT('x', 700)",                         // with the 900 charged, over 1000
			after: "SELECT LENGTH(@x)", want: []any{int32(700)}},
		{name: "overwrite releases",
			setup: []string{"SET @x = REPEAT('x', 900)", "SET @x = 'short'"},
			query: "SET @y = REPEAT('y', 800)",
			after: "SELECT @x, LENGTH(@y)", want: []any{"short", int32(800)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newQuotaFixture(t, cmp.Or(c.quota, 1000), 0)
			ctx := f.session()
			for _, q := range c.setup {
				if _, err := f.run(ctx, q); err != nil && !strings.Contains(q, "sql_mode") {
					t.Fatalf("%s: %v", q, err)
				}
			}
			_, err := f.run(ctx, c.query)
			if got := quotaRefusal(err); got != c.refused {
				t.Fatalf("%s: refused by %q, want %q", c.query, got, c.refused)
			}
			rows, err := f.run(ctx, c.after)
			if err != nil || len(rows) != 1 {
				t.Fatalf("%s: %v %v", c.after, rows, err)
			}
			if got := []any(rows[0]); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: %#v, want %#v", c.after, got, c.want)
			}
			// What the session's account holds is what its variables cost.
			m := f.accounts.of(ctx)
			var want int64
			for name, n := range m.charged {
				if strings.HasPrefix(name, " prepare ") {
					want += n
					continue
				}
				typ, v := variable(ctx, name)
				want += variableSize(name, typ, v)
			}
			if got := m.account.Used(); got != want || f.accounts.server.Used() != want {
				t.Errorf("account %d, server %d; the variables cost %d", got, f.accounts.server.Used(), want)
			}
		})
	}
}

// A session that ends releases its account.
func TestMemoryQuotaReleasedWhenTheSessionEnds(t *testing.T) {
	f := newQuotaFixture(t, 1000, 1500)
	a, b := f.session(), f.session()
	if _, err := f.run(a, "SET @a = REPEAT('a', 900)"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run(b, "SET @b = REPEAT('b', 900)"); quotaRefusal(err) != "total" {
		t.Fatalf("second session: %v, want the total refused", err)
	}
	f.accounts.End(a.Session)
	// b's refused @b was put back as it was before: a variable that holds NULL.
	if used, want := f.accounts.server.Used(), f.accounts.of(b).account.Used(); used != want {
		t.Fatalf("server account %d after the session ended, want b's %d", used, want)
	}
	if _, err := f.run(b, "SET @b = REPEAT('b', 900)"); err != nil {
		t.Errorf("after the other session ended: %v", err)
	}
}

// The limits follow the memory limit and the setting; the server's share leaves out what the
// rest of the live heap holds.
func TestSessionAccountLimits(t *testing.T) {
	for _, c := range []struct {
		limit, live, setting    uint64
		accounted               int64
		wantSession, wantServer int64
	}{
		{limit: 1000, live: 100, setting: 0, wantSession: 250, wantServer: 500},
		{limit: 1000, live: 100, setting: 400, wantSession: 400, wantServer: 500},
		{limit: 1000, live: 500, accounted: 300, wantSession: 250, wantServer: 400},
		{limit: 1000, live: 100, accounted: 300, wantSession: 250, wantServer: 600}, // variables set since the last collection
		{limit: 1000, live: 2000, wantSession: 250, wantServer: 1},                  // full: 0 would be no limit
		{limit: 0, live: 100, setting: 0, wantSession: 0, wantServer: 0},
		{limit: 0, live: 100, setting: 300, wantSession: 300, wantServer: 0},
	} {
		a := NewAccounts()
		a.allowance = 0 // the limits here are bytes, below the allowance
		a.server.Charge(c.accounted)
		a.Adjust(c.limit, c.live, c.setting)
		if got, gotServer := a.sessionLimit.Load(), a.serverLimit.Load(); got != c.wantSession || gotServer != c.wantServer {
			t.Errorf("limit %d, live %d, setting %d, accounted %d: session %d, server %d; want %d, %d",
				c.limit, c.live, c.setting, c.accounted, got, gotServer, c.wantSession, c.wantServer)
		}
	}
}

func TestUserVariablesInText(t *testing.T) {
	text := "BEGIN SELECT a INTO @One; SET @@session.x = 1, @`two words` = 2; FETCH c INTO @'q', @\"d\"; SELECT @@y, @v.w$; END"
	want := []string{"One", "two words", "q", "d", "v.w$"}
	if got := userVariablesInText(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestValueSize(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int64
	}{
		{nil, 0},
		{"abc", 19},
		{[]byte("abcd"), 28},
		{int64(7), 16},
		{types.JSONDocument{Val: []any{"ab", 1.0}}, 24 + 16 + 18 + 16 + 16},
		{types.JSONDocument{Val: map[string]any{"k": "v"}}, 48 + 1 + 17},
		{types.LineString{Points: make([]types.Point, 10)}, 24 + 240},
		{types.GeomColl{Geoms: []types.GeometryValue{types.Point{}, types.MultiPoint{Points: make([]types.Point, 2)}}}, 24 + 24 + 48},
	} {
		if got := valueSize(c.v); got != c.want {
			t.Errorf("valueSize(%#v) = %d, want %d", c.v, got, c.want)
		}
	}
}

// Prepared statements count: PREPARE charges its text, DEALLOCATE releases it, and one that does
// not fit is refused and not kept.
func TestMemoryQuotaCountsPreparedStatements(t *testing.T) {
	f := newQuotaFixture(t, 4000, 0)
	ctx := f.session()
	m := f.accounts.of(ctx)
	text := "SELECT '" + strings.Repeat("p", 1000) + "'"
	if _, err := f.run(ctx, "PREPARE p1 FROM \""+text+"\""); err != nil {
		t.Fatal(err)
	}
	if got, want := m.account.Used(), preparedSize(text); got != want {
		t.Fatalf("after PREPARE: %d charged, want %d", got, want)
	}
	if _, err := f.run(ctx, "PREPARE p2 FROM \""+text+"\""); quotaRefusal(err) != "for session" {
		t.Fatalf("second PREPARE over the quota: %v", err)
	}
	if _, err := f.run(ctx, "EXECUTE p2"); err == nil || !strings.Contains(err.Error(), "p2") {
		t.Errorf("EXECUTE of the refused statement: %v, want unknown statement p2", err)
	}
	if _, err := f.run(ctx, "DEALLOCATE PREPARE p1"); err != nil {
		t.Fatal(err)
	}
	if got := m.account.Used(); got != 0 {
		t.Errorf("after DEALLOCATE: %d charged, want 0", got)
	}
	if _, err := f.run(ctx, "PREPARE p2 FROM \""+text+"\""); err != nil {
		t.Errorf("PREPARE after DEALLOCATE: %v", err)
	}
	// PREPARE FROM a variable counts the variable's text.
	for _, q := range []string{"DEALLOCATE PREPARE p2", "SET @text = CONCAT('SELECT ''', REPEAT('1', 300), '''')", "PREPARE p3 FROM @text"} {
		if _, err := f.run(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got, want := m.charged[preparedKey("p3")], preparedSize("SELECT '"+strings.Repeat("1", 300)+"'"); got != want {
		t.Errorf("PREPARE FROM a variable: %d charged, want %d", got, want)
	}
}

// Statements prepared with COM_STMT_PREPARE are charged by text; a text no open statement uses
// any more is dropped from the engine's cache and released at the next prepare.
func TestMemoryQuotaCountsProtocolPreparedStatements(t *testing.T) {
	f := newQuotaFixture(t, 4000, 0)
	ctx := f.session()
	m := f.accounts.of(ctx)
	var uncached []string
	f.accounts.Uncache = func(_ sql.Session, text string) { uncached = append(uncached, text) }
	a, b := "SELECT '"+strings.Repeat("a", 1000)+"'", "SELECT '"+strings.Repeat("b", 1000)+"'"
	open := map[uint32]*mysql.PrepareData{1: {PrepareStmt: a}}
	if err := f.accounts.KeepPrepared(ctx.Session, open, a); err != nil {
		t.Fatal(err)
	}
	open[2] = &mysql.PrepareData{PrepareStmt: a} // the same text again: charged once
	if err := f.accounts.KeepPrepared(ctx.Session, open, a); err != nil || m.account.Used() != preparedSize(a) {
		t.Fatalf("same text: %v, %d charged", err, m.account.Used())
	}
	open[3] = &mysql.PrepareData{PrepareStmt: b}
	if err := f.accounts.KeepPrepared(ctx.Session, open, b); quotaRefusal(err) != "for session" || len(uncached) != 1 || uncached[0] != b {
		t.Fatalf("over the quota: %v, uncached %d", err, len(uncached))
	}
	delete(open, 3)
	delete(open, 1)
	delete(open, 2) // the client closed both statements of a
	open[4] = &mysql.PrepareData{PrepareStmt: b}
	if err := f.accounts.KeepPrepared(ctx.Session, open, b); err != nil {
		t.Fatalf("after closing a's statements: %v", err)
	}
	if m.account.Used() != preparedSize(b) || len(uncached) != 2 || uncached[1] != a {
		t.Errorf("%d charged, uncached %d; want b's %d and a dropped", m.account.Used(), len(uncached), preparedSize(b))
	}
	f.accounts.End(ctx.Session)
	if f.accounts.server.Used() != 0 {
		t.Errorf("server account %d after the session ended", f.accounts.server.Used())
	}
}

// sessionOf opens a session of user with its account, in the user's workload of cfg.
func (f *quotaFixture) sessionOf(user string, cfg *config.Config) *sql.Context {
	sess := memory.NewSession(sql.NewBaseSession(), f.provider)
	m := f.accounts.begin(sess, user, false)
	m.mu.Lock()
	m.want = cfg.UserWorkload(user)
	if err := m.place(); err != nil {
		f.t.Fatal(err)
	}
	m.mu.Unlock()
	ctx := sql.NewContext(f.t.Context(), sql.WithSession(sess))
	ctx.SetCurrentDatabase("main")
	return ctx
}

// workloadMemoryConfig has users b (workload batch, 1500 bytes) and w (web, 5000 bytes).
func workloadMemoryConfig(batchLimit uint64) *config.Config {
	cfg := config.Default()
	cfg.Users = []config.User{{Name: "b", Workload: "batch"}, {Name: "w", Workload: "web"}}
	cfg.Workloads = []config.Workload{{Name: "batch", Weight: 1, MaxMemoryUsage: batchLimit}, {Name: "web", Weight: 1, MaxMemoryUsage: 5000}}
	return cfg
}

// A workload's account between its sessions and the server's refuses that workload's sessions
// while another workload's go on; a session that joins another workload takes its bytes along,
// and is refused when they do not fit; a reload that removes a workload moves its sessions out.
func TestMemoryQuotaRefusesOneWorkloadWhileAnotherGoesOn(t *testing.T) {
	f := newQuotaFixture(t, 1000, 10_000)
	cfg := workloadMemoryConfig(1500)
	f.accounts.ConfigureWorkloads(cfg)
	b1, b2, w1 := f.sessionOf("b", cfg), f.sessionOf("b", cfg), f.sessionOf("w", cfg)
	batch, web := f.accounts.workload("batch").account, f.accounts.workload("web").account
	// Values past sessionAllowance, so that the shared limits apply.
	f.accounts.allowance = sessionAllowance
	f.accounts.sessionLimit.Store(200_000)
	f.accounts.serverLimit.Store(500_000)
	batch2 := func(limit uint64) { f.accounts.ConfigureWorkloads(workloadMemoryConfig(limit)) }
	batch2(100_000)
	for i, step := range []struct {
		ctx     *sql.Context
		query   string
		refused string
	}{
		{b1, "SET @a = REPEAT('x', 70000)", ""},
		{b2, "SET @a = REPEAT('x', 70000)", "for workload batch"}, // 140162 > 100000, within b2's own limit
		{w1, "SET @a = REPEAT('x', 2000)", ""},                    // web goes on
		{w1, "SELECT 1", ""},
		{b1, "SET @a = NULL", ""},
		{b2, "SET @a = REPEAT('x', 70000)", ""},
	} {
		_, err := f.run(step.ctx, step.query)
		if got := quotaRefusal(err); got != step.refused {
			t.Fatalf("step %d %s: refused by %q, want %q", i, step.query, got, step.refused)
		}
	}
	used := func(ctx *sql.Context) int64 { return f.accounts.of(ctx).account.Used() }
	if batch.Used() != used(b1)+used(b2) || web.Used() != used(w1) {
		t.Fatalf("batch %d, web %d; sessions b1 %d, b2 %d, w1 %d", batch.Used(), web.Used(), used(b1), used(b2), used(w1))
	}
	// b2 keeps about 70 KB; web (5000 bytes) cannot take it: the move is refused and b2 stays.
	if err := f.accounts.Join(b2.Session, "web", "web"); quotaRefusal(err) != "for workload web" {
		t.Fatalf("move into a too small workload: %v", err)
	}
	if m := f.accounts.of(b2); m.under.name != "batch" || m.chosen != "" {
		t.Fatalf("after the refused move b2 is under %s, chosen %q", m.under.name, m.chosen)
	}
	// Within sessionAllowance a session moves whatever the workload holds: b1 keeps ~100 bytes.
	mustRun := func(ctx *sql.Context, q string) {
		t.Helper()
		if _, err := f.run(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustRun(b1, "SET @small = 'x'")
	if err := f.accounts.Join(b1.Session, "web", "web"); err != nil {
		t.Fatal(err)
	}
	if batch.Used() != used(b2) || web.Used() != used(w1)+used(b1) {
		t.Errorf("batch %d, web %d after b1 joined web", batch.Used(), web.Used())
	}
	// A reload that lowers batch's limit applies to the next reservation.
	batch2(80_000)
	if _, err := f.run(b2, "SET @more = REPEAT('y', 20000)"); quotaRefusal(err) != "for workload batch" {
		t.Errorf("after lowering batch's limit: %v, want 241 for workload batch", err)
	}
	// A reload that removes batch moves b2 to the server's account, with its bytes.
	cfg = workloadMemoryConfig(0)
	cfg.Workloads = cfg.Workloads[1:]
	cfg.Users = cfg.Users[1:]
	f.accounts.ConfigureWorkloads(cfg)
	if m := f.accounts.of(b2); m.account.Parent() != f.accounts.workload("default").account || batch.Used() != 0 {
		t.Errorf("after batch was removed b2 is under %s, batch holds %d", m.account.Parent().Name(), batch.Used())
	}
	mustRun(b2, "SET @more = REPEAT('y', 20000)") // default has no bound of its own
	if total := f.accounts.server.Used(); total != used(b1)+used(b2)+used(w1) {
		t.Errorf("server account %d, not the sum of the sessions'", total)
	}
	for _, ctx := range []*sql.Context{b1, b2, w1} {
		f.accounts.End(ctx.Session)
	}
	if f.accounts.server.Used() != 0 || web.Used() != 0 {
		t.Errorf("server %d, web %d after the sessions ended", f.accounts.server.Used(), web.Used())
	}
}

// BenchmarkSetUserVariable is the cost of the quota on an assignment: the engine's SET @v alone
// (quota off: the plan is built as the engine's), and through Accounts.build.
func BenchmarkSetUserVariable(b *testing.B) {
	for _, accounted := range []bool{false, true} {
		name := "engine"
		if accounted {
			name = "accounted"
		}
		b.Run(name, func(b *testing.B) {
			f := newQuotaFixture(b, 1<<30, 0)
			if !accounted {
				f.engine.Analyzer.ExecBuilder.PriorityBuilder = nil
			}
			ctx := f.session()
			for b.Loop() {
				_, iter, _, err := f.engine.Query(ctx, "SET @v = 'value'")
				if err == nil {
					_, err = sql.RowIterToRows(ctx, iter)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Within its allowance, and always for an operator, a session is held to its own limit only: the
// full share of all sessions refuses neither, and counts what they keep.
func TestMemoryQuotaAllowanceAndOperators(t *testing.T) {
	f := newQuotaFixture(t, 5000, 1000)
	f.accounts.allowance = 500
	user, small := f.session(), f.session()
	sess := memory.NewSession(sql.NewBaseSession(), f.provider)
	f.accounts.begin(sess, "", true)
	operator := sql.NewContext(f.t.Context(), sql.WithSession(sess))
	operator.SetCurrentDatabase("main")
	for i, step := range []struct {
		ctx     *sql.Context
		query   string
		refused string
	}{
		{user, "SET @a = REPEAT('x', 900)", ""},
		{user, "SET @b = REPEAT('x', 300)", "total"},
		{small, "SET @s = REPEAT('x', 300)", ""},      // within the allowance of 500
		{small, "SET @t = REPEAT('x', 300)", "total"}, // beyond it
		{operator, "SET @o = REPEAT('x', 3000)", ""},  // an operator: its own 5000 only
		{operator, "SET @p = REPEAT('x', 3000)", "for session"},
	} {
		_, err := f.run(step.ctx, step.query)
		if got := quotaRefusal(err); got != step.refused {
			t.Fatalf("step %d %s: refused by %q, want %q", i, step.query, got, step.refused)
		}
	}
	if used := f.accounts.server.Used(); used < 4200 {
		t.Errorf("the server's account holds %d bytes, want what all three keep (over 4200)", used)
	}
}

// Held user-level locks are counted apart from variables: a lock given back never gives back a
// variable's bytes, whatever the variable is named, and the session's end gives back both.
func TestLocksAreChargedApartFromVariables(t *testing.T) {
	f := newQuotaFixture(t, 1000, 0)
	ctx := f.session()
	m := f.accounts.of(ctx)
	if err := m.keep("(user-level lock 'a')", 600, true); err != nil {
		t.Fatal(err)
	}
	if err := f.accounts.KeepLock(ctx, "a", 300); err != nil {
		t.Fatal(err)
	}
	if err := f.accounts.KeepLock(ctx, "b", 300); quotaRefusal(err) != "for session" {
		t.Fatalf("a second lock past the quota: %v, want 241 for the session", err)
	}
	if err := f.accounts.KeepLock(ctx, "a", 0); err != nil {
		t.Fatal(err)
	}
	if used := m.account.Used(); used != 600 {
		t.Fatalf("after the lock was given back the session counts %d bytes, want the variable's 600", used)
	}
	if err := f.accounts.KeepLock(ctx, "a", 300); err != nil {
		t.Fatal(err)
	}
	f.accounts.End(ctx.Session)
	if used := m.account.Used(); used != 0 {
		t.Fatalf("after the session ended its account counts %d bytes", used)
	}
}
