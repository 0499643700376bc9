package server

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// newSideFixture is a lookupFixture whose engine reads the databases as the server's does:
// through committedProvider, with side indexes.
func newSideFixture(t testing.TB) *lookupFixture {
	f := newLookupFixture(t)
	f.engine = sqle.NewDefault(committedProvider{
		boundedProvider: newBoundedProvider(f.provider, func() int { return 1 << 20 }),
		lock:            &writeLock{},
		side:            newSideIndexes(),
	})
	return f
}

// queryErr runs q and returns its error, nil if it succeeded.
func (f *lookupFixture) queryErr(q string) error {
	_, iter, _, err := f.engine.Query(f.ctx, q)
	if err == nil {
		_, err = sql.RowIterToRows(f.ctx, iter)
	}
	return err
}

// indexList is SHOW INDEX of the table as "name(col,col)" entries, in the order shown.
func (f *lookupFixture) indexList(table string) []string {
	f.t.Helper()
	var out []string
	for _, r := range f.query("SHOW INDEX FROM " + table) {
		name, col, seq := r[2].(string), r[4].(string), r[3]
		if fmt.Sprint(seq) == "1" {
			out = append(out, name+"("+col+")")
			continue
		}
		last := out[len(out)-1]
		out[len(out)-1] = last[:len(last)-1] + "," + col + ")"
	}
	return out
}

// TestSideIndexesAnswerLikeScans checks statements that use side indexes against the same
// statements written so that no index applies (in the order the index gives where the statement
// orders by it: ties in primary-key order, descending for a reversed read; as sets where it does
// not order), before and after writes; that the plans read the side indexes; and that the
// engine's table keeps no entries for them. (Transactions and ROLLBACK are the server's, not
// this fixture's: integration/sideindex_test.go.)
func TestSideIndexesAnswerLikeScans(t *testing.T) {
	f := newSideFixture(t)
	f.query("CREATE TABLE s (id INT PRIMARY KEY, k INT, c VARCHAR(20), d DOUBLE, KEY k_1 (k), KEY kc (k, c), KEY (c), KEY (d))")
	rng := rand.New(rand.NewSource(11))
	for _, id := range rng.Perm(900)[:300] {
		k, c := fmt.Sprint(rng.Intn(35)-5), "'"+randomWord(rng)+"'"
		if rng.Intn(10) == 0 {
			k = "NULL"
		}
		if rng.Intn(12) == 0 {
			c = "NULL"
		}
		f.query(fmt.Sprintf("INSERT INTO s VALUES (%d, %s, %s, %g)", id-300, k, c, rng.Float64()))
	}
	statements := []struct{ indexed, scan string }{
		{"SELECT id, k FROM s WHERE k = 7", "SELECT id, k FROM s WHERE k + 0 = 7 ORDER BY id"},
		{"SELECT id, k FROM s WHERE k BETWEEN 3 AND 9 ORDER BY k", "SELECT id, k FROM s WHERE k + 0 BETWEEN 3 AND 9 ORDER BY k, id"},
		{"SELECT id, k FROM s ORDER BY k LIMIT 40", "SELECT id, k FROM s ORDER BY k + 0, id LIMIT 40"},
		{"SELECT id, k FROM s ORDER BY k DESC LIMIT 40", "SELECT id, k FROM s ORDER BY k + 0 DESC, id DESC LIMIT 40"},
		{"SELECT id FROM s WHERE k > 20 ORDER BY k DESC LIMIT 9", "SELECT id FROM s WHERE k + 0 > 20 ORDER BY k + 0 DESC, id DESC LIMIT 9"},
		{"SELECT id FROM s WHERE k IS NULL", "SELECT id FROM s WHERE k + 0 IS NULL ORDER BY id"},
		{"SELECT id, k FROM s WHERE k IN (-5, 1, 9, 29)", "SELECT id, k FROM s WHERE k + 0 IN (-5, 1, 9, 29) ORDER BY k, id"},
		{"SELECT id FROM s WHERE k = 5 AND c = 'ab'", "SELECT id FROM s WHERE k + 0 = 5 AND CONCAT(c) = 'ab' ORDER BY id"},
		{"SELECT id, c FROM s WHERE k = 5 AND c > 'b'", "SELECT id, c FROM s WHERE k + 0 = 5 AND CONCAT(c) > 'b' ORDER BY c, id"},
		{"SELECT id, c FROM s WHERE c = 'aB'", "SELECT id, c FROM s WHERE CONCAT(c) = 'aB' ORDER BY id"},
		{"SELECT id, c FROM s WHERE c >= 'b' AND c < 'c'", "SELECT id, c FROM s WHERE CONCAT(c) >= 'b' AND CONCAT(c) < 'c' ORDER BY c, id"},
		{"SELECT id FROM s WHERE d < 0.25", "SELECT id FROM s WHERE d + 0 < 0.25 ORDER BY d, id"},
		{"SELECT COUNT(*), SUM(k) FROM s WHERE k >= 10", "SELECT COUNT(*), SUM(k) FROM s WHERE k + 0 >= 10"},
		{"SELECT k, COUNT(*) FROM s WHERE k < 4 GROUP BY k ORDER BY k", "SELECT k, COUNT(*) FROM s WHERE k + 0 < 4 GROUP BY k ORDER BY k"},
		{"SELECT a.id, b.id FROM s a JOIN s b ON a.k = b.k WHERE a.id < -200 ORDER BY a.id, b.id",
			"SELECT a.id, b.id FROM s a JOIN s b ON a.k + 0 = b.k + 0 WHERE a.id + 0 < -200 ORDER BY a.id, b.id"},
		{"SELECT MIN(k), MAX(k) FROM s", "SELECT MIN(k + 0), MAX(k + 0) FROM s"},
	}
	check := func(stage string) {
		t.Helper()
		found := 0
		for _, s := range statements {
			got, want := f.query(s.indexed), f.query(s.scan)
			if !strings.Contains(s.indexed, "ORDER BY") && !reflect.DeepEqual(sortedRows(got), sortedRows(want)) ||
				strings.Contains(s.indexed, "ORDER BY") && fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %s:\n got %v\nwant %v (%s)", stage, s.indexed, got, want, s.scan)
			}
			found += len(got)
		}
		if found == 0 {
			t.Fatalf("%s: no statement found a row: the comparison proves nothing", stage)
		}
	}
	check("seeded")
	f.query("UPDATE s SET k = k + 1 WHERE id % 3 = 0")
	f.query("UPDATE s SET c = 'ab' WHERE k = 5")
	f.query("DELETE FROM s WHERE k BETWEEN 12 AND 14")
	check("after UPDATE and DELETE")
	f.query("UPDATE s SET k = 7 WHERE id % 5 = 0")
	f.query("INSERT INTO s VALUES (5000, 7, 'new', 0.1)")
	check("after more writes")

	for _, q := range []string{"SELECT id FROM s WHERE k = 7", "SELECT id FROM s WHERE k > 20 ORDER BY k DESC LIMIT 9",
		"SELECT id, k FROM s ORDER BY k LIMIT 40", "SELECT id, k FROM s WHERE k BETWEEN 3 AND 9 ORDER BY k", "SELECT id FROM s WHERE c = 'ab'"} {
		lookup, node := f.planLookup(q)
		if side := lookup != nil && lookup.side; !side {
			t.Errorf("%s: the plan does not read a side index:\n%s", q, sql.DebugString(f.ctx, node))
		}
	}
	engineTable, _ := f.table("s")
	indexes, err := engineTable.GetIndexes(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range indexes {
		if ix.ID() != "PRIMARY" {
			t.Errorf("the engine's table keeps index %s: its writes pay for its entries", ix.ID())
		}
	}
}

