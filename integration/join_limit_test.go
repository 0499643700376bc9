package integration

import (
	"fmt"
	"strings"
)

// tooManyTablesScript is TooManyTablesInAJoin: MySQL refuses a query block that joins more
// than 61 tables with error 1116 (HY000), and runs a statement whose tables are spread over
// query blocks of at most 61 each. The engine planned any join of up to 64 relations and
// answered more with 1105 "internal error: cannot insert 64 into bitSet", also when it turned
// IN and EXISTS subqueries into joins with the tables around them (40 tables WHERE EXISTS (40
// tables) failed).
func tooManyTablesScript() scriptTest {
	var setup []string
	for i := range 80 {
		setup = append(setup, fmt.Sprintf("CREATE TABLE j%d (id INT PRIMARY KEY, v INT)", i),
			fmt.Sprintf("INSERT INTO j%d VALUES (1, %d)", i, i))
	}
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
	setup = append(setup,
		"CREATE VIEW va AS SELECT j0.v FROM "+tables(0, 39),
		"CREATE VIEW vb AS SELECT j40.v FROM "+tables(40, 79),
		"CREATE TABLE sink (v INT)")

	one := column("1")
	assertions := []assertion{
		{query: "SELECT COUNT(*) FROM " + tables(0, 60), rows: one},
		{query: "SELECT COUNT(*) FROM " + joined(61), rows: one},
		{query: "SELECT COUNT(*) FROM va, vb", rows: one},
		{query: "SELECT COUNT(*) FROM va, " + tables(40, 79), rows: one},
		{query: "SELECT COUNT(*) FROM (SELECT j0.v FROM " + tables(0, 39) + ") x, (SELECT j40.v FROM " + tables(40, 79) + ") y", rows: one},
		{query: "WITH c AS (SELECT j0.v FROM " + tables(0, 39) + ") SELECT COUNT(*) FROM c x, c y, c z", rows: one},
		{query: "SELECT COUNT(*) FROM " + tables(0, 39) + " WHERE EXISTS (SELECT 1 FROM " + tables(40, 79) + " WHERE j40.id = j0.id)", rows: one},
		{query: "SELECT COUNT(*) FROM " + tables(0, 39) + " WHERE NOT EXISTS (SELECT 1 FROM " + tables(40, 79) + " WHERE j40.id = 2)", rows: one},
		{query: "SELECT COUNT(*) FROM " + tables(0, 39) + " WHERE j0.id IN (SELECT j40.id FROM " + tables(40, 79) + ")", rows: one},
		{query: "SELECT COUNT(*) FROM " + tables(0, 60) + " WHERE j0.id IN (SELECT id FROM j61)", rows: one},
		{query: "SELECT COUNT(*), (SELECT COUNT(*) FROM " + tables(19, 79) + ") FROM " + tables(0, 60), rows: tsv("1\t1")},
		{query: "SELECT COUNT(*) FROM " + tables(0, 60) + " UNION ALL SELECT COUNT(*) FROM " + tables(19, 79), rows: column("1", "1")},
		{query: "INSERT INTO sink SELECT j0.v FROM " + tables(0, 60)},
	}
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
		assertions = append(assertions, assertion{query: q, err: 1116, state: "HY000", message: "Too many tables; MySQL can only use 61 tables in a join"})
	}
	assertions = append(assertions,
		// The refused INSERT ... SELECT stored no row, the refused UPDATEs changed nothing.
		assertion{query: "SELECT COUNT(*) FROM sink", rows: one},
		assertion{query: "SELECT v FROM j0", rows: column("0")})
	return scriptTest{name: "TooManyTablesInAJoin", setup: setup, assertions: assertions}
}
