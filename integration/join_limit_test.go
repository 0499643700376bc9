package integration

import (
	"fmt"
	"strings"
	"testing"
)

// TestTooManyTablesInAJoin: MySQL refuses a query block that joins more than 61 tables with
// error 1116 (HY000), and runs a statement whose tables are spread over query blocks of at most
// 61 each. The engine planned any join of up to 64 relations and answered more with 1105
// "internal error: cannot insert 64 into bitSet", also when it turned IN and EXISTS subqueries
// into joins with the tables around them (40 tables WHERE EXISTS (40 tables) failed).
func TestTooManyTablesInAJoin(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	var create []string
	for i := range 80 {
		create = append(create, fmt.Sprintf("CREATE TABLE j%d (id INT PRIMARY KEY, v INT)", i),
			fmt.Sprintf("INSERT INTO j%d VALUES (1, %d)", i, i))
	}
	mustExec(t, db, create...)
	// tables lists j<from> ... j<to> for a FROM clause.
	tables := func(from, to int) string {
		var names []string
		for i := from; i <= to; i++ {
			names = append(names, fmt.Sprintf("j%d", i))
		}
		return strings.Join(names, ", ")
	}
	joined := func(n int) string {
		q := "j0"
		for i := 1; i < n; i++ {
			q += fmt.Sprintf(" JOIN j%d ON j%d.id = j0.id", i, i)
		}
		return q
	}
	mustExec(t, db,
		"CREATE VIEW va AS SELECT j0.v FROM "+tables(0, 39),
		"CREATE VIEW vb AS SELECT j40.v FROM "+tables(40, 79),
		"CREATE TABLE sink (v INT)")

	for _, q := range []string{
		"SELECT COUNT(*) FROM " + tables(0, 60),
		"SELECT COUNT(*) FROM " + joined(61),
		"SELECT COUNT(*) FROM va, vb",
		"SELECT COUNT(*) FROM va, " + tables(40, 79),
		"SELECT COUNT(*) FROM (SELECT j0.v FROM " + tables(0, 39) + ") x, (SELECT j40.v FROM " + tables(40, 79) + ") y",
		"WITH c AS (SELECT j0.v FROM " + tables(0, 39) + ") SELECT COUNT(*) FROM c x, c y, c z",
		"SELECT COUNT(*) FROM " + tables(0, 39) + " WHERE EXISTS (SELECT 1 FROM " + tables(40, 79) + " WHERE j40.id = j0.id)",
		"SELECT COUNT(*) FROM " + tables(0, 39) + " WHERE NOT EXISTS (SELECT 1 FROM " + tables(40, 79) + " WHERE j40.id = 2)",
		"SELECT COUNT(*) FROM " + tables(0, 39) + " WHERE j0.id IN (SELECT j40.id FROM " + tables(40, 79) + ")",
		"SELECT COUNT(*) FROM " + tables(0, 60) + " WHERE j0.id IN (SELECT id FROM j61)",
		"SELECT COUNT(*), (SELECT COUNT(*) FROM " + tables(19, 79) + ") FROM " + tables(0, 60),
		"SELECT COUNT(*) FROM " + tables(0, 60) + " UNION ALL SELECT COUNT(*) FROM " + tables(19, 79),
	} {
		for _, row := range queryStrings(t, db, q) {
			if !strings.HasPrefix(row, "1") {
				t.Errorf("%.80s...: %q, want 1", q, row)
			}
		}
	}
	mustExec(t, db, "INSERT INTO sink SELECT j0.v FROM "+tables(0, 60))

	for _, q := range []string{
		"SELECT COUNT(*) FROM " + tables(0, 61),
		"SELECT COUNT(*) FROM " + joined(62),
		"SELECT COUNT(*) FROM " + tables(0, 79),
		"SELECT COUNT(*) FROM va, " + tables(0, 60),
		"SELECT (SELECT COUNT(*) FROM " + tables(0, 61) + ")",
		"SELECT * FROM (SELECT COUNT(*) FROM " + tables(0, 61) + ") x",
		"SELECT 1 FROM j0 WHERE id IN (SELECT j0.id FROM " + tables(0, 61) + ")",
		"SELECT 1 UNION SELECT COUNT(*) FROM " + tables(0, 61),
		"CREATE VIEW v62 AS SELECT j0.v FROM " + tables(0, 61),
		"INSERT INTO sink SELECT j0.v FROM " + tables(0, 61),
		"CREATE TABLE t62 AS SELECT j0.v FROM " + tables(0, 61),
		"UPDATE " + tables(0, 61) + " SET j0.v = 7",
		"DELETE j0 FROM " + tables(0, 61),
		"UPDATE j0 SET v = 7 WHERE id IN (SELECT j0.id FROM " + tables(0, 61) + ")",
		"EXPLAIN PLAN SELECT 1 FROM " + tables(0, 61),
	} {
		_, err := db.Exec(q)
		if err == nil {
			t.Errorf("%.80s... (62 or more tables in one join) succeeded, want error 1116", q)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1116 || string(me.SQLState[:]) != "HY000" ||
			me.Message != "Too many tables; MySQL can only use 61 tables in a join" {
			t.Errorf("%.80s...: %d (%s) %s, want 1116 (HY000) Too many tables; MySQL can only use 61 tables in a join",
				q, me.Number, string(me.SQLState[:]), me.Message)
		}
	}
	if got := oneValue(t, db, "SELECT COUNT(*) FROM sink"); got != "1" {
		t.Errorf("sink holds %s rows, want 1 (the refused INSERT ... SELECT stored rows)", got)
	}
	if got := oneValue(t, db, "SELECT v FROM j0"); got != "0" {
		t.Errorf("j0.v = %s, want 0 (a refused UPDATE changed it)", got)
	}
}
