package server

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// lookupFixture is an engine over one in-memory database configured as `main` is, with a
// session of its own.
type lookupFixture struct {
	t        testing.TB
	db       *memory.Database
	provider *memory.DbProvider
	engine   *sqle.Engine
	ctx      *sql.Context
}

func newLookupFixture(t testing.TB) *lookupFixture {
	addAnalyzerRules()
	db := memory.NewDatabase(mainDatabase)
	provider := memory.NewDBProvider(db)
	engine := sqle.NewDefault(provider)
	ctx := sql.NewContext(t.Context(), sql.WithSession(memory.NewSession(sql.NewBaseSession(), provider)))
	ctx.SetCurrentDatabase(mainDatabase)
	return &lookupFixture{t: t, db: db, provider: provider, engine: engine, ctx: ctx}
}

func (f *lookupFixture) query(q string) []sql.Row {
	f.t.Helper()
	_, iter, _, err := f.engine.Query(f.ctx, q)
	if err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	rows, err := sql.RowIterToRows(f.ctx, iter)
	if err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// table is the session's table and its PRIMARY index.
func (f *lookupFixture) table(name string) (*memory.Table, *memory.Index) {
	f.t.Helper()
	tbl, ok, err := f.db.GetTableInsensitive(f.ctx, name)
	if err != nil || !ok {
		f.t.Fatalf("table %s: %v", name, err)
	}
	mt := tbl.(*memory.Table)
	indexes, err := mt.GetIndexes(f.ctx)
	if err != nil || len(indexes) == 0 || indexes[0].ID() != "PRIMARY" {
		f.t.Fatalf("PRIMARY of %s: %v %v", name, indexes, err)
	}
	return mt, indexes[0].(*memory.Index)
}

// lookupRows reads every row of the lookup through table, in the order given.
func lookupRows(ctx *sql.Context, table sql.IndexedTable, lookup sql.IndexLookup) ([]sql.Row, error) {
	parts, err := table.LookupPartitions(ctx, lookup)
	if err != nil {
		return nil, err
	}
	defer parts.Close(ctx)
	var rows []sql.Row
	for {
		p, err := parts.Next(ctx)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		iter, err := table.PartitionRows(ctx, p)
		if err != nil {
			return nil, err
		}
		more, err := sql.RowIterToRows(ctx, iter)
		if err != nil {
			return nil, err
		}
		rows = append(rows, more...)
	}
}

// compareWithEngine checks that scanLookup returns the rows of the engine's own PRIMARY
// lookup, in the same order, for every lookup and projection.
func (f *lookupFixture) compareWithEngine(name string, lookups []sql.IndexLookup, projections [][]string) int {
	f.t.Helper()
	table, _ := f.table(name)
	found := 0
	for _, cols := range projections {
		projected := projection(f.t, f.ctx, table, cols)
		for _, lookup := range lookups {
			engine := projected.IndexedAccess(f.ctx, lookup).(*memory.IndexedTable)
			want, err := lookupRows(f.ctx, engine, lookup)
			if err != nil {
				f.t.Fatalf("engine lookup %s: %v", lookup.Ranges.DebugString(f.ctx), err)
			}
			got, err := lookupRows(f.ctx, &scanLookup{IndexedTable: engine}, lookup)
			if err != nil {
				f.t.Fatalf("lookup %s: %v", lookup.Ranges.DebugString(f.ctx), err)
			}
			if !reflect.DeepEqual(got, want) {
				f.t.Errorf("%s columns %v reverse=%v %s:\n got %v\nwant %v", name, cols, lookup.IsReverse, lookup.Ranges.DebugString(f.ctx), got, want)
			}
			found += len(got)
		}
	}
	return found
}

// seed fills t1 (INT key), t2 (INT, VARCHAR key) and t3 (case-insensitive VARCHAR key) with n
// rows each from a seeded generator.
func (f *lookupFixture) seed(rng *rand.Rand, n int) {
	f.query("CREATE TABLE t1 (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))")
	f.query("CREATE TABLE t2 (a INT, b VARCHAR(10), v DOUBLE, PRIMARY KEY (a, b))")
	f.query("CREATE TABLE t3 (name VARCHAR(10) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, n BIGINT)")
	seen := map[string]bool{}
	for _, id := range rng.Perm(4 * n)[:n] {
		f.query(fmt.Sprintf("INSERT INTO t1 VALUES (%d, %d, 'c%d')", id-n, rng.Intn(50), rng.Intn(1000)))
		a, b := rng.Intn(20), randomWord(rng)
		if key := fmt.Sprint(a, b); !seen[key] {
			seen[key] = true
			f.query(fmt.Sprintf("INSERT INTO t2 VALUES (%d, '%s', %g)", a, b, rng.Float64()))
		}
		if name := randomWord(rng); !seen[strings.ToLower(name)] {
			seen[strings.ToLower(name)] = true
			f.query(fmt.Sprintf("INSERT INTO t3 VALUES ('%s', %d)", name, rng.Int63()))
		}
	}
}

func randomWord(rng *rand.Rand) string {
	const letters = "abcABC"
	b := make([]byte, 1+rng.Intn(3))
	for i := range b {
		b[i] = letters[rng.Intn(len(letters))]
	}
	return string(b)
}

// lookups builds PRIMARY lookups of every shape the engine's range builder produces.
func lookups(index *memory.Index, ranges ...sql.MySQLRange) []sql.IndexLookup {
	var out []sql.IndexLookup
	for _, r := range ranges {
		for _, reverse := range []bool{false, true} {
			out = append(out, sql.IndexLookup{Index: index, Ranges: sql.MySQLRangeCollection{r}, IsReverse: reverse})
		}
	}
	// Several ranges at once, as `id IN (...)` or `OR` give.
	out = append(out, sql.IndexLookup{Index: index, Ranges: sql.MySQLRangeCollection(ranges)})
	return out
}

func TestPrimaryKeyLookupMatchesEngine(t *testing.T) {
	f := newLookupFixture(t)
	rng := rand.New(rand.NewSource(12))
	f.seed(rng, 300)
	check := func(stage string) {
		t.Helper()
		_, i1 := f.table("t1")
		int32Type := i1.Exprs[0].Type(f.ctx)
		var r1 []sql.MySQLRange
		for range 10 {
			v := int32(rng.Intn(1200) - 300)
			r1 = append(r1, sql.MySQLRange{sql.ClosedRangeColumnExpr(v, v, int32Type)})
		}
		lo := int32(rng.Intn(600) - 300)
		r1 = append(r1,
			sql.MySQLRange{sql.ClosedRangeColumnExpr(lo, lo+100, int32Type)},
			sql.MySQLRange{sql.OpenRangeColumnExpr(lo, lo+100, int32Type)},
			sql.MySQLRange{sql.MySQLRangeColumnExpr{LowerBound: sql.Above{Key: lo, Typ: int32Type}, UpperBound: sql.Above{Key: lo + 50, Typ: int32Type}, Typ: int32Type}},
			sql.MySQLRange{sql.LessThanRangeColumnExpr(lo, int32Type)},
			sql.MySQLRange{sql.LessOrEqualRangeColumnExpr(lo, int32Type)},
			sql.MySQLRange{sql.GreaterThanRangeColumnExpr(lo, int32Type)},
			sql.MySQLRange{sql.GreaterOrEqualRangeColumnExpr(lo, int32Type)},
			sql.MySQLRange{sql.NotNullRangeColumnExpr(int32Type)},
			sql.MySQLRange{sql.NullRangeColumnExpr(int32Type)},
			sql.MySQLRange{sql.AllRangeColumnExpr(int32Type)},
		)
		found := f.compareWithEngine("t1", lookups(i1, r1...), [][]string{nil, {"c"}, {"c", "id"}})

		_, i2 := f.table("t2")
		aType, bType := i2.Exprs[0].Type(f.ctx), i2.Exprs[1].Type(f.ctx)
		a := int32(rng.Intn(20))
		r2 := []sql.MySQLRange{
			{sql.ClosedRangeColumnExpr(a, a, aType)},
			{sql.ClosedRangeColumnExpr(a, a, aType), sql.ClosedRangeColumnExpr("a", "a", bType)},
			{sql.ClosedRangeColumnExpr(a, a, aType), sql.GreaterThanRangeColumnExpr("B", bType)},
			{sql.ClosedRangeColumnExpr(a, a+3, aType), sql.AllRangeColumnExpr(bType)},
			{sql.GreaterOrEqualRangeColumnExpr(a, aType), sql.LessThanRangeColumnExpr("b", bType)},
		}
		found += f.compareWithEngine("t2", lookups(i2, r2...), [][]string{nil, {"v"}})

		_, i3 := f.table("t3")
		nameType := i3.Exprs[0].Type(f.ctx)
		r3 := []sql.MySQLRange{
			{sql.ClosedRangeColumnExpr("ab", "ab", nameType)},
			{sql.ClosedRangeColumnExpr("AB", "AB", nameType)},
			{sql.ClosedRangeColumnExpr("a", "B", nameType)},
			{sql.GreaterThanRangeColumnExpr("bA", nameType)},
		}
		found += f.compareWithEngine("t3", lookups(i3, r3...), [][]string{nil, {"n"}})
		if found == 0 {
			t.Fatalf("%s: no lookup found a row: the comparison proves nothing", stage)
		}
	}

	check("seeded")
	f.query("UPDATE t1 SET k = k + 1, c = 'updated' WHERE id % 3 = 0")
	f.query("DELETE FROM t1 WHERE id % 5 = 0")
	f.query("DELETE FROM t2 WHERE a = 3")
	f.query("UPDATE t3 SET n = n + 1")
	check("after UPDATE and DELETE")
	f.query("START TRANSACTION")
	f.query("DELETE FROM t1 WHERE id % 2 = 0")
	f.query("INSERT INTO t1 VALUES (100000, 1, 'in transaction')")
	f.query("UPDATE t2 SET v = -1 WHERE a < 10")
	check("inside a transaction")
	f.query("ROLLBACK")
	check("after ROLLBACK")
}

// TestPrimaryKeyLookupThroughSQL checks statements on `main`'s kind of table against the same
// statements written so that no index applies, before and after writes and around ROLLBACK,
// and that the plans do use scanLookup.
func TestPrimaryKeyLookupThroughSQL(t *testing.T) {
	f := newLookupFixture(t)
	f.seed(rand.New(rand.NewSource(7)), 200)
	f.query("REPLACE INTO t1 VALUES (17, 1, 'seeded')")
	statements := []struct{ indexed, scan string }{
		{"SELECT * FROM t1 WHERE id = 17", "SELECT * FROM t1 WHERE id + 0 = 17"},
		{"SELECT c FROM t1 WHERE id IN (-5, 3, 99, 400)", "SELECT c FROM t1 WHERE id + 0 IN (-5, 3, 99, 400) ORDER BY id"},
		{"SELECT id, c FROM t1 WHERE id BETWEEN 10 AND 110 ORDER BY id", "SELECT id, c FROM t1 WHERE id + 0 BETWEEN 10 AND 110 ORDER BY id"},
		{"SELECT id FROM t1 WHERE id > 50 ORDER BY id DESC LIMIT 7", "SELECT id FROM t1 WHERE id + 0 > 50 ORDER BY id + 0 DESC LIMIT 7"},
		{"SELECT SUM(k) FROM t1 WHERE id BETWEEN 0 AND 300", "SELECT SUM(k) FROM t1 WHERE id + 0 BETWEEN 0 AND 300"},
		{"SELECT DISTINCT k FROM t1 WHERE id BETWEEN 0 AND 300 ORDER BY k", "SELECT DISTINCT k FROM t1 WHERE id + 0 BETWEEN 0 AND 300 ORDER BY k"},
		{"SELECT b, v FROM t2 WHERE a = 4 ORDER BY b", "SELECT b, v FROM t2 WHERE a + 0 = 4 ORDER BY b"},
		{"SELECT v FROM t2 WHERE a = 4 AND b = 'a'", "SELECT v FROM t2 WHERE a + 0 = 4 AND CONCAT(b) = 'a'"},
		{"SELECT n FROM t3 WHERE name = 'AB'", "SELECT n FROM t3 WHERE UPPER(name) = 'AB'"},
		{"SELECT x.c FROM t1 x JOIN t1 y ON x.id = y.k WHERE y.id < 40 ORDER BY x.id, y.id", "SELECT x.c FROM t1 x JOIN t1 y ON x.id + 0 = y.k WHERE y.id + 0 < 40 ORDER BY x.id, y.id"},
	}
	check := func(stage string) {
		t.Helper()
		for _, s := range statements {
			got, want := f.query(s.indexed), f.query(s.scan)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s:\n got %v\nwant %v (%s)", stage, s.indexed, got, want, s.scan)
			}
		}
	}
	check("seeded")
	f.query("UPDATE t1 SET c = 'updated' WHERE id = 17")
	f.query("DELETE FROM t1 WHERE id BETWEEN 20 AND 60")
	check("after UPDATE and DELETE")
	f.query("START TRANSACTION")
	f.query("UPDATE t1 SET c = 'in transaction' WHERE id = 17")
	f.query("DELETE FROM t2 WHERE a = 4 AND b = 'a'")
	check("inside a transaction")
	f.query("ROLLBACK")
	check("after ROLLBACK")
	if got := f.query("SELECT c FROM t1 WHERE id = 17"); len(got) != 1 || got[0][0] != "updated" {
		t.Errorf("after ROLLBACK: id 17 is %v, want the committed 'updated'", got)
	}

	for _, q := range []string{"SELECT c FROM t1 WHERE id = 17", "SELECT id FROM t1 WHERE id BETWEEN 1 AND 9"} {
		if lookup, node := f.planLookup(q); lookup == nil {
			t.Errorf("%s: the plan does not use scanLookup:\n%s", q, sql.DebugString(f.ctx, node))
		}
	}
}