// sortedRows orders rows by their printed form, to compare results as sets.
func sortedRows(rows []sql.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r)
	}
	slices.Sort(out)
	return out
}

// TestSideIndexDefinitionsFollowTheTable runs the DDL that changes a table's indexes and checks
// SHOW INDEX (and errors with MySQL's numbers) after each statement.
func TestSideIndexDefinitionsFollowTheTable(t *testing.T) {
	f := newSideFixture(t)
	steps := []struct {
		stmt  string
		table string
		want  []string // SHOW INDEX of table after stmt
		code  int      // MySQL error number stmt fails with; 0 if it succeeds
	}{
		{"CREATE TABLE d (id INT PRIMARY KEY, a INT, b INT, c INT, u INT, KEY (a), KEY (a), KEY ab (a, b), UNIQUE KEY uu (u))", "d",
			[]string{"PRIMARY(id)", "uu(u)", "a(a)", "a_2(a)", "ab(a,b)"}, 0},
		{"INSERT INTO d VALUES (1, 1, 1, 1, 1), (2, 2, 2, 2, 2)", "d", nil, 0},
		{"CREATE INDEX c ON d (c) COMMENT 'by c'", "d", []string{"PRIMARY(id)", "uu(u)", "a(a)", "a_2(a)", "ab(a,b)", "c(c)"}, 0},
		{"CREATE INDEX c ON d (a)", "d", nil, mysql.ERDupKeyName},
		{"CREATE INDEX uu ON d (a)", "d", nil, mysql.ERDupKeyName},
		// An index the engine keeps (unique, prefix) may not take a side index's name either.
		{"CREATE UNIQUE INDEX c ON d (u)", "d", nil, mysql.ERDupKeyName},
		{"ALTER TABLE d ADD UNIQUE KEY A (b)", "d", nil, mysql.ERDupKeyName},
		{"CREATE INDEX ab ON d (a, b) USING HASH", "d", nil, mysql.ERDupKeyName},
		{"ALTER TABLE d RENAME INDEX ab TO uu", "d", nil, mysql.ERDupKeyName},
		{"ALTER TABLE d RENAME INDEX ab TO ab2", "d", []string{"PRIMARY(id)", "uu(u)", "a(a)", "a_2(a)", "ab2(a,b)", "c(c)"}, 0},
		{"ALTER TABLE d DROP INDEX a_2", "d", []string{"PRIMARY(id)", "uu(u)", "a(a)", "ab2(a,b)", "c(c)"}, 0},
		{"ALTER TABLE d DROP COLUMN b", "d", []string{"PRIMARY(id)", "uu(u)", "a(a)", "ab2(a)", "c(c)"}, 0},
		{"ALTER TABLE d RENAME COLUMN a TO aa", "d", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "c(c)"}, 0},
		{"ALTER TABLE d CHANGE COLUMN c cc BIGINT AFTER id", "d", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "c(cc)"}, 0},
		{"ALTER TABLE d MODIFY aa INT NOT NULL", "d", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "c(cc)"}, 0},
		{"ALTER TABLE d ADD COLUMN x INT, ADD INDEX ix (x), ADD INDEX (x)", "d",
			[]string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "c(cc)", "ix(x)", "x(x)"}, 0},
		{"ALTER TABLE d DROP COLUMN cc", "d", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "ix(x)", "x(x)"}, 0},
		{"CREATE TABLE d2 LIKE d", "d2", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "ix(x)", "x(x)"}, 0},
		{"RENAME TABLE d TO d3", "d3", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "ix(x)", "x(x)"}, 0},
		{"DROP TABLE d3", "d2", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "ix(x)", "x(x)"}, 0},
		{"CREATE TABLE d3 (id INT PRIMARY KEY, aa INT)", "d3", []string{"PRIMARY(id)"}, 0},
		{"ALTER TABLE d2 RENAME TO d4", "d4", []string{"PRIMARY(id)", "uu(u)", "a(aa)", "ab2(aa)", "ix(x)", "x(x)"}, 0},
		{"CREATE TABLE d2 (id INT PRIMARY KEY)", "d2", []string{"PRIMARY(id)"}, 0},
		{"CREATE DATABASE other", "d4", nil, 0},
		{"CREATE TABLE other.t (id INT PRIMARY KEY, v INT, KEY (v))", "other.t", []string{"PRIMARY(id)", "v(v)"}, 0},
		{"DROP DATABASE other", "d4", nil, 0},
		{"CREATE DATABASE other", "d4", nil, 0},
		{"CREATE TABLE other.t (id INT PRIMARY KEY, v INT)", "other.t", []string{"PRIMARY(id)"}, 0},
	}
	for _, s := range steps {
		err := f.queryErr(s.stmt)
		if s.code != 0 {
			var me *mysql.SQLError
			if err == nil || !func() bool { me = clientError(err); return true }() || me.Num != s.code {
				t.Fatalf("%s: error %v, want MySQL error %d", s.stmt, err, s.code)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", s.stmt, err)
		}
		if s.want == nil {
			continue
		}
		if got := f.indexList(s.table); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("after %s: SHOW INDEX FROM %s = %v, want %v", s.stmt, s.table, got, s.want)
		}
	}
	create := f.query("SHOW CREATE TABLE d4")[0][1].(string)
	for _, line := range []string{"KEY `a` (`aa`)", "KEY `ix` (`x`)", "UNIQUE KEY `uu` (`u`)"} {
		if !strings.Contains(create, line) {
			t.Errorf("SHOW CREATE TABLE d4 lacks %s:\n%s", line, create)
		}
	}
	f.query("INSERT INTO d4 (id, aa, u, x) VALUES (7, 2, 7, 1), (8, 3, 8, 1)")
	if got := f.query("SELECT id FROM d4 WHERE aa = 2"); len(got) != 1 || fmt.Sprint(got[0][0]) != "7" {
		t.Errorf("lookup in the renamed table's renamed column: %v", got)
	}
}

