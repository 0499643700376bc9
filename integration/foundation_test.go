package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestDatabasesAndRoundTrip(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()

	dbs := queryStrings(t, db, "SHOW DATABASES")
	for _, want := range []string{"main", "system"} {
		if !slices.Contains(dbs, want) {
			t.Errorf("SHOW DATABASES = %v, missing %q", dbs, want)
		}
	}
	if got := queryStrings(t, db, "SELECT DATABASE()"); got[0] != "main" {
		t.Errorf("current database at login = %v, want main", got)
	}

	for _, q := range []string{
		"CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20))",
		"INSERT INTO t VALUES (1, 'one'), (2, 'two')",
		"INSERT INTO main.t VALUES (3, 'three')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{"SELECT id, name FROM t ORDER BY id", "SELECT id, name FROM main.t ORDER BY id"} {
		got := queryStrings(t, db, q)
		want := []string{"1\tone", "2\ttwo", "3\tthree"}
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", q, got, want)
		}
	}

	tables := queryStrings(t, db, "SHOW TABLES FROM system")
	for _, want := range []string{"asynchronous_metrics", "events", "metrics", "server_settings", "settings", "warnings"} {
		if !slices.Contains(tables, want) {
			t.Errorf("SHOW TABLES FROM system = %v, missing %q", tables, want)
		}
	}
	if _, err := db.Exec("INSERT INTO system.events VALUES ('x', 1, 'y')"); err == nil {
		t.Error("INSERT into system.events succeeded; system is read-only")
	}
}

func TestServerSettingsAndSessionSettings(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()

	got := queryStrings(t, db, "SELECT name, value, default_value, changed FROM system.server_settings WHERE name = 'os_cpu_busy_time_threshold'")
	if want := []string{"os_cpu_busy_time_threshold\t1000000\t1000000\t0"}; !slices.Equal(got, want) {
		t.Errorf("server_settings row = %q, want %q", got, want)
	}

	ctx := context.Background()
	changer, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer changer.Close()
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	if _, err := changer.ExecContext(ctx, "SET max_os_cpu_wait_time_ratio_to_throw = 3"); err != nil {
		t.Fatal(err)
	}
	query := "SELECT value, changed FROM system.settings WHERE name = 'max_os_cpu_wait_time_ratio_to_throw'"
	var value string
	var changed int
	if err := changer.QueryRowContext(ctx, query).Scan(&value, &changed); err != nil {
		t.Fatal(err)
	}
	if value != "3" || changed != 1 {
		t.Errorf("after SET in this session: value %s changed %d, want 3 and 1", value, changed)
	}
	if err := other.QueryRowContext(ctx, query).Scan(&value, &changed); err != nil {
		t.Fatal(err)
	}
	if value != "0" || changed != 0 {
		t.Errorf("in another session: value %s changed %d, want 0 and 0", value, changed)
	}

	// Every MySQL way of setting and reading it.
	for _, step := range []struct{ set, want string }{
		{"SET SESSION max_os_cpu_wait_time_ratio_to_throw = 4.5", "4.5"},
		{"SET @@session.max_os_cpu_wait_time_ratio_to_throw = 5", "5"},
		{"SET max_os_cpu_wait_time_ratio_to_throw = DEFAULT", "0"},
	} {
		if _, err := changer.ExecContext(ctx, step.set); err != nil {
			t.Fatalf("%s: %v", step.set, err)
		}
		var got string
		if err := changer.QueryRowContext(ctx, "SELECT @@max_os_cpu_wait_time_ratio_to_throw").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != step.want {
			t.Errorf("after %s: SELECT @@ = %s, want %s", step.set, got, step.want)
		}
	}
	var name, shown string
	if err := changer.QueryRowContext(ctx, "SHOW VARIABLES LIKE 'min_os_cpu_wait_time_ratio_to_throw'").Scan(&name, &shown); err != nil || shown != "0" {
		t.Errorf("SHOW VARIABLES: %s = %s, %v", name, shown, err)
	}

	// SET GLOBAL (admin) changes the default of new sessions, not of existing ones.
	if _, err := db.Exec("SET GLOBAL min_os_cpu_wait_time_ratio_to_throw = 1.25"); err != nil {
		t.Fatal(err)
	}
	fresh, err := s.open("default", "", s.addr).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	var min string
	if err := fresh.QueryRowContext(ctx, "SELECT @@min_os_cpu_wait_time_ratio_to_throw").Scan(&min); err != nil || min != "1.25" {
		t.Errorf("new session after SET GLOBAL: %s, %v; want 1.25", min, err)
	}
	if err := other.QueryRowContext(ctx, "SELECT @@min_os_cpu_wait_time_ratio_to_throw").Scan(&min); err != nil || min != "0" {
		t.Errorf("existing session after SET GLOBAL: %s, %v; want 0", min, err)
	}
}

