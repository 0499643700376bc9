package integration

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// These tests check what a MySQL client sees against MySQL 8's behaviour: indexes, status
// flags, collation, error numbers, identity and the authentication exchange.

// TestMySQLCompat holds the scripts of what a client sees of indexes, names and prepared
// statements, against MySQL 8's behaviour.
func TestMySQLCompat(t *testing.T) { runScripts(t, mysqlCompatScripts) }

var mysqlCompatScripts = []scriptTest{
	// DistinctComparesBytes: the known limitation of docs/compatibility.md. DISTINCT,
	// COUNT(DISTINCT) and UNION tell 'a' from 'A' and 'á' under utf8mb4_0900_ai_ci, where MySQL
	// does not; GROUP BY does not. When the engine compares them in the collation, this script
	// fails and the doc must change.
	{
		name: "DistinctComparesBytes",
		setup: []string{
			"CREATE TABLE dl (id INT PRIMARY KEY, l VARCHAR(5) COLLATE utf8mb4_0900_ai_ci)",
			"INSERT INTO dl VALUES (1, 'a'), (2, 'A'), (3, 'b'), (4, 'á')",
		},
		assertions: []assertion{
			{query: "SELECT COUNT(DISTINCT l) FROM dl", rows: column("4")},
			{query: "SELECT COUNT(*) FROM (SELECT DISTINCT l FROM dl) d", rows: column("4")},
			{query: "SELECT COUNT(*) FROM (SELECT l FROM dl GROUP BY l) g", rows: column("2")},
		},
	},

	// ProcedureVariablesInUpdateSet: the known limitation of docs/compatibility.md. A
	// procedure's parameter is found in a WHERE, an IN list and INSERT's VALUES, not in
	// UPDATE's SET or a CASE (1054, where MySQL runs them); a user variable set from it works
	// everywhere. When the engine finds them, this script fails and the doc must change.
	{
		name: "ProcedureVariablesInUpdateSet",
		setup: []string{
			"CREATE TABLE pt (id INT PRIMARY KEY, x INT)",
			"INSERT INTO pt VALUES (1, 0)",
			"CREATE PROCEDURE p_where(a INT) UPDATE pt SET x = 3 WHERE id = a",
			"CREATE PROCEDURE p_set(a INT) UPDATE pt SET x = a WHERE id = 1",
			"CREATE PROCEDURE p_in(a INT) SELECT id FROM pt WHERE x IN (a, 99)",
			"CREATE PROCEDURE p_case(a INT) SELECT CASE WHEN a > 1 THEN 'big' ELSE 'small' END",
			"CREATE PROCEDURE p_user(a INT) BEGIN SET @a = a; UPDATE pt SET x = @a WHERE id = 1; END",
		},
		assertions: []assertion{
			{query: "CALL p_where(1)"},
			{query: "SELECT x FROM pt", rows: column("3")},
			{query: "CALL p_set(5)", err: 1054, state: "42S22"},
			{query: "CALL p_in(3)", rows: column("1")},
			{query: "CALL p_case(3)", err: 1054, state: "42S22"},
			{query: "CALL p_user(42)"},
			{query: "SELECT x FROM pt", rows: column("42")},
		},
	},

	// PrimaryKeyIsAnIndex: a primary key is an index (SHOW INDEX, index lookups of SELECT and
	// UPDATE), a foreign key is enforced, and a secondary index follows an UPDATE.
	{
		name: "PrimaryKeyIsAnIndex",
		setup: []string{
			"CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(20))",
			"CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, k INT, KEY k_idx (k), FOREIGN KEY (parent_id) REFERENCES parent(id))",
			"INSERT INTO parent VALUES (1, 'one'), (2, 'two')",
			"INSERT INTO child VALUES (10, 1, 5), (11, 2, 6)",
		},
		assertions: []assertion{
			// A child row without parent.
			{query: "INSERT INTO child VALUES (12, 3, 7)", err: 1452, state: "23000"},
			// Table, Non_unique, Key_name, Seq_in_index, Column_name.
			{query: "SHOW INDEX FROM parent", contains: "parent\t0\tPRIMARY\t1\tid\t"},
			{query: "EXPLAIN PLAN SELECT * FROM parent WHERE id = 1", contains: "IndexedTableAccess"},
			{query: "EXPLAIN PLAN UPDATE child SET k = 8 WHERE id = 10", contains: "IndexedTableAccess"},
			{query: "UPDATE child SET k = 8 WHERE id = 10"},
			{query: "SELECT id FROM child WHERE k = 8", rows: column("10")},
		},
	},

	// SystemRewriteKeepsTokensAndNames: the server backquotes the bare word system for the
	// parser; a backquoted name right beside it stays a separate token, and result columns are
	// named by the text the client wrote.
	{
		name:  "SystemRewriteKeepsTokensAndNames",
		main:  true,
		setup: []string{"CREATE TABLE main.`system` (`system` INT, x INT)", "INSERT INTO main.`system` VALUES (7, 8)"},
		assertions: []assertion{
			{query: "SELECT system`x` FROM main.system", columns: []string{"x"}, rows: column("7")},
			{query: "SELECT x + 1 FROM main.system", columns: []string{"x + 1"}, rows: column("9")},
			{query: "SELECT system.metrics.value * 0 FROM system.metrics WHERE metric = 'MySQLConnection'",
				columns: []string{"system.metrics.value * 0"}, rows: column("0")},
		},
	},

	// PreparedStatementNamesIgnoreCase prepares, runs and deallocates SQL prepared statements
	// under names in different cases, which name the same statement in MySQL (before, EXECUTE s
	// of PREPARE S failed as unknown, with 1105 instead of 1243).
	{
		name:  "PreparedStatementNamesIgnoreCase",
		setup: []string{"CREATE TABLE pn (id INT PRIMARY KEY)", "PREPARE Stmt1 FROM 'SELECT 1'"},
		assertions: []assertion{
			{query: "EXECUTE stmt1", rows: column("1")},
			{query: "EXECUTE STMT1", rows: column("1")},
			{query: "EXECUTE `sTmT1`", rows: column("1")},
			{query: "PREPARE STMT1 FROM 'SELECT 2'"},
			{query: "EXECUTE Stmt1", rows: column("2")},
			{query: "DEALLOCATE PREPARE stmt1"},
			{query: "EXECUTE Stmt1", err: 1243, state: "HY000"},
			{query: "DEALLOCATE PREPARE Stmt1", err: 1243, state: "HY000"},
			// EXECUTE of a prepared ALTER TABLE commits the open transaction first, also when it
			// names the statement in another case: the row stays though the ALTER TABLE (a
			// duplicate column) fails.
			{query: "PREPARE badAlter FROM 'ALTER TABLE pn ADD COLUMN id INT'"},
			{query: "START TRANSACTION"},
			{query: "INSERT INTO pn VALUES (1)"},
			{query: "EXECUTE BadAlter", fails: true},
			{query: "ROLLBACK"},
			{query: "SELECT id FROM pn", rows: column("1")},
		},
	},
}

