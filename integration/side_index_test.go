package integration

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSecondaryIndexesThroughTheServer checks lookups in a plain secondary index (kept beside
// the engine's storage) through the real server: through a server-side prepared statement, from
// a writing transaction that sees its own changes while another connection sees the committed
// rows, after ROLLBACK and after a commit, and after the indexed column is renamed.
func TestSecondaryIndexesThroughTheServer(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	ctx := context.Background()
	const rows = 400
	loadKeyedTable(t, db, "si", rows, 17)
	idsWith := func(k int) []string {
		var out []string
		for id := 1; id <= rows; id++ {
			if id%17 == k {
				out = append(out, fmt.Sprint(id))
			}
		}
		return out
	}
	writer, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	reader, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	byK, err := reader.PrepareContext(ctx, "SELECT id FROM si WHERE k = ? ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer byK.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := writer.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	expect := func(stage string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", stage, got, want)
		}
	}

	expect("loaded, k = 3", stmtStrings(t, byK, 3), idsWith(3))
	if plan := strings.Join(queryStrings(t, reader, "EXPLAIN PLAN SELECT id FROM si WHERE k = 3"), "\n"); !strings.Contains(plan, "index: [si.k]") {
		t.Errorf("the lookup by k does not use index k_1:\n%s", plan)
	}
	exec("START TRANSACTION")
	exec("UPDATE si SET k = 99 WHERE k = 3")
	expect("the writer, inside its transaction, k = 99", queryStrings(t, writer, "SELECT id FROM si WHERE k = 99 ORDER BY id"), idsWith(3))
	expect("the writer, inside its transaction, k = 3", queryStrings(t, writer, "SELECT id FROM si WHERE k = 3"), nil)
	expect("another connection meanwhile, k = 3", stmtStrings(t, byK, 3), idsWith(3))
	expect("another connection meanwhile, k = 99", stmtStrings(t, byK, 99), nil)
	exec("ROLLBACK")
	expect("after ROLLBACK, k = 3", stmtStrings(t, byK, 3), idsWith(3))
	expect("after ROLLBACK, the writer, k = 99", queryStrings(t, writer, "SELECT id FROM si WHERE k = 99"), nil)

	exec("UPDATE si SET k = 98 WHERE id = 5")
	exec("DELETE FROM si WHERE k = 4")
	expect("after a committed UPDATE", stmtStrings(t, byK, 98), []string{"5"})
	expect("after a committed DELETE", stmtStrings(t, byK, 4), nil)

	exec("ALTER TABLE si RENAME COLUMN k TO kk")
	if got := queryStrings(t, reader, "SELECT index_name, column_name FROM information_schema.statistics WHERE table_name = 'si' AND index_name = 'k_1'"); !slices.Equal(got, []string{"k_1\tkk"}) {
		t.Errorf("information_schema.statistics after the rename: %q", got)
	}
	expect("after the rename, kk = 3", queryStrings(t, reader, "SELECT id FROM si WHERE kk = 3 ORDER BY id"), idsWith(3))
}

