package integration

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests are the attacks of a non-admin account (`app`) on files and privileges: each must
// fail with MySQL's error number and SQLSTATE, and leave the server as it was.

func appDB(t *testing.T, s *testServer) *sql.DB {
	db := s.open("app", "secret", s.addr)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestSecurityNoFileAccessByDefault(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app, admin := appDB(t, s), s.adminDB()
	mustExec(t, app, "CREATE TABLE files (x TEXT)")
	persisted := filepath.Join(s.dir, "persisted_settings.toml")
	out := filepath.Join(s.dir, "out.txt")
	for _, db := range []*sql.DB{app, admin} {
		for _, stmt := range []string{
			"SELECT 'max_connections = 1' INTO OUTFILE '" + persisted + "'",
			"SELECT 'x' INTO DUMPFILE '" + out + "'",
			"SELECT LOAD_FILE('/etc/hostname')",
			"SELECT (SELECT LOAD_FILE('/etc/hostname'))",
			"CREATE TABLE copied AS SELECT LOAD_FILE('/etc/hostname') AS f",
			"INSERT INTO files VALUES (LOAD_FILE('/etc/hostname'))",
			"INSERT INTO files SELECT LOAD_FILE('/etc/hostname')",
			"CREATE VIEW leak AS SELECT LOAD_FILE('/etc/hostname') AS f",
		} {
			wantError(t, db, stmt, 1290, "HY000")
		}
	}
	// LOAD DATA needs the FILE privilege first, as in MySQL.
	wantError(t, app, "LOAD DATA INFILE '/etc/hostname' INTO TABLE files", 1227, "42000")
	wantError(t, admin, "LOAD DATA INFILE '/etc/hostname' INTO TABLE main.files", 1290, "HY000")
	for _, f := range []string{persisted, out} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	if got := queryStrings(t, admin, "SELECT COUNT(*) FROM main.files"); got[0] != "0" {
		t.Errorf("a file was loaded: %v rows", got)
	}
}

func TestSecurityFileAccessInsideSecureFilePriv(t *testing.T) {
	dir := t.TempDir()
	secure := filepath.Join(dir, "files")
	if err := os.Mkdir(secure, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secure, "in.txt"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(secure, "link.txt")); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serverOptions{top: "secure_file_priv = " + quote(secure), sections: appUsers, dir: dir})
	app, admin := appDB(t, s), s.adminDB()

	// Non-admins never touch files (MySQL's FILE privilege).
	wantError(t, app, "SELECT LOAD_FILE('"+secure+"/in.txt')", 1227, "42000")
	wantError(t, app, "SELECT 1 INTO OUTFILE '"+secure+"/app.txt'", 1227, "42000")

	// Admins: inside the directory only; links and .. are resolved first.
	if got := queryStrings(t, admin, "SELECT LOAD_FILE('"+secure+"/in.txt')"); got[0] != "inside\n" {
		t.Errorf("LOAD_FILE inside = %q", got)
	}
	for _, stmt := range []string{
		"SELECT LOAD_FILE('" + secure + "/link.txt')",
		"SELECT LOAD_FILE('" + secure + "/../secret.txt')",
		"SELECT LOAD_FILE('in.txt')",
		"SELECT 'max_connections = 1' INTO OUTFILE '" + filepath.Join(dir, "persisted_settings.toml") + "'",
		"SELECT 1 INTO OUTFILE '" + secure + "/../escape.txt'",
	} {
		wantError(t, admin, stmt, 1290, "HY000")
	}
	if err := os.WriteFile(filepath.Join(secure, "rows.txt"), []byte("1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustExec(t, admin, "CREATE TABLE main.loaded (x INT)", "LOAD DATA INFILE '"+secure+"/rows.txt' INTO TABLE main.loaded")
	if got := queryStrings(t, admin, "SELECT COUNT(*) FROM main.loaded"); got[0] != "2" {
		t.Errorf("LOAD DATA inside loaded %v rows, want 2", got)
	}
	wantError(t, admin, "LOAD DATA INFILE '"+secure+"/link.txt' INTO TABLE main.loaded", 1290, "HY000")
	wantError(t, app, "LOAD DATA INFILE '"+secure+"/rows.txt' INTO TABLE main.loaded", 1227, "42000")
	mustExec(t, admin, "SELECT 'written' INTO OUTFILE '"+secure+"/out.txt'")
	if b, err := os.ReadFile(filepath.Join(secure, "out.txt")); err != nil || string(b) != "written\n" {
		t.Errorf("OUTFILE inside: %q, %v", b, err)
	}
	wantError(t, admin, "SELECT 'again' INTO OUTFILE '"+secure+"/out.txt'", 1086, "HY000")
	if _, err := os.Stat(filepath.Join(dir, "persisted_settings.toml")); err == nil {
		t.Error("persisted_settings.toml was written through OUTFILE")
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func TestSecurityNonAdminCannotChangeServerState(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app, admin := appDB(t, s), s.adminDB()
	const globals = "SELECT @@GLOBAL.autocommit, @@GLOBAL.sql_select_limit, @@GLOBAL.sql_mode, @@GLOBAL.character_set_results, @@GLOBAL.transaction_isolation, @@GLOBAL.simulated_os_cpu_overload"
	before := queryStrings(t, admin, globals)
	for _, stmt := range []string{
		"SET PERSIST_ONLY listen = '127.0.0.1:1'",
		"SET PERSIST_ONLY admin_listen = ''",
		"SET PERSIST_ONLY max_connections = 1",
		"SET PERSIST_ONLY overload_enforcement = 'dry_run'",
		"SET PERSIST_ONLY warning_suppress_regexp = '.*'",
		"SET @@PERSIST_ONLY.max_connections = 1",
		"SET PERSIST max_connections = 2",
		"SET GLOBAL autocommit = 0",
		"SET GLOBAL sql_select_limit = 1",
		"SET GLOBAL sql_mode = ''",
		"SET GLOBAL character_set_results = 'utf16'",
		"SET @@GLOBAL.sql_select_limit = 1",
		"SET autocommit = 1, @@global.sql_mode = ''",
		"SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE",
		"SET GLOBAL simulated_os_cpu_overload = 42",
		"PREPARE p FROM 'SET GLOBAL sql_mode = \"\"'",
	} {
		wantError(t, app, stmt, 1227, "42000")
	}
	// A second statement of a multi-statement text is checked like the first.
	out, _ := mariadbCLI(t, s.addr, "app", "SELECT 1; SET GLOBAL sql_mode = '';\n", "-psecret")
	if !strings.Contains(out, "ERROR 1227 (42000)") {
		t.Errorf("multi-statement SET GLOBAL: mariadb said:\n%s", out)
	}
	// Prepared with the binary protocol, the same statement is refused when it runs.
	if stmt, err := app.Prepare("SET GLOBAL sql_select_limit = ?"); err == nil {
		_, err = stmt.Exec(1)
		stmt.Close()
		if err == nil {
			t.Error("prepared SET GLOBAL succeeded")
		} else if me := mysqlError(t, err); me.Number != 1227 {
			t.Errorf("prepared SET GLOBAL: error %d %q, want 1227", me.Number, me.Message)
		}
	}
	if _, err := os.Stat(filepath.Join(s.dir, "persisted_settings.toml")); err == nil {
		b, _ := os.ReadFile(filepath.Join(s.dir, "persisted_settings.toml"))
		t.Errorf("a non-admin's SET PERSIST_ONLY was saved:\n%s", b)
	}
	if after := queryStrings(t, admin, globals); after[0] != before[0] {
		t.Errorf("globals after the attacks = %q, before %q", after[0], before[0])
	}
	// A non-admin still sets its own session, and an admin sets globals.
	mustExec(t, app, "SET autocommit = 1", "SET sql_select_limit = 5", "SET SESSION sql_mode = ''")
	mustExec(t, admin, "SET GLOBAL sql_select_limit = 1000", "SET GLOBAL sql_select_limit = DEFAULT")
}

func TestSecurityDatabases(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app, admin := appDB(t, s), s.adminDB()
	for _, db := range []string{"system", "main", "mysql", "information_schema"} {
		wantError(t, app, "DROP DATABASE "+db, 1044, "42000")
		wantError(t, admin, "DROP DATABASE "+db, 1044, "42000")
	}
	wantError(t, app, "CREATE DATABASE x", 1044, "42000")
	// An admin's database is the admin's: a non-admin may neither use, read, write nor drop it.
	mustExec(t, admin, "CREATE DATABASE x", "CREATE TABLE x.t (v INT)", "INSERT INTO x.t VALUES (1)")
	wantError(t, app, "USE x", 1044, "42000")
	wantError(t, app, "SELECT * FROM x.t", 1044, "42000")
	wantError(t, app, "INSERT INTO x.t VALUES (2)", 1044, "42000")
	wantError(t, app, "CREATE TABLE x.u (v INT)", 1044, "42000")
	wantError(t, app, "DROP DATABASE IF EXISTS x", 1044, "42000")
	if got := queryStrings(t, admin, "SELECT v FROM x.t"); strings.Join(got, ",") != "1" {
		t.Errorf("x.t after the non-admin's attempts: %v, want [1]", got)
	}
	mustExec(t, admin, "DROP DATABASE x")
	wantError(t, admin, "USE x", 1049, "42000")
	wantError(t, app, "SELECT * FROM mysql.user", 1044, "42000")
	wantError(t, app, "USE mysql", 1044, "42000")
	if got := queryStrings(t, app, "SELECT COUNT(*) FROM system.metrics"); got[0] == "0" {
		t.Error("system is empty after the attacks")
	}
	mustExec(t, app, "CREATE TABLE kept (x INT)", "INSERT INTO kept VALUES (1)")
	if got := queryStrings(t, admin, "SELECT COUNT(*) FROM main.kept"); got[0] != "1" {
		t.Errorf("main.kept = %v", got)
	}
}

func TestSecurityStoredCodeIsAdminOnly(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app, admin := appDB(t, s), s.adminDB()
	mustExec(t, app, "CREATE TABLE t (x INT)")
	wantError(t, app, "CREATE TRIGGER main.x BEFORE INSERT ON main.t FOR EACH ROW SET @@GLOBAL.simulated_os_cpu_overload = 42", 1142, "42000")
	wantError(t, app, "CREATE PROCEDURE p() SET @@GLOBAL.sql_select_limit = 1", 1044, "42000")
	wantError(t, app, "CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO SET @@GLOBAL.sql_select_limit = 1", 1044, "42000")
	mustExec(t, admin, "INSERT INTO main.t VALUES (1)")
	if got := queryStrings(t, admin, "SELECT @@GLOBAL.simulated_os_cpu_overload"); got[0] != "-1" {
		t.Errorf("simulated_os_cpu_overload = %v after an admin's INSERT", got)
	}
	// Views run with the reader's rights: an admin's view of mysql.user shows nothing to app; the
	// engine checks the view's table, and answers as MySQL does for it (1142).
	mustExec(t, admin, "CREATE VIEW main.users AS SELECT user FROM mysql.user")
	wantError(t, app, "SELECT * FROM main.users", 1142, "42000")
}

func TestSecurityUserManagementIsRefused(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	admin := s.open("default", "", s.adminAddr)
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var before int
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&before); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"CREATE USER u2",
		"CREATE USER u3 IDENTIFIED BY 'x'",
		"GRANT SELECT ON main.* TO app",
		"GRANT ALL ON *.* TO app",
		"REVOKE SELECT ON main.* FROM app",
		"ALTER USER app IDENTIFIED BY 'x'",
		"DROP USER app",
		"RENAME USER app TO app2",
		"CREATE ROLE r",
		"DROP ROLE r",
	} {
		_, err := conn.ExecContext(ctx, stmt)
		if err == nil {
			t.Errorf("%s: succeeded", stmt)
			continue
		}
		if me := mysqlError(t, err); me.Number != 1227 || !strings.Contains(me.Message, "config.toml") {
			t.Errorf("%s: error %d %q, want 1227 naming config.toml", stmt, me.Number, me.Message)
		}
	}
	var after int
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&after); err != nil {
		t.Fatalf("the connection did not survive: %v", err)
	}
	if after != before {
		t.Errorf("connection id %d became %d: the connection was closed", before, after)
	}
	app := appDB(t, s)
	if err := app.Ping(); err != nil {
		t.Errorf("app cannot log in after the attempts: %v", err)
	}
	wantError(t, app, "CREATE USER u4", 1227, "42000")
	wantError(t, app, "GRANT ALL ON *.* TO app", 1227, "42000")
}

func TestSecurityProcessListAndKill(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app, admin := appDB(t, s), s.adminDB()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// An admin's statement that app must not see, and an admin connection app must not kill.
	adminConn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer adminConn.Close()
	var adminID int
	if err := adminConn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&adminID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := adminConn.ExecContext(ctx, "SELECT SLEEP(2) AS admin_secret")
		done <- err
	}()
	eventually(t, 10*time.Second, "the admin's statement shows in the process list", func() (bool, string) {
		rows := queryStrings(t, admin, "SELECT user, info FROM information_schema.processlist")
		return strings.Contains(strings.Join(rows, "\n"), "admin_secret"), strings.Join(rows, "; ")
	})
	for _, q := range []string{"SELECT user, info FROM information_schema.processlist", "SHOW PROCESSLIST"} {
		rows := queryStrings(t, app, q)
		text := strings.Join(rows, "\n")
		if strings.Contains(text, "admin_secret") || strings.Contains(text, "default") {
			t.Errorf("%s shows other users to app:\n%s", q, text)
		}
		if !strings.Contains(text, "app") || strings.Contains(text, "unauthenticated user") {
			t.Errorf("%s does not show app's own connection by name:\n%s", q, text)
		}
	}
	wantError(t, app, "KILL "+strconv.Itoa(adminID), 1095, "HY000")
	wantError(t, app, "KILL QUERY "+strconv.Itoa(adminID), 1095, "HY000")
	// An unknown connection id is 1094 for everyone, as in MySQL (an admin's KILL once answered OK).
	wantError(t, app, "KILL 4000000000", 1094, "HY000")
	wantError(t, admin, "KILL 4000000000", 1094, "HY000")
	wantError(t, admin, "KILL QUERY 4000000000", 1094, "HY000")
	if err := <-done; err != nil {
		t.Errorf("the admin's statement was disturbed: %v", err)
	}

	// app may kill its own connections.
	victim, err := app.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	var victimID int
	if err := victim.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&victimID); err != nil {
		t.Fatal(err)
	}
	mustExec(t, app, "KILL QUERY "+strconv.Itoa(victimID), "KILL "+strconv.Itoa(victimID))
	eventually(t, 10*time.Second, "app's own connection is killed", func() (bool, string) {
		err := victim.PingContext(ctx)
		return err != nil, "still alive"
	})
}