// TestHandshakeStatusFlags reads the greeting and the OK packet of the handshake byte by byte:
// MySQL 8 sets SERVER_STATUS_AUTOCOMMIT (0x0002) in both, since @@autocommit is 1.
func TestHandshakeStatusFlags(t *testing.T) {
	s := startServer(t, serverOptions{})
	w := dialWire(t, s.addr)
	g := w.greeting()
	if g.status&statusAutocommit == 0 {
		t.Errorf("greeting status flags = %#04x, want SERVER_STATUS_AUTOCOMMIT set", g.status)
	}
	ok := w.login(g, "default", nil, "mysql_native_password")
	if ok[0] != 0x00 {
		t.Fatalf("handshake answered % x, want an OK packet", ok)
	}
	if st := okStatus(t, ok); st&statusAutocommit == 0 {
		t.Errorf("handshake OK packet status flags = %#04x, want SERVER_STATUS_AUTOCOMMIT set", st)
	}
}

// TestRollbackUndoesInPythonDrivers is the user's view of the status flags: PyMySQL and
// mysqlclient open connections with autocommit off by comparing with the handshake's flags.
func TestRollbackUndoesInPythonDrivers(t *testing.T) {
	s := startServer(t, serverOptions{})
	if _, err := s.db().Exec("CREATE TABLE tx (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	for _, driver := range []string{"pymysql", "MySQLdb"} {
		t.Run(driver, func(t *testing.T) {
			out := runPython(t, driver, `
conn = connect()
cur = conn.cursor()
cur.execute("DELETE FROM tx")
conn.commit()
cur.execute("INSERT INTO tx VALUES (1)")
conn.rollback()
cur.execute("SELECT COUNT(*) FROM tx")
print("rows after rollback:", cur.fetchone()[0])
cur.execute("INSERT INTO tx VALUES (2)")
conn.commit()
cur.execute("SELECT COUNT(*) FROM tx")
print("rows after commit:", cur.fetchone()[0])
`, s.addr, "default", "")
			if !strings.Contains(out, "rows after rollback: 0") || !strings.Contains(out, "rows after commit: 1") {
				t.Errorf("ROLLBACK did not undo the insert:\n%s", out)
			}
		})
	}
}