// TestSideIndexesStayWhenAnAlterFails runs ALTER TABLE statements in autocommit mode that change
// a table's plain indexes (or the columns they are on) and then fail in a later part: the engine
// drops the statement's changes to the columns, and the indexes must stay as they were, as in
// MySQL (before, a failed rename of a column left its index on the new name, hidden from SHOW
// INDEX and still holding its name; a failed DROP COLUMN took the column out of its indexes).
func TestSideIndexesStayWhenAnAlterFails(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db,
		"CREATE TABLE sf (id INT PRIMARY KEY, k INT, c INT, x INT, s VARCHAR(5), KEY kk (k), KEY kcx (c, x))",
		"INSERT INTO sf VALUES (1, 1, 1, 5, 'a'), (2, 2, 2, 5, 'b')")
	indexes := func() []string { return indexColumns(t, db, "sf") }
	want := []string{"PRIMARY\tid", "kcx\tc,x", "kk\tk"}
	for _, stmt := range []string{
		"ALTER TABLE sf RENAME COLUMN k TO k2, ADD UNIQUE KEY ux (x)", // x has duplicates
		"ALTER TABLE sf DROP COLUMN c, ADD UNIQUE KEY ux (x)",
		"ALTER TABLE sf DROP INDEX kk, ADD UNIQUE KEY ux (x)",
		"ALTER TABLE sf ADD INDEX kn (s), MODIFY s INT", // 'a' is no INT
		"ALTER TABLE sf CHANGE c c3 BIGINT, MODIFY s INT",
	} {
		if _, err := db.Exec(stmt); err == nil {
			t.Fatalf("%s: succeeded, want an error", stmt)
		}
		if got := indexes(); !slices.Equal(got, want) {
			t.Errorf("after the failed %s: indexes %q, want %q", stmt, got, want)
		}
	}
	if got := queryStrings(t, db, "SELECT id FROM sf WHERE k = 2 AND c = 2 AND x = 5"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("lookup after the failed statements: %q", got)
	}
	wantError(t, db, "CREATE INDEX kk ON sf (x)", 1061, "42000")
	wantError(t, db, "CREATE TABLE sg (id INT PRIMARY KEY, a INT, KEY k (a), UNIQUE k (a))", 1061, "42000")
	mustExec(t, db, "ALTER TABLE sf RENAME COLUMN k TO k2, DROP COLUMN c")
	if got, want := indexes(), []string{"PRIMARY\tid", "kcx\tx", "kk\tk2"}; !slices.Equal(got, want) {
		t.Errorf("after a successful ALTER: indexes %q, want %q", got, want)
	}
}

// TestDDLCommitsImplicitly: as in MySQL, DDL inside a transaction commits what the transaction
// wrote before it, whether the DDL then succeeds or fails, and a failed DDL leaves nothing of
// itself behind (not in the table, not in its indexes); what follows a DDL starts a new
// transaction, which ROLLBACK undoes. Before, the engine ran the DDL inside the transaction: a
// ROLLBACK after it (or a disconnect) took back the rows written before it, and a failed ALTER
// left its half-done column changes for the next COMMIT, while a plain index lost its column.
func TestDDLCommitsImplicitly(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE ic (id INT PRIMARY KEY, k INT, d INT DEFAULT 0, KEY kk (k))")
	conn := session(t, db)
	rows := func() []string { return queryStrings(t, db, "SELECT id FROM ic ORDER BY id") }
	indexes := func() []string { return indexColumns(t, db, "ic") }

	mustExec(t, conn, "BEGIN", "INSERT INTO ic VALUES (1, 1, 0), (2, 2, 0)")
	if _, err := conn.ExecContext(context.Background(), "ALTER TABLE ic RENAME COLUMN k TO k2, ADD UNIQUE KEY ud (d)"); err == nil {
		t.Fatal("the ALTER that adds a unique key over duplicates succeeded")
	}
	mustExec(t, conn, "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("rows written before a failed ALTER, after ROLLBACK: %q, want 1 and 2 (committed by the ALTER)", got)
	}
	if got, want := indexes(), []string{"PRIMARY\tid", "kk\tk"}; !slices.Equal(got, want) {
		t.Errorf("indexes after the failed ALTER: %q, want %q", got, want)
	}
	if got := queryStrings(t, db, "SELECT id FROM ic WHERE k = 2"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("column k after the failed ALTER: %q", got)
	}

	mustExec(t, conn, "SET autocommit = 0", "INSERT INTO ic VALUES (3, 3, 3)", "ALTER TABLE ic ADD COLUMN e INT",
		"INSERT INTO ic VALUES (4, 4, 4, 4)", "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("with autocommit off, after INSERT, ALTER, INSERT, ROLLBACK: %q, want 1, 2 and 3", got)
	}
	mustExec(t, conn, "INSERT INTO ic VALUES (5, 5, 5, 5)", "CREATE INDEX ke ON ic (e)", "ROLLBACK", "SET autocommit = 1")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3", "5"}) {
		t.Errorf("after INSERT, CREATE INDEX, ROLLBACK: %q, want 5 kept", got)
	}
	if got, want := indexes(), []string{"PRIMARY\tid", "ke\te", "kk\tk"}; !slices.Equal(got, want) {
		t.Errorf("indexes: %q, want %q", got, want)
	}
	// DDL behind an empty version comment commits as the same DDL without it.
	mustExec(t, conn, "BEGIN", "INSERT INTO ic VALUES (6, 6, 6, 6)")
	if _, err := conn.ExecContext(context.Background(), "/*!50000 */ ALTER TABLE ic ADD UNIQUE KEY ud (d)"); err == nil {
		t.Fatal("the ALTER that adds a unique key over duplicates succeeded")
	}
	mustExec(t, conn, "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3", "5", "6"}) {
		t.Errorf("after INSERT, a failed /*!50000 */ ALTER, ROLLBACK: %q, want 6 kept", got)
	}
	wantNoWriteLockHolder(t, db, "after the transactions ended")
}

