package integration

import (
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// TestRenameTableIsAllOrNothing runs RENAME TABLE statements of several pairs whose last pair
// cannot be done: as in MySQL, nothing is renamed, and the foreign keys still name the tables
// they named (before, the pairs before the failing one stayed renamed, and a foreign key named
// the new name of its table). Pairs that use the names earlier pairs freed (a swap) succeed.
func TestRenameTableIsAllOrNothing(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db,
		"CREATE TABLE ra (id INT PRIMARY KEY)", "CREATE TABLE rc (id INT PRIMARY KEY)", "CREATE TABLE rd (id INT PRIMARY KEY)",
		"CREATE TABLE rk (id INT PRIMARY KEY, aid INT, CONSTRAINT rk_a FOREIGN KEY (aid) REFERENCES ra (id))",
		"CREATE VIEW rv AS SELECT 1 AS one",
		"INSERT INTO ra VALUES (1)", "INSERT INTO rc VALUES (3)", "INSERT INTO rk VALUES (1, 1)")
	want := []string{"ra", "rc", "rd", "rk", "rv"}
	for _, c := range []struct {
		stmt   string
		number uint16
		state  string
	}{
		{"RENAME TABLE ra TO rb, rc TO rd", 1050, "42S01"},   // rd exists
		{"RENAME TABLE ra TO rb, nope TO re", 1146, "42S02"}, // nope does not
		{"RENAME TABLE ra TO rb, ra TO re", 1146, "42S02"},   // the first pair took ra away
		{"RENAME TABLE rc TO rb, ra TO rv", 1050, "42S01"},   // a view has the name
		{"RENAME TABLE ra TO rb, rb TO RD", 1050, "42S01"},   // rd, in another case
		{"RENAME TABLE main.ra TO main.rb, main.rc TO system.rc", 1235, "42000"},
	} {
		wantError(t, db, c.stmt, c.number, c.state)
		if got := queryStrings(t, db, "SHOW TABLES"); !slices.Equal(got, want) {
			t.Errorf("after the failed %s: tables %q, want %q", c.stmt, got, want)
		}
		if ddl := showCreateTable(t, db, "rk"); !strings.Contains(ddl, "REFERENCES `ra`") {
			t.Errorf("after the failed %s: the foreign key of rk does not name ra:\n%s", c.stmt, ddl)
		}
	}

	mustExec(t, db, "RENAME TABLE ra TO rtmp, rc TO ra, rtmp TO rc", "RENAME TABLE main.rd TO main.re, RE TO rf")
	if got := queryStrings(t, db, "SELECT (SELECT id FROM ra), (SELECT id FROM rc)"); !slices.Equal(got, []string{"3\t1"}) {
		t.Errorf("after the swap, ra and rc hold %q, want the other's rows", got)
	}
	if got, want := queryStrings(t, db, "SHOW TABLES"), []string{"ra", "rc", "rf", "rk", "rv"}; !slices.Equal(got, want) {
		t.Errorf("after the renames: tables %q, want %q", got, want)
	}
	if ddl := showCreateTable(t, db, "rk"); !strings.Contains(ddl, "REFERENCES `rc`") {
		t.Errorf("after the swap, the foreign key of rk does not follow its table to rc:\n%s", ddl)
	}
	wantError(t, db, "DELETE FROM rc", 1451, "23000")
}

// TestAlterTableRenamesAfterItsOtherChanges runs ALTER TABLE statements that rename the table and
// change it in other ways: as in MySQL, all of it is done (before, the table was renamed and the
// statement failed with 1146, the other changes undone), or, when a part fails, none of it.
func TestAlterTableRenamesAfterItsOtherChanges(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db,
		"CREATE TABLE at1 (id INT PRIMARY KEY, x INT, KEY kx (x))",
		"CREATE TABLE ak (id INT PRIMARY KEY, aid INT, CONSTRAINT ak_a FOREIGN KEY (aid) REFERENCES at1 (id))",
		"CREATE TABLE taken (id INT PRIMARY KEY)",
		"INSERT INTO at1 VALUES (1, 5)", "INSERT INTO ak VALUES (1, 1)")

	mustExec(t, db, "ALTER TABLE at1 RENAME TO at2, ADD COLUMN c INT")
	if got := queryStrings(t, db, "SELECT id, x, c FROM at2"); !slices.Equal(got, []string{"1\t5\tNULL"}) {
		t.Errorf("at2 after ALTER TABLE at1 RENAME TO at2, ADD COLUMN c: %q", got)
	}
	mustExec(t, db, "ALTER TABLE at2 RENAME COLUMN x TO x2, RENAME AS at3, ADD INDEX kc (c)")
	if got, want := indexColumns(t, db, "at3"), []string{"PRIMARY\tid", "kc\tc", "kx\tx2"}; !slices.Equal(got, want) {
		t.Errorf("indexes of at3: %q, want %q", got, want)
	}
	if ddl := showCreateTable(t, db, "ak"); !strings.Contains(ddl, "REFERENCES `at3`") {
		t.Errorf("the foreign key of ak does not follow its table to at3:\n%s", ddl)
	}

	wantColumns := []string{"id", "x2", "c"}
	for _, c := range []struct {
		stmt   string
		number uint16
		state  string
	}{
		{"ALTER TABLE at3 ADD COLUMN d INT, RENAME TO taken", 1050, "42S01"},
		{"ALTER TABLE at3 RENAME TO at4, ADD COLUMN d INT, DROP COLUMN nope", 0, ""},
		{"ALTER TABLE at3 RENAME TO at4, ADD COLUMN d INT, RENAME TO at5", 1146, "42S02"},
		{"ALTER TABLE at3 ADD COLUMN d INT, RENAME TO system.at4", 1235, "42000"},
	} {
		if c.number == 0 {
			if _, err := db.Exec(c.stmt); err == nil {
				t.Errorf("%s: succeeded, want an error", c.stmt)
			}
		} else {
			wantError(t, db, c.stmt, c.number, c.state)
		}
		if got, want := queryStrings(t, db, "SHOW TABLES"), []string{"ak", "at3", "taken"}; !slices.Equal(got, want) {
			t.Errorf("after the failed %s: tables %q, want %q", c.stmt, got, want)
		}
		got := queryStrings(t, db, "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = 'at3' ORDER BY ordinal_position")
		if !slices.Equal(got, wantColumns) {
			t.Errorf("after the failed %s: columns of at3 %q, want %q", c.stmt, got, wantColumns)
		}
	}
}

// showCreateTable is SHOW CREATE TABLE main.table's statement.
func showCreateTable(t testing.TB, db *sql.DB, table string) string {
	t.Helper()
	var name, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE "+table).Scan(&name, &ddl); err != nil {
		t.Fatalf("SHOW CREATE TABLE %s: %v", table, err)
	}
	return ddl
}