// planLookup analyzes q and returns its plan and the scanLookup of the plan's last indexed
// access, nil if that access is another kind.
func (f *lookupFixture) planLookup(q string) (*scanLookup, sql.Node) {
	f.t.Helper()
	node, err := f.engine.AnalyzeQuery(f.ctx, q)
	if err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	var lookup *scanLookup
	transform.InspectWithOpaque(f.ctx, node, func(_ *sql.Context, n sql.Node) bool {
		if ita, ok := n.(*plan.IndexedTableAccess); ok {
			lookup, _ = ita.Table.(*scanLookup)
		}
		return true
	})
	return lookup, node
}

// BenchmarkPrimaryKeyLookup measures a PRIMARY lookup on a sysbench-shaped table of 10k rows
// through the engine's own indexed access and through scanLookup, side by side: one
// point lookup and one range of 100 keys.
func BenchmarkPrimaryKeyLookup(b *testing.B) {
	f := newLookupFixture(b)
	f.query("CREATE TABLE sb (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60), KEY k_1 (k))")
	const rows, batch = 10_000, 1_000
	for start := 1; start <= rows; start += batch {
		values := make([]string, 0, batch)
		for id := start; id < start+batch; id++ {
			values = append(values, fmt.Sprintf("(%d, %d, '%s', '%s')", id, id%1000, strings.Repeat("c", 100), strings.Repeat("p", 50)))
		}
		f.query("INSERT INTO sb VALUES " + strings.Join(values, ", "))
	}
	table, index := f.table("sb")
	table = projection(b, f.ctx, table, []string{"c"})
	typ := index.Exprs[0].Type(f.ctx)
	for _, width := range []int32{1, 100} {
		for _, path := range []string{"engine", "overloadsql"} {
			b.Run(fmt.Sprintf("keys=%d/path=%s", width, path), func(b *testing.B) {
				for i := range b.N {
					lo := int32((i*7919)%(rows-int(width))) + 1
					lookup := sql.IndexLookup{Index: index, Ranges: sql.MySQLRangeCollection{{sql.ClosedRangeColumnExpr(lo, lo+width-1, typ)}}}
					var indexed sql.IndexedTable = table.IndexedAccess(f.ctx, lookup).(*memory.IndexedTable)
					if path == "overloadsql" {
						indexed = &scanLookup{IndexedTable: indexed.(*memory.IndexedTable)}
					}
					got, err := lookupRows(f.ctx, indexed, lookup)
					if err != nil || len(got) != int(width) {
						b.Fatalf("lookup of %d keys at %d: %d rows, %v", width, lo, len(got), err)
					}
				}
			})
		}
	}
}

