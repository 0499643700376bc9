package integration

import "testing"

// TestRenames holds the scripts of RENAME TABLE and ALTER TABLE ... RENAME, in main (the
// statements name it).
func TestRenames(t *testing.T) { runScripts(t, renameScripts()) }

func renameScripts() []scriptTest {
	// failedRename asserts that stmt fails with number (state) and leaves the tables and rk's
	// foreign key as they were.
	failedRename := func(stmt string, number uint16, state string) []assertion {
		return []assertion{
			{query: stmt, err: number, state: state},
			{query: "SHOW TABLES", rows: column("ra", "rc", "rd", "rk", "rv")},
			{query: "SHOW CREATE TABLE rk", contains: "REFERENCES `ra`"},
		}
	}
	// failedAlter asserts that stmt fails (with number and state, when number is not 0) and
	// changes neither the tables nor at3's columns.
	failedAlter := func(stmt string, number uint16, state string) []assertion {
		return []assertion{
			{query: stmt, err: number, state: state, fails: number == 0},
			{query: "SHOW TABLES", rows: column("ak", "at3", "taken")},
			{query: "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = 'at3' ORDER BY ordinal_position",
				rows: column("id", "x2", "c")},
		}
	}
	return []scriptTest{
		// RenameTableIsAllOrNothing runs RENAME TABLE statements of several pairs whose last pair
		// cannot be done: as in MySQL, nothing is renamed, and the foreign keys still name the
		// tables they named (before, the pairs before the failing one stayed renamed, and a
		// foreign key named the new name of its table). Pairs that use the names earlier pairs
		// freed (a swap) succeed.
		{
			name: "RenameTableIsAllOrNothing",
			main: true,
			setup: []string{
				"CREATE TABLE ra (id INT PRIMARY KEY)", "CREATE TABLE rc (id INT PRIMARY KEY)", "CREATE TABLE rd (id INT PRIMARY KEY)",
				"CREATE TABLE rk (id INT PRIMARY KEY, aid INT, CONSTRAINT rk_a FOREIGN KEY (aid) REFERENCES ra (id))",
				"CREATE VIEW rv AS SELECT 1 AS one",
				"INSERT INTO ra VALUES (1)", "INSERT INTO rc VALUES (3)", "INSERT INTO rk VALUES (1, 1)",
			},
			assertions: concat(
				failedRename("RENAME TABLE ra TO rb, rc TO rd", 1050, "42S01"),   // rd exists
				failedRename("RENAME TABLE ra TO rb, nope TO re", 1146, "42S02"), // nope does not
				failedRename("RENAME TABLE ra TO rb, ra TO re", 1146, "42S02"),   // the first pair took ra away
				failedRename("RENAME TABLE rc TO rb, ra TO rv", 1050, "42S01"),   // a view has the name
				failedRename("RENAME TABLE ra TO rb, rb TO RD", 1050, "42S01"),   // rd, in another case
				failedRename("RENAME TABLE main.ra TO main.rb, main.rc TO system.rc", 1235, "42000"),
				[]assertion{
					{query: "RENAME TABLE ra TO rtmp, rc TO ra, rtmp TO rc"},
					{query: "RENAME TABLE main.rd TO main.re, RE TO rf"},
					// After the swap, ra and rc hold the other's rows.
					{query: "SELECT (SELECT id FROM ra), (SELECT id FROM rc)", rows: tsv("3\t1")},
					{query: "SHOW TABLES", rows: column("ra", "rc", "rf", "rk", "rv")},
					// The foreign key of rk follows its table to rc.
					{query: "SHOW CREATE TABLE rk", contains: "REFERENCES `rc`"},
					{query: "DELETE FROM rc", err: 1451, state: "23000"},
				}),
		},

		// AlterTableRenamesAfterItsOtherChanges runs ALTER TABLE statements that rename the table
		// and change it in other ways: as in MySQL, all of it is done (before, the table was
		// renamed and the statement failed with 1146, the other changes undone), or, when a part
		// fails, none of it.
		{
			name: "AlterTableRenamesAfterItsOtherChanges",
			main: true,
			setup: []string{
				"CREATE TABLE at1 (id INT PRIMARY KEY, x INT, KEY kx (x))",
				"CREATE TABLE ak (id INT PRIMARY KEY, aid INT, CONSTRAINT ak_a FOREIGN KEY (aid) REFERENCES at1 (id))",
				"CREATE TABLE taken (id INT PRIMARY KEY)",
				"INSERT INTO at1 VALUES (1, 5)", "INSERT INTO ak VALUES (1, 1)",
			},
			assertions: concat(
				[]assertion{
					{query: "ALTER TABLE at1 RENAME TO at2, ADD COLUMN c INT"},
					{query: "SELECT id, x, c FROM at2", rows: tsv("1\t5\tNULL")},
					{query: "ALTER TABLE at2 RENAME COLUMN x TO x2, RENAME AS at3, ADD INDEX kc (c)"},
					{query: "SELECT index_name, GROUP_CONCAT(column_name ORDER BY seq_in_index) FROM information_schema.statistics " +
						"WHERE table_schema = 'main' AND table_name = 'at3' GROUP BY index_name ORDER BY BINARY index_name",
						rows: tsv("PRIMARY\tid", "kc\tc", "kx\tx2")},
					// The foreign key of ak follows its table to at3.
					{query: "SHOW CREATE TABLE ak", contains: "REFERENCES `at3`"},
				},
				failedAlter("ALTER TABLE at3 ADD COLUMN d INT, RENAME TO taken", 1050, "42S01"),
				failedAlter("ALTER TABLE at3 RENAME TO at4, ADD COLUMN d INT, DROP COLUMN nope", 0, ""),
				failedAlter("ALTER TABLE at3 RENAME TO at4, ADD COLUMN d INT, RENAME TO at5", 1146, "42S02"),
				failedAlter("ALTER TABLE at3 ADD COLUMN d INT, RENAME TO system.at4", 1235, "42000"),
			),
		},
	}
}
