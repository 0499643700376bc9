package integration

import (
	"fmt"
	"strings"
	"testing"
)

// TestBounds holds the scripts of the bounds on what one statement may ask of the engine,
// each run by the non-admin app: an ordinary user meets them.
func TestBounds(t *testing.T) { runScripts(t, boundScripts()) }

func boundScripts() []scriptTest {
	return []scriptTest{indexesPerTable(), foreignKeysPerTable(), longRowComparisons(), longInLists()}
}

// listOf joins n copies of clause, each formatted with from+i.
func listOf(from, n int, clause string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(clause, from+i)
	}
	return strings.Join(parts, ", ")
}

// indexesPerTable is IndexesPerTableAreBounded: the engine created a CREATE TABLE's indexes
// one by one and looked through all of them after each, deaf to KILL QUERY and to the client
// leaving: 8000 index definitions (150 KB) ran 24 s and the table was created after its client
// had gone. A table now has at most MySQL's 64 secondary indexes (1069), by CREATE TABLE,
// CREATE INDEX or ALTER TABLE ... ADD INDEX.
func indexesPerTable() scriptTest {
	return scriptTest{
		name: "IndexesPerTableAreBounded",
		app:  true,
		assertions: []assertion{
			{query: "CREATE TABLE wide (id INT PRIMARY KEY, a INT, " + listOf(0, 8000, "INDEX i%d (a)") + ")", err: 1069},
			{query: "CREATE TABLE t65 (id INT PRIMARY KEY, a INT, " + listOf(0, 65, "INDEX i%d (a)") + ")", err: 1069},
			{query: "CREATE TABLE t64 (id INT PRIMARY KEY, a INT, b INT, UNIQUE KEY u (b), " + listOf(0, 62, "INDEX i%d (a)") + ")"},
			{query: "CREATE INDEX last ON t64 (a)"},
			{query: "CREATE INDEX more ON t64 (a)", err: 1069},
			{query: "ALTER TABLE t64 ADD INDEX more (a)", err: 1069},
			{query: "CREATE TABLE t (id INT PRIMARY KEY, a INT)"},
			{query: "ALTER TABLE t " + listOf(0, 65, "ADD INDEX i%d (a)"), err: 1069},
			{query: "ALTER TABLE t " + listOf(0, 64, "ADD INDEX i%d (a)")},
			// The refused tables do not exist.
			{query: "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name IN ('wide', 't65')", rows: column("0")},
		},
	}
}

// foreignKeysPerTable is ForeignKeysPerTableAreBounded: for a DELETE or UPDATE of a parent
// table the engine planned, for each foreign key of a child referring to it, the checks of all
// the child's foreign keys, deaf to KILL QUERY: a non-admin's table of 3000 foreign keys to
// another table made every DELETE of that table run for minutes. A table now declares at most
// 64 foreign keys (1235).
func foreignKeysPerTable() scriptTest {
	const fk = "CONSTRAINT f%d FOREIGN KEY (a) REFERENCES parent (id)"
	return scriptTest{
		name:  "ForeignKeysPerTableAreBounded",
		app:   true,
		setup: []string{"CREATE TABLE parent (id INT PRIMARY KEY)", "INSERT INTO parent VALUES (1), (2)"},
		assertions: []assertion{
			{query: "CREATE TABLE many (id INT PRIMARY KEY, a INT, INDEX (a), " + listOf(0, 3000, fk) + ")", err: 1235},
			{query: "CREATE TABLE c65 (id INT PRIMARY KEY, a INT, INDEX (a), " + listOf(0, 65, fk) + ")", err: 1235},
			{query: "CREATE TABLE c63 (id INT PRIMARY KEY, a INT, INDEX (a), " + listOf(100, 63, fk) + ")"},
			{query: "ALTER TABLE c63 ADD CONSTRAINT g1 FOREIGN KEY (a) REFERENCES parent (id)"},
			{query: "ALTER TABLE c63 ADD CONSTRAINT g2 FOREIGN KEY (a) REFERENCES parent (id)", err: 1235},
			{query: "CREATE TABLE c0 (id INT PRIMARY KEY, a INT, INDEX (a))"},
			{query: "ALTER TABLE c0 " + listOf(200, 65, "ADD "+fk), err: 1235},
			{query: "ALTER TABLE c0 " + listOf(200, 64, "ADD "+fk)},
			{query: "DELETE FROM parent WHERE id = 2"},
		},
	}
}