func TestIntBounds(t *testing.T) {
	const minI, maxI = math.MinInt64, math.MaxInt64
	for _, c := range []struct {
		name         string
		lower, upper sql.MySQLRangeCut
		lo, hi       int64
		ok           bool
	}{
		{"point", sql.Below{Key: int32(5)}, sql.Above{Key: int32(5)}, 5, 5, true},
		{"open", sql.Above{Key: int64(5)}, sql.Below{Key: int64(9)}, 6, 8, true},
		{"not null", sql.AboveNull{}, sql.AboveAll{}, minI, maxI, true},
		{"at most", sql.AboveNull{}, sql.Above{Key: int8(-3)}, minI, -3, true},
		{"null included", sql.BelowNull{}, sql.AboveAll{}, 0, 0, false},
		{"only null", sql.BelowNull{}, sql.AboveNull{}, 0, 0, false},
		{"above the largest", sql.Above{Key: int64(maxI)}, sql.AboveAll{}, 0, 0, false},
		{"below the smallest", sql.AboveNull{}, sql.Below{Key: int64(minI)}, 0, 0, false},
		{"not an integer", sql.Below{Key: 2.5}, sql.AboveAll{}, 0, 0, false},
		{"string key", sql.Below{Key: "7"}, sql.Above{Key: "7"}, 0, 0, false},
	} {
		lo, hi, ok := intBounds(c.lower, c.upper)
		if ok != c.ok || ok && (lo != c.lo || hi != c.hi) {
			t.Errorf("%s: intBounds = %d, %d, %v; want %d, %d, %v", c.name, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}

// claimed is the fixture's context for a statement that claims to read the committed tables.
func (f *lookupFixture) claimed(keys *committedKeys) *sql.Context {
	return f.ctx.WithContext(&inFlight{Context: f.ctx.Context, read: keys.startCommittedRead()})
}

// The map of committed keys answers what the scan answers, for every integer-key lookup of a
// read that sees the committed tables, and stops answering (the scan takes over) as soon as a
// transaction takes the write lock; after a commit it answers from the new version.
func TestCommittedKeysAnswerLikeTheScan(t *testing.T) {
	f := newLookupFixture(t)
	rng := rand.New(rand.NewSource(7))
	f.seed(rng, 300)
	var lock writeLock
	keys := newCommittedKeys(f.provider, &lock)
	check := func(ctx *sql.Context, wantDone bool) int {
		t.Helper()
		table, index := f.table("t1")
		whole := projection(t, ctx, table, nil)
		typ := index.Exprs[0].Type(ctx)
		key := []*expression.GetField{index.Exprs[0].(*expression.GetField)}
		if wantDone {
			// A committed version is mapped at its second lookup; the first scans.
			_, mapped, err := keys.rows(ctx, whole.Database(), whole.Name(), key[0].Index())
			if err != nil {
				t.Fatal(err)
			}
			if _, again, err := keys.rows(ctx, whole.Database(), whole.Name(), key[0].Index()); err != nil || !again {
				t.Fatalf("the second lookup of a version is not mapped: %v", err)
			} else if mapped {
				t.Log("the version was already mapped")
			}
		}
		found := 0
		for range 40 {
			lo := int32(rng.Intn(1500) - 400)
			for _, r := range []sql.MySQLRangeCollection{
				{{sql.ClosedRangeColumnExpr(lo, lo, typ)}},
				{{sql.ClosedRangeColumnExpr(lo, lo+int32(rng.Intn(200)), typ)}},
				{{sql.OpenRangeColumnExpr(lo, lo+50, typ)}, {sql.ClosedRangeColumnExpr(lo+20, lo+80, typ)}},
			} {
				ranges := keyRanges(r, key)
				p := &scanPartition{key: firstPartition(t, ctx, whole), index: index, ranges: r}
				got, done, err := fromCommitted(ctx, p, ranges, whole)
				if err != nil || done != wantDone {
					t.Fatalf("%s: done = %v, %v; want done = %v", r.DebugString(ctx), done, err, wantDone)
				}
				if !done {
					continue
				}
				want, err := scanRanges(ctx, whole, p.key, ranges)
				if err != nil {
					t.Fatal(err)
				}
				sortRows := func(rows []sql.Row) {
					if err := sortByKey(ctx, rows, key, false); err != nil {
						t.Fatal(err)
					}
				}
				sortRows(got)
				sortRows(want)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %v\nwant %v", r.DebugString(ctx), got, want)
				}
				found += len(got)
			}
		}
		return found
	}
	if check(f.claimed(keys), true) == 0 {
		t.Fatal("no lookup found a row: the comparison proves nothing")
	}
	// Through scanLookup, every partition, projections and reverse order, as the engine.
	_, index := f.table("t1")
	plain := f.ctx
	f.ctx = f.claimed(keys)
	typ := index.Exprs[0].Type(f.ctx)
	f.compareWithEngine("t1", lookups(index,
		sql.MySQLRange{sql.ClosedRangeColumnExpr(int32(3), int32(90), typ)},
		sql.MySQLRange{sql.ClosedRangeColumnExpr(int32(-20), int32(-20), typ)},
		sql.MySQLRange{sql.ClosedRangeColumnExpr(int32(50), int32(50), typ)},
	), [][]string{nil, {"c"}, {"c", "id"}})
	f.ctx = plain

	ctx := f.claimed(keys)
	if err := lock.acquire(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	check(ctx, false)
	lock.release(7)
	check(ctx, false) // a transaction held the lock since the claim: it may have committed

	f.query("UPDATE t1 SET c = 'changed' WHERE id % 2 = 0")
	f.query("DELETE FROM t1 WHERE id % 7 = 0")
	if check(f.claimed(keys), true) == 0 {
		t.Fatal("no lookup found a row after the writes")
	}
}

// firstPartition is the key of the table's first partition that has rows.
func firstPartition(t *testing.T, ctx *sql.Context, table *memory.Table) []byte {
	t.Helper()
	parts, err := table.Partitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer parts.Close(ctx)
	p, err := parts.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return p.Key()
}

// A map of a table version that is no longer committed (a commit replaced it, or the table was
// dropped) is forgotten when a writing transaction ends, so that it does not keep the former
// version's rows in memory; the map of a version still committed stays.
func TestCommittedKeysForgetReplacedVersions(t *testing.T) {
	f := newLookupFixture(t)
	f.seed(rand.New(rand.NewSource(3)), 50)
	f.query("CREATE TABLE t4 (id INT PRIMARY KEY)")
	f.query("INSERT INTO t4 VALUES (1), (2)")
	var lock writeLock
	keys := newCommittedKeys(f.provider, &lock)
	mapped := func(table string) bool {
		keys.mu.Lock()
		defer keys.mu.Unlock()
		m := keys.tables["main."+table]
		return m != nil && m.rows != nil
	}
	for _, table := range []string{"t1", "t4"} {
		for range 2 {
			if _, _, err := keys.rows(f.ctx, mainDatabase, table, 0); err != nil {
				t.Fatal(err)
			}
		}
		if !mapped(table) {
			t.Fatalf("%s is not mapped after two lookups", table)
		}
	}
	f.query("UPDATE t1 SET c = 'x' WHERE id = 0")
	keys.prune(f.ctx)
	if mapped("t1") || !mapped("t4") {
		t.Fatalf("after a commit to t1: t1 mapped %v (want false), t4 mapped %v (want true)", mapped("t1"), mapped("t4"))
	}
	f.query("DROP TABLE t4")
	keys.prune(f.ctx)
	if mapped("t4") {
		t.Fatal("the map of a dropped table is kept")
	}
}

// A table of more rows than the limit is not mapped (its lookups scan); one at the limit is.
func TestKeyRowsLimit(t *testing.T) {
	f := newLookupFixture(t)
	f.query("CREATE TABLE t5 (id INT PRIMARY KEY, v INT)")
	f.query("INSERT INTO t5 VALUES (1, 10), (2, 20), (3, 30)")
	table, _ := f.table("t5")
	for _, c := range []struct {
		limit  int
		mapped bool
	}{{2, false}, {3, true}} {
		rows, ok, err := keyRows(f.ctx, table, 0, c.limit)
		if err != nil || ok != c.mapped || ok && len(rows) != 3 {
			t.Errorf("limit %d: %d rows, mapped %v, %v; want mapped %v", c.limit, len(rows), ok, err, c.mapped)
		}
	}
}

// projection is table with only cols projected (all of them for nil).
func projection(t testing.TB, ctx *sql.Context, table *memory.Table, cols []string) *memory.Table {
	t.Helper()
	projected, err := table.WithProjections(ctx, cols)
	if err != nil {
		t.Fatal(err)
	}
	return projected.(*memory.Table)
}