// TestPreparedDDLCommitsImplicitly: EXECUTE of a statement prepared with PREPARE commits
// implicitly when that statement does, as the statement itself would (TestDDLCommitsImplicitly).
// Before, the prepared ALTER ran inside the open transaction: when it failed, the transaction
// kept its half-done changes and the side indexes their new definitions (index kk on k2, gone
// from SHOW INDEX), and the rows written before it went with the transaction's rollback.
func TestPreparedDDLCommitsImplicitly(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE pc (id INT PRIMARY KEY, k INT, d INT DEFAULT 0, KEY kk (k))")
	conn := session(t, db)
	rows := func() []string { return queryStrings(t, db, "SELECT id FROM pc ORDER BY id") }
	indexes := func() []string { return indexColumns(t, db, "pc") }

	mustExec(t, conn, "PREPARE failing FROM 'ALTER TABLE pc RENAME COLUMN k TO k2, ADD UNIQUE KEY ud (d)'",
		"BEGIN", "INSERT INTO pc VALUES (1, 1, 0), (2, 2, 0)")
	if _, err := conn.ExecContext(context.Background(), "EXECUTE failing"); err == nil {
		t.Fatal("the prepared ALTER that adds a unique key over duplicates succeeded")
	}
	mustExec(t, conn, "ROLLBACK")
	if got := rows(); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("rows written before a failed EXECUTE of an ALTER, after ROLLBACK: %q, want 1 and 2 (committed by it)", got)
	}
	if got, want := indexes(), []string{"PRIMARY\tid", "kk\tk"}; !slices.Equal(got, want) {
		t.Errorf("indexes after the failed EXECUTE: %q, want %q", got, want)
	}

	mustExec(t, conn, "SET @add = 'ALTER TABLE pc ADD COLUMN e INT'", "PREPARE adding FROM @add",
		"SET autocommit = 0", "INSERT INTO pc VALUES (3, 3, 3)", "EXECUTE adding",
		"INSERT INTO pc VALUES (4, 4, 4, 4)", "ROLLBACK", "SET autocommit = 1")
	if got := rows(); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("with autocommit off, after INSERT, EXECUTE of an ALTER, INSERT, ROLLBACK: %q, want 1, 2 and 3", got)
	}
	wantNoWriteLockHolder(t, db, "after the transactions ended")
}

// TestDDLThatDoesNotParseCommitsNothing: as in MySQL, where a syntax error ends the statement
// before its implicit commit, DDL the server cannot parse leaves the open transaction as it was
// (a ROLLBACK after it takes back the rows written before it). Before, the server committed the
// transaction on the statement's first word.
func TestDDLThatDoesNotParseCommitsNothing(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE sx (id INT PRIMARY KEY)")
	conn := session(t, db)
	for _, stmt := range []string{
		"ALTER TABLE sx ADD COLUMN",
		"CREATE INDEX ON sx (id)",
		"OPTIMIZE TABLE sx", // not in the engine's grammar
	} {
		mustExec(t, conn, "BEGIN", "INSERT INTO sx VALUES (1)")
		if _, err := conn.ExecContext(context.Background(), stmt); err == nil {
			t.Fatalf("%s: succeeded, want a syntax error", stmt)
		}
		mustExec(t, conn, "ROLLBACK")
		if got := queryStrings(t, db, "SELECT id FROM sx"); len(got) != 0 {
			t.Errorf("BEGIN, INSERT, %s (a syntax error), ROLLBACK: rows %q, want none", stmt, got)
			mustExec(t, db, "DELETE FROM sx")
		}
	}
	mustExec(t, conn, "BEGIN", "INSERT INTO sx VALUES (2)", "ALTER TABLE sx ADD COLUMN c INT", "ROLLBACK")
	if got := queryStrings(t, db, "SELECT id FROM sx"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("BEGIN, INSERT, ALTER that parses, ROLLBACK: rows %q, want 2 (committed by the ALTER)", got)
	}
}