func TestSecuritySetVarHintCannotBreakConstraints(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers + `
[settings]
min_os_cpu_wait_time_ratio_to_throw = 1
max_os_cpu_wait_time_ratio_to_throw = 2

[constraints.max_os_cpu_wait_time_ratio_to_throw]
readonly = true
`})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	app, err := appDB(t, s).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	const bypass = "SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 0) */ 1"

	// Not overloaded: the hint is ignored with a warning, visible in SHOW WARNINGS.
	if _, err := app.ExecContext(ctx, bypass); err != nil {
		t.Fatal(err)
	}
	warnings := queryStrings(t, app, "SHOW WARNINGS")
	if len(warnings) != 1 || !strings.Contains(warnings[0], "1231") || !strings.Contains(warnings[0], "readonly") {
		t.Errorf("SHOW WARNINGS after a hint breaking a constraint = %q, want one 1231 warning naming readonly", warnings)
	}

	// Overloaded: the session's thresholds apply, so the hint does not switch rejection off.
	mustExec(t, s.adminDB(), "SET GLOBAL simulated_os_cpu_overload = 5")
	if _, err := app.ExecContext(ctx, bypass); err == nil {
		t.Error("the hint switched the readonly rejection threshold off")
	} else if me := mysqlError(t, err); me.Number != 745 {
		t.Errorf("hinted SELECT: error %d %q, want 745", me.Number, me.Message)
	}
	// Admins are not bound by constraints.
	admin, err := s.db().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for range 20 {
		if _, err := admin.ExecContext(ctx, bypass); err != nil {
			t.Fatalf("admin's hinted SELECT: %v", err)
		}
	}
}
