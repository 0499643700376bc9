package pointplan_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/cockroachdb/pebble/v2/vfs"
	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"

	"overloadsql/engine"
	"overloadsql/engine/pointplan"
	"overloadsql/storage"
)

// db is the engine as the server builds it (overloadsql's rules, then the planner) on a store
// in memory, with one session.
type db struct {
	t       testing.TB
	e       *sqle.Engine
	planner *pointplan.Planner
	sess    *storage.Session
	ctx     *sql.Context
}

func newDB(t testing.TB, planner bool, opts pointplan.Options) *db {
	t.Helper()
	engine.AddRules(engine.Hooks{})
	s, err := storage.Open("data", storage.Options{FS: vfs.NewMem(), PreciseLookups: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	a := analyzer.NewDefault(s.Provider())
	a.Catalog.MySQLDb.AddRootAccount()
	a.Catalog.InfoSchema = information_schema.NewInformationSchemaDatabase()
	e := sqle.New(a, new(sqle.Config))
	engine.WrapEngineRules(a)
	d := &db{t: t, e: e}
	if planner {
		d.planner = pointplan.Install(a, opts)
	}
	d.sess = s.NewSession(enginetest.NewBaseSession())
	t.Cleanup(d.sess.Close)
	d.ctx = sql.NewContext(context.Background(), sql.WithSession(d.sess))
	d.ctx.SetCurrentDatabase("main")
	return d
}

// run runs q as one autocommit statement and returns its result's schema and rows.
func (d *db) run(q string) (sql.Schema, []sql.Row, error) {
	return d.runIn(d.ctx.WithQuery(q), q)
}

// runIn runs q as one autocommit statement in ctx.
func (d *db) runIn(ctx *sql.Context, q string) (sql.Schema, []sql.Row, error) {
	upper := strings.ToUpper(q)
	writes := !strings.HasPrefix(upper, "SELECT") && !strings.HasPrefix(upper, "SET")
	if err := d.sess.BeginStatement(ctx, writes); err != nil {
		return nil, nil, err
	}
	failed := true
	defer func() { d.sess.EndStatement(ctx, failed, false) }()
	schema, iter, _, err := d.e.Query(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	rows, err := sql.RowIterToRows(ctx, iter)
	if err != nil {
		return nil, nil, err
	}
	failed = false
	return schema, rows, nil
}

// query runs q as one autocommit statement and returns its rows printed.
func (d *db) query(q string) (string, error) {
	_, rows, err := d.run(q)
	if err != nil {
		return "", err
	}
	printed := make([]string, len(rows))
	for i, row := range rows {
		printed[i] = fmt.Sprint(row)
	}
	return strings.Join(printed, " "), nil
}

func (d *db) must(q string) string {
	d.t.Helper()
	out, err := d.query(q)
	if err != nil {
		d.t.Fatalf("%s: %v", q, err)
	}
	return out
}

// TestWhatIsPlanned: which statements are planned from a learned plan, and that each returns
// the engine's rows (the same statement with a condition the planner does not take). The
// planner compares every learned plan with the engine's (VerifyEvery 1), and none may differ.
func TestWhatIsPlanned(t *testing.T) {
	d := newDB(t, true, pointplan.Options{VerifyEvery: 1})
	d.must("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, k INT NOT NULL, tiny TINYINT, u INT UNSIGNED, n INT, c VARCHAR(10), " +
		"KEY k_1 (k), UNIQUE KEY tu (tiny, u))")
	d.must("INSERT INTO t VALUES (1, 10, 1, 1, 7, 'a'), (2, 10, 2, 2, 7, 'b'), (3, 30, 127, 4294967295, 8, 'c'), " +
		"(4, 40, -128, 0, NULL, 'd'), (2147483647, 50, NULL, NULL, 9, 'max')")
	d.must("CREATE VIEW v AS SELECT * FROM t")
	cases := []struct {
		query   string
		planned bool
	}{
		{"SELECT c FROM t WHERE id = 2", true},
		{"SELECT c FROM t WHERE 2 = id", true},
		{"SELECT * FROM t WHERE id = 3", true},
		{"SELECT c, id FROM t WHERE id BETWEEN 1 AND 3", true},
		{"SELECT id FROM t WHERE k = 10", true},
		{"SELECT c FROM t WHERE tiny = 127 AND u = 4294967295", true},
		{"SELECT c FROM t WHERE u = 0 AND tiny = -128", true},
		{"SELECT c FROM t WHERE id = 2147483647", true},
		// Constants the column cannot hold, and reversed bounds: the engine's.
		{"SELECT c FROM t WHERE id = 2147483648", false},
		{"SELECT c FROM t WHERE tiny = 300 AND u = 1", false},
		{"SELECT c FROM t WHERE tiny = 1 AND u = -1", false},
		{"SELECT c FROM t WHERE id BETWEEN 3 AND 1", false},
		// Other forms: the engine's.
		{"SELECT c FROM t WHERE id = 1 OR id = 2", false},
		{"SELECT c FROM t WHERE id IN (1, 2)", false},
		{"SELECT c FROM t WHERE id < 3", false},
		{"SELECT c FROM t WHERE id = '2'", false},
		{"SELECT c FROM t WHERE id = 2.0", false},
		{"SELECT c FROM t WHERE id = NULL", false},
		{"SELECT c FROM t WHERE id + 0 = 2", false},
		{"SELECT c FROM t WHERE c = 'a'", false},
		{"SELECT c FROM t WHERE id = 2 LIMIT 1", false},
		{"SELECT id + 1 FROM t WHERE id = 2", false},
		{"SELECT COUNT(*) FROM t WHERE id BETWEEN 1 AND 3", false}, // a constant: COUNT(1)
		{"SELECT SUM(k + 1) FROM t WHERE id BETWEEN 1 AND 3", false},
		{"SELECT c FROM t WHERE id BETWEEN 1 AND 3 ORDER BY c LIMIT 2", false},
		{"SELECT c FROM t WHERE id BETWEEN 1 AND 3 ORDER BY k + 1", false},
		{"SELECT GROUP_CONCAT(c) FROM t WHERE id BETWEEN 1 AND 3", false},
		// Plain nodes above the lookup: columns, aliases, sorts, DISTINCT and aggregations.
		{"SELECT c AS x FROM t WHERE id = 2", true},
		{"SELECT c FROM t WHERE id BETWEEN 1 AND 3 ORDER BY c", true},
		{"SELECT c FROM t WHERE id BETWEEN 1 AND 4 ORDER BY c DESC", true},
		{"SELECT n, c FROM t WHERE id BETWEEN 1 AND 2147483647 ORDER BY n, c DESC", true},
		{"SELECT c FROM t WHERE id BETWEEN 1 AND 4 ORDER BY id", true},
		{"SELECT c FROM t WHERE id BETWEEN 1 AND 4 ORDER BY id DESC", true},
		{"SELECT DISTINCT k FROM t WHERE id = 2", true},
		{"SELECT DISTINCT k FROM t WHERE id BETWEEN 1 AND 4 ORDER BY k", true},
		{"SELECT DISTINCT n FROM t WHERE id BETWEEN 1 AND 2147483647 ORDER BY n DESC", true},
		{"SELECT SUM(k) FROM t WHERE id BETWEEN 1 AND 3", true},
		{"SELECT SUM(n) FROM t WHERE id BETWEEN 2 AND 4", true},
		{"SELECT SUM(k) FROM t WHERE id BETWEEN 100 AND 200", true}, // no row: one NULL
		{"SELECT COUNT(n), MIN(c), MAX(k), AVG(k) FROM t WHERE id BETWEEN 1 AND 4", true},
		{"SELECT k, COUNT(c) FROM t WHERE id BETWEEN 1 AND 4 GROUP BY k ORDER BY k", true},
		{"SELECT SUM(k) AS total FROM t WHERE k BETWEEN 10 AND 30", true},
		{"SELECT c FROM t WHERE n = 7", false},            // no index
		{"SELECT c FROM t WHERE id = 2 AND n = 7", false}, // a condition left to filter
		{"SELECT c FROM t WHERE tiny = 1", false},         // the engine ranges over the whole key (tiny, u)
		{"SELECT c FROM v WHERE id = 2", false},           // a view
		{"SELECT t.c FROM t JOIN t AS s ON s.id = t.id WHERE t.id = 2", false},
		{"SELECT table_name FROM information_schema.tables WHERE 1 = 2", false},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			engineRows := d.must(engineForm(c.query))
			var planned uint64
			for i := 0; i < 3; i++ {
				before, _, _ := d.planner.Stats()
				if got := d.must(c.query); got != engineRows {
					t.Fatalf("run %d: %q, the engine's plan read %q", i, got, engineRows)
				}
				after, _, _ := d.planner.Stats()
				planned += after - before
			}
			if c.planned != (planned > 0) {
				t.Errorf("planned %d of 3 runs, want planned: %v", planned, c.planned)
			}
		})
	}
	if _, _, differed := d.planner.Stats(); differed != 0 {
		t.Errorf("%d learned plans differed from the engine's", differed)
	}
}

// TestSelectLimit: while the session sets sql_select_limit, the engine plans (its plan
// applies the limit).
func TestSelectLimit(t *testing.T) {
	d := newDB(t, true, pointplan.Options{VerifyEvery: 1})
	d.must("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, c INT)")
	d.must("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")
	for range 2 {
		if got := d.must("SELECT c FROM t WHERE id BETWEEN 1 AND 3"); got != "[1] [2] [3]" {
			t.Fatalf("rows %q", got)
		}
	}
	d.must("SET sql_select_limit = 1")
	if got := d.must("SELECT c FROM t WHERE id BETWEEN 1 AND 3"); got != "[1]" {
		t.Fatalf("with sql_select_limit = 1: rows %q, want one", got)
	}
	d.must("SET sql_select_limit = DEFAULT")
	before, _, _ := d.planner.Stats()
	if got := d.must("SELECT c FROM t WHERE id BETWEEN 1 AND 3"); got != "[1] [2] [3]" {
		t.Fatalf("rows %q", got)
	}
	if after, _, _ := d.planner.Stats(); after == before {
		t.Error("not planned once sql_select_limit was back to its default")
	}
}

// TestConstantsOutOfRange: every integer type converts its in-range bounds exactly and
// refuses the values next to them, so such a key never reads a clamped value's rows.
func TestConstantsOutOfRange(t *testing.T) {
	d := newDB(t, true, pointplan.Options{VerifyEvery: 1})
	for _, c := range []struct {
		typ        string
		lo, hi     string
		below, top string
	}{
		{"TINYINT", "-128", "127", "-129", "128"},
		{"TINYINT UNSIGNED", "0", "255", "-1", "256"},
		{"SMALLINT", "-32768", "32767", "-32769", "32768"},
		{"SMALLINT UNSIGNED", "0", "65535", "-1", "65536"},
		{"MEDIUMINT", "-8388608", "8388607", "-8388609", "8388608"},
		{"MEDIUMINT UNSIGNED", "0", "16777215", "-1", "16777216"},
		{"INT", "-2147483648", "2147483647", "-2147483649", "2147483648"},
		{"INT UNSIGNED", "0", "4294967295", "-1", "4294967296"},
		{"BIGINT", "-9223372036854775808", "9223372036854775807", "", "9223372036854775808"},
		{"BIGINT UNSIGNED", "0", "18446744073709551615", "-1", ""},
	} {
		t.Run(c.typ, func(t *testing.T) {
			name := "t_" + strings.ReplaceAll(strings.ToLower(c.typ), " ", "_")
			d.must(fmt.Sprintf("CREATE TABLE %s (id %s NOT NULL PRIMARY KEY)", name, c.typ))
			d.must(fmt.Sprintf("INSERT INTO %s VALUES (%s), (%s)", name, c.lo, c.hi))
			for _, k := range []string{c.lo, c.hi, c.lo, c.hi} {
				if got := d.must(fmt.Sprintf("SELECT id FROM %s WHERE id = %s", name, k)); got != "["+k+"]" {
					t.Fatalf("id = %s: %q", k, got)
				}
			}
			for _, k := range []string{c.below, c.top} {
				if k == "" {
					continue
				}
				if got := d.must(fmt.Sprintf("SELECT id FROM %s WHERE id = %s", name, k)); got != "" {
					t.Errorf("id = %s read %q, want no row", k, got)
				}
				q := fmt.Sprintf("SELECT id FROM %s WHERE id BETWEEN %s AND %s", name, c.lo, k)
				if got, want := d.must(q), d.must(engineForm(q)); got != want {
					t.Errorf("%s read %q, the engine's plan %q", q, got, want)
				}
			}
		})
	}
}

// engineForm is q with a condition the planner does not take, so that the engine plans it.
func engineForm(q string) string { return strings.Replace(q, "WHERE ", "WHERE 1 = 1 AND ", 1) }

// TestColumnNames: a planned statement's result columns are named as the engine names them,
// whatever the case the statement spells its columns in.
func TestColumnNames(t *testing.T) {
	d := newDB(t, true, pointplan.Options{VerifyEvery: 1})
	d.must("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, Val INT)")
	d.must("INSERT INTO t VALUES (1, 1), (2, 2)")
	names := func(q string) string {
		t.Helper()
		schema, _, err := d.run(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, c := range schema {
			out = append(out, c.Name)
		}
		return strings.Join(out, ",")
	}
	for _, q := range []string{
		"SELECT val, id FROM t WHERE id = 1",
		"SELECT VAL, ID FROM t WHERE ID = 2",
		"SELECT Val, Id FROM t WHERE Id = 1",
		"SELECT t.val FROM t WHERE t.id BETWEEN 1 AND 2",
		"SELECT T.VAL FROM t WHERE T.ID BETWEEN 1 AND 2",
	} {
		for i := range 3 {
			if got, want := names(q), names(engineForm(q)); got != want {
				t.Errorf("run %d of %s: columns %q, the engine's plan names them %q", i, q, got, want)
			}
		}
	}
	if planned, _, differed := d.planner.Stats(); planned == 0 || differed != 0 {
		t.Errorf("planned %d, differed %d: want some planned, none differing", planned, differed)
	}
}

// TestGroupByFollowsSQLMode: the engine checks a select list against GROUP BY only under
// ONLY_FULL_GROUP_BY, so a shape learned without the mode is not used with it.
func TestGroupByFollowsSQLMode(t *testing.T) {
	d := newDB(t, true, pointplan.Options{VerifyEvery: 0})
	d.must("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, k INT NOT NULL, c VARCHAR(10))")
	d.must("INSERT INTO t VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c')")
	d.must("SET sql_mode = ''")
	for range 2 {
		d.must("SELECT c, COUNT(k) FROM t WHERE id BETWEEN 1 AND 3")
	}
	d.must("SET sql_mode = DEFAULT")
	for range 2 {
		if _, err := d.query("SELECT c, COUNT(k) FROM t WHERE id BETWEEN 1 AND 3"); err == nil {
			t.Fatal("with ONLY_FULL_GROUP_BY, a nonaggregated column without GROUP BY ran")
		}
	}
}

// TestNamesInTheShape: column names that spell another statement's shape never share its
// plan.
func TestNamesInTheShape(t *testing.T) {
	d := newDB(t, true, pointplan.Options{VerifyEvery: 1})
	d.must("CREATE TABLE w (a INT NOT NULL, b INT NOT NULL, `a = int|w.b` INT NOT NULL, PRIMARY KEY (a, b), KEY x (`a = int|w.b`))")
	d.must("INSERT INTO w VALUES (1, 2, 2), (3, 4, 2)")
	for range 2 {
		if got := d.must("SELECT a FROM w WHERE a = 1 AND b = 2"); got != "[1]" {
			t.Fatalf("by (a, b): %q", got)
		}
		if got := d.must("SELECT a FROM w WHERE `a = int|w.b` = 2"); got != "[1] [3]" {
			t.Fatalf("by the oddly named column: %q", got)
		}
	}
}

// TestLearnedPlansKeepNoContext: a learned plan outlives the statement it was learned from, so
// it must not keep that statement's context (and through it the session) alive. Aliases hold
// the context they were made in, in a projection and in a GROUP BY.
func TestLearnedPlansKeepNoContext(t *testing.T) {
	d := newDB(t, true, pointplan.Options{})
	d.must("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, k INT NOT NULL, n INT, c VARCHAR(10))")
	d.must("INSERT INTO t VALUES (1, 10, 7, 'a'), (2, 10, 8, 'b'), (3, 30, NULL, 'c')")
	for _, q := range []string{
		"SELECT c AS x FROM t WHERE id = 2",
		"SELECT k kk, MAX(n) FROM t WHERE id BETWEEN 1 AND 4 GROUP BY kk",
		"SELECT k AS kk, COUNT(n) AS cnt FROM t WHERE id BETWEEN 1 AND 4 GROUP BY k ORDER BY kk",
	} {
		t.Run(q, func(t *testing.T) {
			want := d.must(engineForm(q))
			learned := func() weak.Pointer[sql.Context] {
				ctx := d.ctx.WithQuery(q)
				if _, _, err := d.runIn(ctx, q); err != nil {
					t.Fatal(err)
				}
				return weak.Make(ctx)
			}()
			before, _, _ := d.planner.Stats()
			if got := d.must(q); got != want {
				t.Fatalf("planned: %q, the engine's plan read %q", got, want)
			}
			if after, _, _ := d.planner.Stats(); after == before {
				t.Fatal("the statement was not planned from a learned plan")
			}
			runtime.GC()
			runtime.GC()
			if learned.Value() != nil {
				t.Error("the learned plan keeps the context of the statement it was learned from")
			}
		})
	}
}