// indexColumns is each index of main.table as "name\tcolumn,column" (its columns in index order),
// sorted, as information_schema.STATISTICS shows them.
func indexColumns(t testing.TB, db *sql.DB, table string) []string {
	t.Helper()
	got := queryStrings(t, db, "SELECT index_name, GROUP_CONCAT(column_name ORDER BY seq_in_index) FROM information_schema.statistics "+
		"WHERE table_schema = 'main' AND table_name = ? GROUP BY index_name", table)
	slices.Sort(got)
	return got
}

// wantNoWriteLockHolder fails the test when a connection holds the write lock; when says at what
// point of the test.
func wantNoWriteLockHolder(t *testing.T, db *sql.DB, when string) {
	t.Helper()
	if got := gauge(t, db, "WriteLockHolder"); got != "0" {
		t.Errorf("WriteLockHolder = %s %s, want 0", got, when)
	}
}

// TestDropTemporaryTableLeavesPermanentTables: the server keeps no temporary tables, so DROP
// TEMPORARY TABLE never drops a table, as in MySQL when no temporary table has the name: 1051.
// The engine's tables did not say whether they were temporary, and it dropped the permanent
// table, from a client, a prepared statement and a procedure alike.
func TestDropTemporaryTableLeavesPermanentTables(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kept (id INT PRIMARY KEY)", "INSERT INTO kept VALUES (1), (2)",
		"CREATE PROCEDURE drop_kept() DROP TEMPORARY TABLE kept")
	wantError(t, db, "DROP TEMPORARY TABLE kept", 1051, "42S02")
	wantError(t, db, "DROP TEMPORARY TABLE IF EXISTS kept", 1051, "42S02")
	wantError(t, db, "CALL drop_kept()", 1051, "42S02")
	wantError(t, db, "PREPARE d FROM 'DROP TEMPORARY TABLE main.kept'", 1051, "42S02")
	if got := queryStrings(t, db, "SELECT id FROM kept ORDER BY id"); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("rows of the permanent table after DROP TEMPORARY TABLE: %q", got)
	}
	mustExec(t, db, "DROP TABLE kept")
}

// TestForeignKeyDDL holds the scripts of schema changes that foreign keys constrain.
func TestForeignKeyDDL(t *testing.T) { runScripts(t, foreignKeyDDLScripts()) }