// TestSideIndexForeignKeys checks foreign keys whose parent or child index is a side index: the
// child rows are checked against the parent's rows, and ON UPDATE / ON DELETE reach the children.
func TestSideIndexForeignKeys(t *testing.T) {
	f := newSideFixture(t)
	for _, q := range []string{
		"CREATE TABLE p (id INT PRIMARY KEY, code INT, KEY (code))",
		"CREATE TABLE ch (id INT PRIMARY KEY, pcode INT, pid INT, FOREIGN KEY (pcode) REFERENCES p (code) ON DELETE CASCADE ON UPDATE CASCADE, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE SET NULL)",
		"INSERT INTO p VALUES (1, 10), (2, 20), (3, 30)",
		"INSERT INTO ch VALUES (1, 10, 1), (2, 20, 2), (3, 30, 3), (4, 30, 1)",
		"UPDATE p SET code = 11 WHERE id = 1",
		"DELETE FROM p WHERE id = 3",
	} {
		f.query(q)
	}
	if got := f.indexList("ch"); !reflect.DeepEqual(got, []string{"PRIMARY(id)", "pcode(pcode)", "pid(pid)"}) {
		t.Errorf("the indexes made for the foreign keys: %v", got)
	}
	want := []sql.Row{{int32(1), int32(11), int32(1)}, {int32(2), int32(20), int32(2)}}
	if got := f.query("SELECT * FROM ch ORDER BY id"); !reflect.DeepEqual(got, want) {
		t.Errorf("children after ON UPDATE CASCADE and ON DELETE CASCADE: %v, want %v", got, want)
	}
	f.query("DELETE FROM p WHERE id = 2")
	if got := f.query("SELECT * FROM ch ORDER BY id"); len(got) != 1 {
		t.Errorf("children after deleting parent 2: %v", got)
	}
	if err := f.queryErr("INSERT INTO ch VALUES (9, 99, NULL)"); err == nil || clientError(err).Num != mysql.ErNoReferencedRow2 {
		t.Errorf("a child without its parent: %v, want error 1452", err)
	}
	if err := f.queryErr("INSERT INTO ch VALUES (9, 11, NULL)"); err != nil {
		t.Errorf("a child of parent code 11: %v", err)
	}
}