// python returns Debian's python3 (the one with the Debian client packages). Under CI a
// missing interpreter or module fails the test; elsewhere it is skipped.
func python(t testing.TB, module string) string {
	t.Helper()
	const bin = "/usr/bin/python3"
	err := exec.Command(bin, "-c", "import "+module).Run()
	if err == nil {
		return bin
	}
	unavailable(t, fmt.Sprintf("%s with module %s is not available (apt-get install -y python3-pymysql python3-mysqldb): %v", bin, module, err))
	return ""
}

// runPython runs body with a connect() function of the given driver (pymysql or MySQLdb) that
// connects to addr as user, and returns its combined output; a failing script fails the test.
func runPython(t testing.TB, driver, body, addr, user, password string) string {
	t.Helper()
	bin := python(t, driver)
	host, port, _ := net.SplitHostPort(addr)
	var connect string
	switch driver {
	case "pymysql":
		connect = "def connect(**kw):\n    return pymysql.connect(host=HOST, port=PORT, user=USER, password=PASSWORD, database='main', connect_timeout=5, **kw)\n"
	case "MySQLdb":
		connect = "def connect(**kw):\n    return MySQLdb.connect(host=HOST, port=PORT, user=USER, password=PASSWORD, database='main', connect_timeout=5, **kw)\n"
	default:
		t.Fatalf("unknown driver %s", driver)
	}
	script := "import os, sys\nimport " + driver + "\n" +
		"HOST, PORT, USER, PASSWORD = os.environ['OSQL_HOST'], int(os.environ['OSQL_PORT']), os.environ['OSQL_USER'], os.environ['OSQL_PASSWORD']\n" +
		connect + body
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-c", script)
	cmd.Env = append(os.Environ(), "OSQL_HOST="+host, "OSQL_PORT="+port, "OSQL_USER="+user, "OSQL_PASSWORD="+password)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python (%s) failed: %v\n%s", driver, err, out)
	}
	return string(out)
}

// TestCollationServer: the default collation compares bytes; collation_server chooses another
// at start (MySQL 8's utf8mb4_0900_ai_ci here) for new databases, tables and string literals.
func TestCollationServer(t *testing.T) {
	s := startServer(t, serverOptions{})
	got := queryStrings(t, s.db(), "SELECT 'a' = 'A', @@collation_server, @@collation_connection, @@character_set_server")
	if want := []string{"0\tutf8mb4_0900_bin\tutf8mb4_0900_bin\tutf8mb4"}; !slices.Equal(got, want) {
		t.Errorf("default collation: got %q, want %q", got, want)
	}

	ci := startServer(t, serverOptions{top: `collation_server = "utf8mb4_0900_ai_ci"`})
	db := ci.db()
	got = queryStrings(t, db, "SELECT 'a' = 'A', 'e' = 'é', @@collation_server, @@collation_connection, (SELECT value FROM system.server_settings WHERE name = 'collation_server')")
	if want := []string{"1\t1\tutf8mb4_0900_ai_ci\tutf8mb4_0900_ai_ci\tutf8mb4_0900_ai_ci"}; !slices.Equal(got, want) {
		t.Errorf("collation_server = utf8mb4_0900_ai_ci: got %q, want %q", got, want)
	}
	for _, q := range []string{
		"CREATE TABLE people (id INT PRIMARY KEY, email VARCHAR(100))",
		"INSERT INTO people VALUES (1, 'Foo@x.com')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := queryStrings(t, db, "SELECT id FROM people WHERE email = 'foo@X.COM'"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("case-insensitive lookup found %q, want [1]", got)
	}
	for _, q := range []string{"SHOW CREATE TABLE people"} {
		if got := strings.Join(queryStrings(t, db, q), " "); !strings.Contains(got, "utf8mb4_0900_ai_ci") {
			t.Errorf("%s does not show utf8mb4_0900_ai_ci: %s", q, got)
		}
	}
}