func TestUsersAndPrivileges(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})

	wrong := s.open("app", "nope", s.addr)
	defer wrong.Close()
	if err := wrong.Ping(); err == nil {
		t.Fatal("wrong password accepted")
	} else if me := mysqlError(t, err); me.Number != 1045 {
		t.Errorf("wrong password: error %d, want 1045", me.Number)
	}

	app := s.open("app", "secret", s.addr)
	defer app.Close()
	if _, err := app.Exec("CREATE TABLE mine (x INT)"); err != nil {
		t.Fatalf("non-admin CREATE TABLE in main: %v", err)
	}
	if got := queryStrings(t, app, "SELECT COUNT(*) FROM system.server_settings"); got[0] == "0" {
		t.Error("non-admin sees no server settings")
	}
	if _, err := app.Exec("SET GLOBAL max_os_cpu_wait_time_ratio_to_throw = 5"); err == nil {
		t.Error("non-admin SET GLOBAL succeeded")
	} else if me := mysqlError(t, err); me.Number != 1227 {
		t.Errorf("non-admin SET GLOBAL: error %d (%s), want 1227", me.Number, me.Message)
	}

	onAdmin := s.open("app", "secret", s.adminAddr)
	defer onAdmin.Close()
	if err := onAdmin.Ping(); err == nil {
		t.Fatal("non-admin accepted on admin_listen")
	} else if me := mysqlError(t, err); me.Number != 1227 {
		t.Errorf("non-admin on admin_listen: error %d, want 1227", me.Number)
	}
	if err := s.adminDB().Ping(); err != nil {
		t.Errorf("admin on admin_listen: %v", err)
	}
}

func TestMariadbCLIPrintsServerSettings(t *testing.T) {
	s := startServer(t, serverOptions{})
	out, err := mariadbCLI(t, s.addr, "default", "SELECT * FROM system.server_settings;\n", "--table")
	if err != nil {
		t.Fatalf("mariadb: %v\n%s", err, out)
	}
	for _, want := range []string{"os_cpu_busy_time_threshold", "1000000", "changeable_without_restart"} {
		if !strings.Contains(out, want) {
			t.Errorf("mariadb output lacks %q:\n%s", want, out)
		}
	}
}

func TestBadConfigExitsWithCode2(t *testing.T) {
	for _, tc := range []struct{ name, text, key string }{
		{"unknown key", "listn = \"127.0.0.1:1\"\n", "listn"},
		{"string for a number", "os_cpu_busy_time_threshold = \"abc\"\n", "os_cpu_busy_time_threshold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, binary, "--config", path).CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit: %v, want code 2\n%s", err, out)
			}
			if !strings.Contains(string(out), tc.key) || !strings.Contains(string(out), "config.toml:1") {
				t.Errorf("message does not name the file, line and key %q:\n%s", tc.key, out)
			}
		})
	}
}

func TestSIGTERMLetsRunningStatementFinish(t *testing.T) {
	// The heavy statement takes 2 s alone but over 10 s (the default shutdown_timeout_s) on a
	// machine loaded by other work; the test is about finishing, not about the timeout.
	s := startServer(t, serverOptions{top: "shutdown_timeout_s = 120\n"})
	db := s.db()
	done := make(chan error, 1)
	go func() {
		var n int64
		done <- db.QueryRow(heavyQuery).Scan(&n)
	}()
	eventually(t, 15*time.Second, "the heavy statement to start", func() (bool, string) {
		rows := queryStrings(t, s.adminDB(), "SELECT value FROM system.metrics WHERE metric = 'Query'")
		n := 0
		if len(rows) == 1 {
			n, _ = strconv.Atoi(rows[0])
		}
		return n >= 2, strings.Join(rows, ",")
	})
	if err := s.proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("statement running at SIGTERM failed: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("statement did not finish")
	}
	select {
	case <-s.proc.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("server did not exit after SIGTERM")
	}
	if s.proc.ExitErr() != nil {
		t.Errorf("exit after SIGTERM: %v, want code 0\n%s", s.proc.ExitErr(), s.log.String())
	}
}

func TestHashedPasswords(t *testing.T) {
	// SHA-256 and double SHA-1 of "secret".
	s := startServer(t, serverOptions{sections: `
[[users]]
name = "default"
admin = true

[[users]]
name = "sha"
password_sha256_hex = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"

[[users]]
name = "dsha"
password_double_sha1_hex = "14e65567abdb5135d0cfd9a70b3032c179a49ee7"
`})
	for _, user := range []string{"sha", "dsha"} {
		good := s.open(user, "secret", s.addr)
		if err := good.Ping(); err != nil {
			t.Errorf("%s with the right password: %v", user, err)
		}
		good.Close()
		bad := s.open(user, "wrong", s.addr)
		if err := bad.Ping(); err == nil {
			t.Errorf("%s with a wrong password was accepted", user)
		} else if me := mysqlError(t, err); me.Number != 1045 {
			t.Errorf("%s with a wrong password: %d, want 1045", user, me.Number)
		}
		bad.Close()
	}
	out, err := mariadbCLI(t, s.addr, "sha", "SELECT CURRENT_USER();\n", "-psecret")
	if err != nil || !strings.Contains(out, "sha@") {
		t.Errorf("mariadb CLI as a SHA-256 user: %v\n%s", err, out)
	}
}

func TestStatementOfAClientThatLeftIsCancelled(t *testing.T) {
	s := startServer(t, serverOptions{})
	client := s.open("default", "", s.addr)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	// Minutes of work; the driver closes the connection when the context ends.
	var n int64
	err := client.QueryRowContext(ctx, heavyQuery+", information_schema.columns c").Scan(&n)
	if err == nil {
		t.Fatal("the endless statement finished")
	}
	eventually(t, 15*time.Second, "the abandoned statement cancelled", func() (bool, string) {
		rows := queryStrings(t, s.adminDB(), "SELECT value FROM system.metrics WHERE metric = 'Query'")
		return len(rows) == 1 && rows[0] == "1", strings.Join(rows, ",") // only this one
	})
}