func foreignKeyDDLScripts() []scriptTest {
	const badCreate = "CREATE TABLE fc (id INT PRIMARY KEY, p VARCHAR(5), KEY kp (p), FOREIGN KEY (p) REFERENCES fp (id))"
	var neededIndexes []assertion
	for _, stmt := range []string{
		"ALTER TABLE ic DROP INDEX k",
		"DROP INDEX k ON ic",
		"ALTER TABLE ic ADD COLUMN y INT, DROP KEY k",
		"ALTER TABLE ic DROP INDEX ic_c", // the index CREATE TABLE made for the foreign key
		"ALTER TABLE ip DROP INDEX uc",
		"ALTER TABLE ip DROP INDEX `PRIMARY`",
		"ALTER TABLE ip DROP PRIMARY KEY",
		"ALTER TABLE ie DROP PRIMARY KEY", // the declaring table's key serves its foreign key
	} {
		neededIndexes = append(neededIndexes, assertion{query: stmt, err: 1553, state: "HY000", message: "*': needed in a foreign key constraint"})
	}
	return []scriptTest{
		// FailedCreateTableLeavesNoTable: a CREATE TABLE that fails (here on a foreign key whose
		// column does not fit the referenced one) leaves no table behind, as in MySQL, also inside
		// a transaction; the engine puts a new table in the database before it adds the foreign
		// keys, and the table stayed, so the fixed statement then failed with "table already
		// exists".
		{
			name:  "FailedCreateTableLeavesNoTable",
			setup: []string{"CREATE TABLE fp (id INT PRIMARY KEY)", "CREATE TABLE fl (id INT PRIMARY KEY)"},
			assertions: []assertion{
				// A foreign key from VARCHAR to INT.
				{query: badCreate, fails: true},
				{query: "SHOW TABLES", rows: column("fl", "fp")},
				{query: "BEGIN"},
				{query: "INSERT INTO fl VALUES (1)"},
				{query: badCreate, fails: true},
				{query: "ROLLBACK"},
				{query: "SHOW TABLES", rows: column("fl", "fp")},
				// The row written before the failed CREATE TABLE was committed.
				{query: "SELECT id FROM fl", rows: column("1")},
				{query: "CREATE TABLE fc (id INT PRIMARY KEY, p INT, KEY kp (p), FOREIGN KEY (p) REFERENCES fp (id))"},
				{query: "SELECT index_name FROM information_schema.statistics WHERE table_name = 'fc' ORDER BY index_name", rows: column("kp", "PRIMARY")},
			},
		},

		// ForeignKeyColumnsCannotBeDropped: as in MySQL, a column that a foreign key uses cannot be
		// dropped, on either side: 1828 in the table that declares it, 1829 in the table it
		// references. The engine refused the first with 1105 and allowed the second, leaving the
		// foreign key naming a column that was gone: every later DELETE from the referenced table
		// failed.
		{
			name: "ForeignKeyColumnsCannotBeDropped",
			setup: []string{
				"CREATE TABLE kp (id INT PRIMARY KEY, code INT, note INT, KEY (code))",
				"CREATE TABLE kc (id INT PRIMARY KEY, pcode INT, CONSTRAINT g FOREIGN KEY (pcode) REFERENCES kp (code))",
				"INSERT INTO kp VALUES (1, 10, 0), (2, 20, 0)", "INSERT INTO kc VALUES (1, 10)",
			},
			assertions: []assertion{
				{query: "ALTER TABLE kc DROP COLUMN pcode", err: 1828, state: "HY000"},
				{query: "ALTER TABLE kp DROP COLUMN code", err: 1829, state: "HY000"},
				{query: "ALTER TABLE kp DROP COLUMN note"},
				{query: "DELETE FROM kp WHERE id = 2"},
				{query: "SELECT id, code FROM kp", rows: tsv("1\t10")},
				{query: "DELETE FROM kp WHERE id = 1", err: 1451, state: "23000"},
			},
		},

		// DropIndexNeededByForeignKey drops indexes that foreign keys need, in the declaring and
		// in the referenced table: MySQL's 1553 (before, 1105 with the engine's words, and DROP
		// PRIMARY KEY succeeded and left the foreign keys without an index: a child row whose
		// parent existed could no longer be inserted); an index is dropped once another one
		// serves the foreign key.
		{
			name: "DropIndexNeededByForeignKey",
			setup: []string{
				"CREATE TABLE ip (id INT PRIMARY KEY, code INT, UNIQUE KEY uc (code))",
				"CREATE TABLE ic (id INT PRIMARY KEY, pid INT, pcode INT, x INT, KEY k (pid), " +
					"CONSTRAINT ic_p FOREIGN KEY (pid) REFERENCES ip (id), CONSTRAINT ic_c FOREIGN KEY (pcode) REFERENCES ip (code))",
				"CREATE TABLE ie (pid INT PRIMARY KEY, CONSTRAINT ie_p FOREIGN KEY (pid) REFERENCES ip (id))",
				"INSERT INTO ip VALUES (1, 10), (2, 20)",
			},
			assertions: append(neededIndexes,
				assertion{query: "INSERT INTO ic VALUES (1, 1, 10, 0)"},
				assertion{query: "INSERT INTO ie VALUES (2)"},
				assertion{query: "ALTER TABLE ic ADD INDEX k2 (pid, x)"},
				assertion{query: "DROP INDEX k ON ic"},
				assertion{query: "ALTER TABLE ie ADD UNIQUE KEY up (pid)"},
				assertion{query: "ALTER TABLE ie DROP PRIMARY KEY"},
				assertion{query: "INSERT INTO ic VALUES (2, 3, NULL, 0)", err: 1452, state: "23000"}),
		},
	}
}