// TestIdentity: one MySQL version everywhere, and overloadsql's name in @@version_comment.
func TestIdentity(t *testing.T) {
	s := startServer(t, serverOptions{})
	got := queryStrings(t, s.db(), "SELECT VERSION(), @@version, @@version_comment")
	if len(got) != 1 {
		t.Fatalf("got %q", got)
	}
	f := strings.Split(got[0], "\t")
	g := dialWire(t, s.addr).greeting()
	if f[0] != g.version || f[1] != g.version || !strings.HasPrefix(g.version, "8.0.") {
		t.Errorf("versions differ or are not 8.0.x: handshake %q, VERSION() %q, @@version %q", g.version, f[0], f[1])
	}
	if f[2] != "overloadsql" {
		t.Errorf("@@version_comment = %q, want overloadsql", f[2])
	}
}

// TestErrorNumbersAndDiagnostics: MySQL 8's error numbers and SQLSTATEs, and the diagnostics
// area after an error (SHOW WARNINGS, SHOW ERRORS, @@warning_count, @@error_count).
func TestErrorNumbersAndDiagnostics(t *testing.T) {
	s := startServer(t, serverOptions{})
	ctx := context.Background()
	conn, err := s.db().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"CREATE TABLE short (v VARCHAR(3))", "CREATE TABLE checked (n INT, CHECK (n < 10))", "CREATE VIEW shown AS SELECT 1"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		query string
		num   uint16
		state string
		text  string
	}{
		{"USE nope", 1049, "42000", "Unknown database 'nope'"},
		{"SELECT * FROM nope.t", 1049, "42000", "Unknown database 'nope'"},
		{"SELECT * FROM nosuch", 1146, "42S02", "Table 'nosuch' doesn't exist"},
		{"INSERT INTO short VALUES ('abcdef')", 1406, "22001", "Data too long for column 'v'"},
		{"SELECT @@nosuch_variable", 1193, "HY000", "Unknown system variable 'nosuch_variable'"},
		{"SET warning_count = 3", 1238, "HY000", "Variable 'warning_count' is a read only variable"},
		{"SELEC 1", 1064, "42000", "You have an error in your SQL syntax"},
		{"CREATE TABLE short (v INT)", 1050, "42S01", "Table 'short' already exists"},
		{"SELECT nocol FROM short", 1054, "42S22", "Unknown column 'nocol'"},
		{"INSERT INTO short VALUES ('a', 'b')", 1136, "21S01", "Column count doesn't match value count at row 1"},
		{"INSERT INTO checked VALUES (10)", 3819, "HY000", "Check constraint 'checked_chk_1' is violated."},
		{"CREATE VIEW shown AS SELECT 2", 1050, "42S01", "Table 'shown' already exists"},
	} {
		_, err := conn.ExecContext(ctx, c.query)
		me := mysqlError(t, err)
		if me.Number != c.num || string(me.SQLState[:]) != c.state || !strings.Contains(me.Message, c.text) {
			t.Errorf("%s: got %d (%s) %q, want %d (%s) %q", c.query, me.Number, me.SQLState, me.Message, c.num, c.state, c.text)
		}
	}
	// The server's log line names the error as the client got it (it said errno 1105 for every
	// error the server renumbers). A new connection, so its log lines are not rate-limited.
	fresh := s.open("default", "", s.addr)
	defer fresh.Close()
	if _, err := fresh.Exec("CREATE TABLE short (v INT)"); err == nil {
		t.Fatal("CREATE TABLE of an existing table succeeded")
	}
	eventually(t, 10*time.Second, "the log names error 1050 (42S01)", func() (bool, string) {
		log := s.log.String()
		return strings.Contains(log, "errno 1050) (sqlstate 42S01)"), "no such line"
	})

	rows := func(q string) []string { return queryStrings(t, conn, q) }
	if _, err := conn.ExecContext(ctx, "SELECT * FROM nosuch"); err == nil {
		t.Fatal("SELECT from a missing table succeeded")
	}
	want := []string{"Error\t1146\tTable 'nosuch' doesn't exist"}
	for _, q := range []string{"SHOW WARNINGS", "SHOW ERRORS"} {
		if got := rows(q); !slices.Equal(got, want) {
			t.Errorf("%s after the error = %q, want %q", q, got, want)
		}
	}
	if got := rows("SELECT @@warning_count, @@error_count"); !slices.Equal(got, []string{"1\t1"}) {
		t.Errorf("@@warning_count, @@error_count after the error = %q, want [1 1]", got)
	}
	if got := rows("SHOW COUNT(*) ERRORS"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("SHOW COUNT(*) ERRORS = %q, want [1]", got)
	}
	rows("SELECT 1/0")
	if got := rows("SELECT @@warning_count, @@error_count"); !slices.Equal(got, []string{"1\t0"}) {
		t.Errorf("@@warning_count, @@error_count after a warning = %q, want [1 0]", got)
	}
	if got := rows("SHOW COUNT(*) WARNINGS"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("SHOW COUNT(*) WARNINGS = %q, want [1]", got)
	}

	for _, q := range []string{
		"CREATE VIEW main.v AS SELECT * FROM system.warnings",
		"SELECT COUNT(*) FROM main.v",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "CREATE VIEW system.v AS SELECT 1"); err == nil {
		t.Error("CREATE VIEW in system succeeded; system is read-only")
	}

	other := mysqlError(t, connectTo(t, s.addr, "nope"))
	if other.Number != 1049 || string(other.SQLState[:]) != "42000" {
		t.Errorf("connecting to database nope: %d (%s) %s, want 1049 (42000)", other.Number, other.SQLState, other.Message)
	}
}