// The registry names an unnamed index as MySQL does and keeps names unique in any case.
func TestSideIndexNames(t *testing.T) {
	s := newSideIndexes()
	for _, c := range []struct {
		name, want string
		columns    []string
		err        bool
	}{
		{"", "k", []string{"k"}, false},
		{"", "k_2", []string{"k", "c"}, false},
		{"K_3", "K_3", []string{"c"}, false},
		{"", "k_4", []string{"k"}, false},
		{"k_2", "", []string{"c"}, true},
		{"primary", "", []string{"c"}, true},
		{"", "c", []string{"c"}, false},
	} {
		got, err := s.add("Main", "T", sideIndex{name: c.name, columns: c.columns}, []string{"PRIMARY"})
		if (err != nil) != c.err || got.name != c.want {
			t.Errorf("add %q %v = %q, %v; want %q, error %v", c.name, c.columns, got.name, err, c.want, c.err)
		}
	}
	if n := len(s.of("main", "t")); n != 5 {
		t.Errorf("%d indexes recorded, want 5", n)
	}
	s.moveTable("MAIN", "t", "u")
	if len(s.of("main", "t")) != 0 || len(s.of("main", "U")) != 5 {
		t.Errorf("after the move: %v / %v", s.of("main", "t"), s.of("main", "u"))
	}
	s.dropColumn("main", "u", "K")
	if got := s.of("main", "u"); len(got) != 3 || got[0].name != "k_2" || !reflect.DeepEqual(got[0].columns, []string{"c"}) {
		t.Errorf("after dropping column k: %v", got)
	}
	// A failed statement's changes go back, under the table's new name if it renamed the table
	// (the engine renames for good).
	s.beginStatement()
	s.renameColumn("main", "u", "c", "cc")
	s.drop("main", "u", "k_2")
	s.moveTable("main", "u", "v")
	s.rollbackStatement()
	if got := s.of("main", "v"); len(got) != 3 || got[0].name != "k_2" || !reflect.DeepEqual(got[0].columns, []string{"c"}) {
		t.Errorf("after the failed statement: %v", got)
	}
	s.beginStatement()
	s.drop("main", "v", "k_2")
	s.beginStatement()
	s.rollbackStatement()
	if got := s.of("main", "v"); len(got) != 2 {
		t.Errorf("a statement that succeeded was taken back: %v", got)
	}
	s.forgetDatabase("MAIN")
	if len(s.byTable) != 0 {
		t.Errorf("after forgetting the database: %v", s.byTable)
	}
}