// connectTo connects as default to database db and returns the error of the connection.
// TestKillQueryIsInterrupted: a statement stopped by KILL QUERY fails with MySQL's 1317
// (70100) "Query execution was interrupted" (it was 1105 "context canceled"), and its
// connection stays usable.
func TestKillQueryIsInterrupted(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	victim, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	var id int
	if err := victim.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := victim.ExecContext(ctx, "SELECT SLEEP(30)")
		done <- err
	}()
	eventually(t, 15*time.Second, "the victim's SLEEP shows in the process list", func() (bool, string) {
		rows := queryStrings(t, db, fmt.Sprintf("SELECT info FROM information_schema.processlist WHERE id = %d", id))
		return len(rows) == 1 && strings.Contains(rows[0], "SLEEP"), strings.Join(rows, "; ")
	})
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
	var me *mysql.MySQLError
	if err := <-done; !errors.As(err, &me) || me.Number != 1317 || string(me.SQLState[:]) != "70100" || me.Message != "Query execution was interrupted" {
		t.Errorf("the killed statement failed with %v, want 1317 (70100) Query execution was interrupted", err)
	}
	var one int
	if err := victim.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Errorf("the connection is not usable after KILL QUERY: %v", err)
	}
}

// TestGlobalOnlyVariablesReadTheGlobal: after SET GLOBAL of a global-only variable, `@@name`
// shows the new value in the session that set it and in sessions already open, as in MySQL
// (both kept the value from when they started); SET without GLOBAL is still error 1229.
func TestGlobalOnlyVariablesReadTheGlobal(t *testing.T) {
	s := startServer(t, serverOptions{})
	ctx := context.Background()
	setter, err := s.db().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer setter.Close()
	other, err := s.db().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	read := func(conn *sql.Conn, q string) string {
		t.Helper()
		var v string
		if err := conn.QueryRowContext(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	read(other, "SELECT @@max_connections") // the session exists before the change
	mustExec(t, setter, "SET GLOBAL max_connections = 500, GLOBAL simulated_cpu_busy_ratio = 0.5")
	for name, conn := range map[string]*sql.Conn{"the setting session": setter, "a session open before": other} {
		if got := read(conn, "SELECT @@max_connections"); got != "500" {
			t.Errorf("%s: @@max_connections = %s after SET GLOBAL max_connections = 500", name, got)
		}
		if got := read(conn, "SELECT @@simulated_cpu_busy_ratio"); got != "0.5" {
			t.Errorf("%s: @@simulated_cpu_busy_ratio = %s after SET GLOBAL ... = 0.5", name, got)
		}
	}
	if got := read(setter, "SELECT @@max_connections + 1"); got != "501" {
		t.Errorf("@@max_connections + 1 = %s, want 501", got)
	}
	_, err = setter.ExecContext(ctx, "SET max_connections = 5")
	if me := mysqlError(t, err); me.Number != 1229 {
		t.Errorf("SET max_connections without GLOBAL: %v, want error 1229", err)
	}
	mustExec(t, setter, "SET GLOBAL simulated_cpu_busy_ratio = -1")

	// SHOW VARIABLES prints negative floats as numbers (the engine prints -1 as "1" or "s").
	for _, q := range []string{"SHOW VARIABLES LIKE 'simulated%'", "SHOW GLOBAL VARIABLES LIKE 'simulated%'"} {
		rows := queryStrings(t, setter, q)
		if len(rows) != 3 {
			t.Errorf("%s: %q, want the three simulation variables", q, rows)
		}
		for _, r := range rows {
			if !strings.HasSuffix(r, "\t-1") {
				t.Errorf("%s: %q, want -1", q, r)
			}
		}
	}
}

func connectTo(t testing.TB, addr, db string) error {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "default", "tcp", addr, db
	cfg.Timeout = 5 * time.Second
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool := sql.OpenDB(connector)
	defer pool.Close()
	return pool.Ping()
}

// TestSQLPrepareInLibmariadbClients: the OK packet of SQL PREPARE carries an info text that
// libmariadb (the mariadb CLI, mysqlclient) reads as a length-encoded string.
func TestSQLPrepareInLibmariadbClients(t *testing.T) {
	s := startServer(t, serverOptions{})
	out, err := mariadbCLI(t, s.addr, "default", "PREPARE s FROM 'SELECT ? + 40';\nSET @a = 2;\nEXECUTE s USING @a;\nDEALLOCATE PREPARE s;\n", "--batch", "--skip-column-names")
	if err != nil || strings.TrimSpace(out) != "42" {
		t.Errorf("mariadb CLI: SQL PREPARE / EXECUTE: %v\n%s", err, out)
	}
	out = runPython(t, "MySQLdb", `
conn = connect()
cur = conn.cursor()
cur.execute("PREPARE s FROM 'SELECT ? + 40'")
print("info:", conn.info().strip())
cur.execute("SET @a = 2")
cur.execute("EXECUTE s USING @a")
print("result:", cur.fetchone()[0])
`, s.addr, "default", "")
	if !strings.Contains(out, "info: Statement prepared") || !strings.Contains(out, "result: 42") {
		t.Errorf("mysqlclient: SQL PREPARE / EXECUTE:\n%s", out)
	}
}

// TestBackupAndAdminTools: mariadb-dump --single-transaction (SAVEPOINT, ROLLBACK TO SAVEPOINT,
// RELEASE SAVEPOINT) restored into a second server, and mariadb-admin status (COM_STATISTICS).
func TestBackupAndAdminTools(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	for _, q := range []string{
		"CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(20))",
		"CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, FOREIGN KEY (parent_id) REFERENCES parent(id))",
		"INSERT INTO parent VALUES (1, 'one'), (2, 'two')",
		"INSERT INTO child VALUES (10, 1), (11, 2)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	host, port, _ := net.SplitHostPort(s.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dump, err := exec.CommandContext(ctx, need(t, "mariadb-dump"), "-h", host, "-P", port, "-u", "default", "--skip-ssl",
		"--single-transaction", "main").Output()
	if err != nil {
		t.Fatalf("mariadb-dump --single-transaction main: %v", err)
	}
	restored := startServer(t, serverOptions{})
	if out, err := mariadbCLI(t, restored.addr, "default", string(dump), "main"); err != nil {
		t.Fatalf("restore the dump: %v\n%s", err, out)
	}
	for _, q := range []string{"SELECT id, name FROM parent ORDER BY id", "SELECT id, parent_id FROM child ORDER BY id"} {
		if want, got := queryStrings(t, db, q), queryStrings(t, restored.db(), q); !slices.Equal(got, want) {
			t.Errorf("%s after restore = %q, want %q", q, got, want)
		}
	}

	// The script's two errors are expected: --force goes on after them, and the CLI exits 1, so
	// its output alone is checked.
	out, _ := mariadbCLI(t, s.addr, "default", `
START TRANSACTION;
SAVEPOINT a;
SELECT COUNT(*) FROM parent;
ROLLBACK TO SAVEPOINT a;
RELEASE SAVEPOINT a;
SAVEPOINT b;
INSERT INTO parent VALUES (3, 'three');
ROLLBACK TO SAVEPOINT b;
SELECT COUNT(*) FROM parent;
INSERT INTO parent VALUES (4, 'four');
RELEASE SAVEPOINT nope;
ROLLBACK;
SELECT COUNT(*) FROM parent;
`, "--force", "--batch", "--skip-column-names")
	for _, want := range []string{"ERROR 1305 (42000)", "SAVEPOINT nope does not exist"} {
		if !strings.Contains(out, want) {
			t.Errorf("savepoints: output lacks %q:\n%s", want, out)
		}
	}
	// ROLLBACK TO SAVEPOINT b undoes the row written after it, as in MySQL.
	if lines := strings.Fields(out); len(lines) < 3 || lines[0] != "2" || lines[1] != "2" || lines[len(lines)-1] != "2" {
		t.Errorf("savepoints: counts before, after ROLLBACK TO and after the rolled back transaction should be 2, 2 and 2:\n%s", out)
	}

	status, err := exec.CommandContext(ctx, need(t, "mariadb-admin"), "-h", host, "-P", port, "-u", "default", "--skip-ssl", "status").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(status), "Uptime: ") || !strings.Contains(string(status), "Threads: ") || !strings.Contains(string(status), "Questions: ") {
		t.Errorf("mariadb-admin status: %v\n%s", err, status)
	}
	pre := dialRaw(t, s.addr)
	pre.mustReadPacket() // greeting
	if err := pre.writePacket(0, []byte{0x09}); err != nil {
		t.Fatal(err)
	}
	if _, p, err := pre.readPacket(); err == nil && strings.HasPrefix(string(p), "Uptime") {
		t.Error("COM_STATISTICS answered before login")
	}
}

// hashedUsers are accounts of each password kind: SHA-256 (caching_sha2_password only),
// double SHA-1 (mysql_native_password only) and plain (both).
var hashedUsers = `
[[users]]
name = "default"
admin = true

[[users]]
name = "sha256"
password_sha256_hex = "` + sha256Hex("pw-sha256") + `"

[[users]]
name = "native"
password_double_sha1_hex = "` + doubleSHA1Hex("pw-native") + `"

[[users]]
name = "plain"
password = "pw-plain"
`

func sha256Hex(pw string) string { s := sha256.Sum256([]byte(pw)); return hex.EncodeToString(s[:]) }

func doubleSHA1Hex(pw string) string {
	s1 := sha1.Sum([]byte(pw))
	s2 := sha1.Sum(s1[:])
	return hex.EncodeToString(s2[:])
}

// TestPasswordKindsAndDrivers: like MySQL 8, the greeting offers caching_sha2_password, so a
// client that follows it (PyMySQL 1.0.2, whose auth switch to caching_sha2_password keeps the
// salt's NUL) logs in to a SHA-256 account without a switch; a double-SHA-1 account is switched
// to mysql_native_password with MySQL's packet (plugin name, 20-byte salt, NUL). The npm mysql
// package has no caching_sha2_password: it needs a double-SHA-1 or plain account.
func TestPasswordKindsAndDrivers(t *testing.T) {
	s := startServer(t, serverOptions{sections: hashedUsers})

	w := dialWire(t, s.addr)
	g := w.greeting()
	if g.plugin != "caching_sha2_password" || len(g.salt()) != 20 || g.salt2[len(g.salt2)-1] != 0 {
		t.Errorf("greeting: plugin %q, salt %d bytes, part 2 % x; want caching_sha2_password, 20 bytes, NUL-terminated", g.plugin, len(g.salt()), g.salt2)
	}
	sw := w.login(g, "native", []byte("x"), "caching_sha2_password")
	if sw[0] != 0xfe || !bytes.HasPrefix(sw[1:], []byte("mysql_native_password\x00")) || len(sw) != 1+len("mysql_native_password\x00")+21 || sw[len(sw)-1] != 0 {
		t.Errorf("auth switch for a double-SHA-1 account = % x; want fe, mysql_native_password, NUL, 20-byte salt, NUL", sw)
	}

	for _, u := range []struct{ user, password string }{{"sha256", "pw-sha256"}, {"native", "pw-native"}, {"plain", "pw-plain"}} {
		if err := s.open(u.user, u.password, s.addr).Ping(); err != nil {
			t.Errorf("go-sql-driver as %s: %v", u.user, err)
		}
		for _, driver := range []string{"pymysql", "MySQLdb"} {
			out := runPython(t, driver, "conn = connect()\ncur = conn.cursor()\ncur.execute('SELECT CURRENT_USER()')\nprint('user:', cur.fetchone()[0])\n", s.addr, u.user, u.password)
			if !strings.Contains(out, "user: "+u.user+"@") {
				t.Errorf("%s as %s:\n%s", driver, u.user, out)
			}
		}
	}
	for _, c := range []struct{ pkg, user, password string }{
		{"mysql", "native", "pw-native"}, {"mysql", "plain", "pw-plain"},
		{"mysql2", "sha256", "pw-sha256"}, {"mysql2", "native", "pw-native"},
	} {
		if out := runNode(t, c.pkg, s.addr, c.user, c.password); out != "ok" {
			t.Errorf("npm %s as %s: %s", c.pkg, c.user, out)
		}
	}
}

// runNode connects with the npm package pkg (installed in integration/clients/node) and runs
// SELECT 1; it returns "ok" or the error. Under CI a missing node or package fails the test.
func runNode(t testing.TB, pkg, addr, user, password string) string {
	t.Helper()
	bin := need(t, "node")
	dir := "clients/node"
	needFile(t, dir+"/node_modules/"+pkg, "npm install in integration/clients/node")
	host, port, _ := net.SplitHostPort(addr)
	script := `const lib = require(process.argv[1]);
const c = lib.createConnection({host: process.argv[2], port: +process.argv[3], user: process.argv[4], password: process.argv[5], connectTimeout: 5000});
c.query('SELECT 1', (e) => { console.log(e ? e.message : 'ok'); c.destroy(); });`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-e", script, pkg, host, port, user, password)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestFlushPrivileges: FLUSH PRIVILEGES, which setup scripts send after their GRANTs, succeeds
// for an admin and changes nothing (the accounts are config.toml's); a non-admin gets 1044 as
// for any statement on `mysql`. Before, the engine dereferenced nil storing the privilege
// tables: error 1105 and a logged panic with its stack for each one.
func TestFlushPrivileges(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "FLUSH PRIVILEGES")
	if got := oneValue(t, db, "SELECT COUNT(*) FROM mysql.user WHERE user = 'default'"); got != "1" {
		t.Errorf("accounts named default after FLUSH PRIVILEGES: %s, want 1", got)
	}
	if strings.Contains(s.log.String(), "panicked") {
		t.Error("FLUSH PRIVILEGES panicked")
	}
}

// TestMultiStatementStopsAtFirstError: as in MySQL, a multi-statement query stops at its first
// error: the statements after it do not run, and the connection answers its next query. Before,
// they ran (an INSERT after a failed one stored its row), and their answers followed the error
// packet, so the client read them as the next query's (go-sql-driver: "commands out of sync",
// PyMySQL: "Packet sequence number wrong").
func TestMultiStatementStopsAtFirstError(t *testing.T) {
	s := startServer(t, serverOptions{})
	mustExec(t, s.db(), "CREATE TABLE ms (id INT PRIMARY KEY, k INT, d INT DEFAULT 0, KEY kk (k))", "INSERT INTO ms VALUES (1, 1, 0), (2, 2, 0)")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "default", "tcp", s.addr, "main"
	cfg.MultiStatements = true
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	multi := sql.OpenDB(connector)
	defer multi.Close()
	conn := session(t, multi)
	for _, query := range []string{
		"INSERT INTO ms VALUES (1, 1, 1); INSERT INTO ms VALUES (8, 8, 8)",
		"ALTER TABLE ms RENAME COLUMN k TO k2, ADD UNIQUE KEY ud (d); INSERT INTO ms VALUES (8, 8, 8)",
	} {
		if _, err := conn.ExecContext(context.Background(), query); err == nil {
			t.Fatalf("%s: succeeded, want a duplicate key error", query)
		}
		if got := queryStrings(t, conn, "SELECT id FROM ms ORDER BY id"); !slices.Equal(got, []string{"1", "2"}) {
			t.Errorf("after %s (the first statement fails): rows %q, want 1 and 2", query, got)
		}
	}
}
