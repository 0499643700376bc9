package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The client tests drive overloadsql with the MySQL clients, ORMs and tools people already use:
// PyMySQL, mysqlclient (MySQLdb) and SQLAlchemy in clients/python/, the npm packages mysql2,
// mysql and knex in clients/node/, the mariadb CLI and mariadb-dump.
//
// Each client is driven by a short script committed in clients/. A script runs one scenario
// (connect, CRUD, a transaction, a foreign key, prepared statements, overload, a pool across
// dropping) against a server whose addresses it gets in its environment, and prints one JSON
// line per observation; the Go test starts the real server, runs the script with a time bound
// and asserts on those lines, so a client's own behaviour stays in the client's language and
// every expectation stays here. The expectations are MySQL 8's.

// clientPassword is the password of every client test account but the admin's.
const clientPassword = "secret"

// account is a login of the test server and the kind of password entry it has in the config.
type account struct{ name, kind string }

// The three kinds of password entry a [[users]] item can have.
var (
	plainAccount      = account{"app", "password"}
	sha256Account     = account{"app_sha256", "password_sha256_hex"}
	doubleSHA1Account = account{"app_native", "password_double_sha1_hex"}
	accounts          = []account{plainAccount, sha256Account, doubleSHA1Account}
)

// clientUsers is the [[users]] part of every test server: the admin `default` with an empty
// password and one non-admin account per kind of password entry.
func clientUsers() string {
	s256 := sha256.Sum256([]byte(clientPassword))
	s1 := sha1.Sum([]byte(clientPassword))
	s11 := sha1.Sum(s1[:])
	return fmt.Sprintf(`
[[users]]
name = "default"
admin = true

[[users]]
name = %q
password = %q

[[users]]
name = %q
password_sha256_hex = %q

[[users]]
name = %q
password_double_sha1_hex = %q
`, plainAccount.name, clientPassword, sha256Account.name, hex.EncodeToString(s256[:]),
		doubleSHA1Account.name, hex.EncodeToString(s11[:]))
}

// serverError is an error as a client script reports it; sqlstate is empty where the driver
// does not expose it.
type serverError struct {
	Errno    int    `json:"errno"`
	SQLState string `json:"sqlstate"`
	Message  string `json:"message"`
}

// report is one JSON line of a client script: the step and what it saw.
type report struct {
	Step       string       `json:"step"`
	Error      *serverError `json:"error"`
	User       string       `json:"user"`
	Rows       [][]any      `json:"rows"`
	Count      *int         `json:"count"`
	Tables     []string     `json:"tables"`
	Columns    []string     `json:"columns"`
	Migrations []string     `json:"migrations"`
	IsLocked   *int         `json:"is_locked"`
	Value      *int         `json:"value"`
	Tries      int          `json:"tries"`
}

// reports is the output of one script run.
type reports []report

// step returns the last report of the named step, or fails the test.
func (rs reports) step(t testing.TB, name string) report {
	t.Helper()
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Step == name {
			return rs[i]
		}
	}
	t.Fatalf("the script reported no %q step; it reported %+v", name, rs)
	return report{}
}

// runScript runs a client script with the server's addresses and the account in its
// environment and returns its reports. A script that exits non-zero fails the test with its
// output.
func runScript(t testing.TB, s *testServer, a account, table string, argv ...string) reports {
	t.Helper()
	host, port, _ := net.SplitHostPort(s.addr)
	_, adminPort, _ := net.SplitHostPort(s.adminAddr)
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(),
		"OSQL_HOST="+host, "OSQL_PORT="+port, "OSQL_ADMIN_PORT="+adminPort,
		"OSQL_USER="+a.name, "OSQL_PASSWORD="+clientPassword, "OSQL_TABLE="+table)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var rs reports
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var r report
		if jerr := json.Unmarshal(sc.Bytes(), &r); jerr != nil {
			t.Fatalf("%s: a line that is not a report: %q (%v)\nstderr:\n%s", strings.Join(argv, " "), sc.Text(), jerr, stderr.String())
		}
		rs = append(rs, r)
	}
	if err != nil {
		t.Fatalf("%s as %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), a.name, err, stdout.String(), stderr.String())
	}
	return rs
}

// driver is one client library and how its script is run.
type driver struct {
	name string
	// argv runs the driver's script for a scenario.
	argv func(scenario string) []string
	// sqlstateOnQuery / sqlstateOnConnect: the driver exposes the SQLSTATE of an error of a
	// statement / of a refused connection, so the test can check it.
	sqlstateOnQuery, sqlstateOnConnect bool
	// logins are the account kinds this driver can log in with (see docs/operations.md).
	logins []account
	// scenarios this driver runs beyond the common ones.
	extra []string
}

func pythonDriver(name string, sqlstate bool, extra ...string) driver {
	return driver{
		name:            name,
		argv:            func(sc string) []string { return []string{"/usr/bin/python3", "clients/python/client.py", name, sc} },
		sqlstateOnQuery: sqlstate,
		logins:          accounts,
		extra:           extra,
	}
}

func nodeDriver(name string, logins []account, extra ...string) driver {
	return driver{
		name:              name,
		argv:              func(sc string) []string { return []string{"node", "clients/node/client.js", name, sc} },
		sqlstateOnQuery:   true,
		sqlstateOnConnect: true,
		logins:            logins,
		extra:             extra,
	}
}

// TestPython drives PyMySQL, mysqlclient (MySQLdb) and SQLAlchemy (over PyMySQL), Debian's
// packages, with /usr/bin/python3.
func TestPython(t *testing.T) {
	for _, d := range []driver{
		pythonDriver("pymysql", false), // PyMySQL keeps only errno and message of an error
		pythonDriver("mysqldb", true),
		pythonDriver("sqlalchemy", false, "first_connect"),
	} {
		t.Run(d.name, func(t *testing.T) {
			need(t, "/usr/bin/python3")
			for _, pkg := range []string{"pymysql", "MySQLdb", "sqlalchemy"} {
				needFile(t, "/usr/lib/python3/dist-packages/"+pkg, "apt-get install python3-pymysql python3-mysqldb python3-sqlalchemy")
			}
			runDriver(t, d)
		})
	}
}

// TestNode drives the npm packages mysql2, mysql and knex (over mysql2) with node.
func TestNode(t *testing.T) {
	// The npm mysql package does not speak caching_sha2_password, which a password_sha256_hex
	// account needs (MySQL 8 answers it the same way): it logs in with the other two kinds.
	for _, d := range []driver{
		nodeDriver("mysql2", accounts, "prepared"),
		nodeDriver("mysql", []account{plainAccount, doubleSHA1Account}),
		nodeDriver("knex", accounts),
	} {
		t.Run(d.name, func(t *testing.T) {
			need(t, "node")
			for _, pkg := range []string{"mysql2", "mysql", "knex"} {
				needFile(t, "clients/node/node_modules/"+pkg+"/package.json", "cd integration/clients/node && npm install")
			}
			runDriver(t, d)
		})
	}
}

// runDriver runs every scenario of a driver against a server of its own.
func runDriver(t *testing.T, d driver) {
	s := startServer(t, serverOptions{sections: clientUsers()})
	for _, a := range d.logins {
		t.Run("connect/"+a.kind, func(t *testing.T) {
			r := runScript(t, s, a, "", d.argv("connect")...).step(t, "connect")
			if !strings.HasPrefix(r.User, a.name+"@") {
				t.Errorf("CURRENT_USER() = %q, want %s@...", r.User, a.name)
			}
		})
	}
	scenarios := append([]string{"crud", "rollback", "fk"}, d.extra...)
	scenarios = append(scenarios, "overload", "pool") // last: they change global state
	for _, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			rs := runScript(t, s, plainAccount, "t_"+sc, d.argv(sc)...)
			checks[sc](t, d, rs)
		})
	}
}

// checks assert on a scenario's reports what MySQL 8 would show.
var checks = map[string]func(t *testing.T, d driver, rs reports){
	"crud": func(t *testing.T, d driver, rs reports) {
		wantRows(t, rs.step(t, "rows").Rows, [][]any{{2, "TWO"}, {3, "it's"}})
	},
	"prepared": func(t *testing.T, d driver, rs reports) {
		wantRows(t, rs.step(t, "rows").Rows, [][]any{{1, "one"}, {2, "it's"}})
	},
	"rollback": func(t *testing.T, d driver, rs reports) {
		if c := rs.step(t, "after_rollback").Count; c == nil || *c != 0 {
			t.Errorf("rows after INSERT and ROLLBACK = %v, want 0: the rollback did not undo", deref(c))
		}
		if c := rs.step(t, "after_commit").Count; c == nil || *c != 1 {
			t.Errorf("rows after INSERT and COMMIT, seen from a new connection = %v, want 1", deref(c))
		}
	},
	"fk": func(t *testing.T, d driver, rs reports) {
		if d.name == "knex" {
			if m := rs.step(t, "migrated").Migrations; !slices.Equal(m, []string{"20261201000000_parent_child.js"}) {
				t.Errorf("migrations applied = %q", m)
			}
			if l := rs.step(t, "lock").IsLocked; l == nil || *l != 0 {
				t.Errorf("knex_migrations_lock.is_locked = %v after the migration, want 0", deref(l))
			}
		}
		if d.name == "sqlalchemy" {
			if pk := rs.step(t, "primary_key").Columns; !slices.Equal(pk, []string{"id"}) {
				t.Errorf("primary key seen by SQLAlchemy's inspector = %q, want [id]", pk)
			}
		}
		if tabs := rs.step(t, "created").Tables; !slices.Equal(tabs, []string{"t_fk_child", "t_fk_parent"}) {
			t.Errorf("tables created = %q", tabs)
		}
		t.Run("violation", func(t *testing.T) {
			wantReported(t, d.sqlstateOnQuery, rs.step(t, "orphan").Error, 1452, "23000",
				"Cannot add or update a child row: a foreign key constraint fails")
		})
	},
	"overload": func(t *testing.T, d driver, rs reports) {
		e := rs.step(t, "rejected").Error
		wantReported(t, d.sqlstateOnQuery, e, 745, "HY000", "CPU is overloaded, CPU is waiting for execution way more than executing")
		if e != nil && !strings.HasSuffix(e.Message, "(SERVER_OVERLOADED)") {
			t.Errorf("745 message %q does not end with (SERVER_OVERLOADED)", e.Message)
		}
		if v := rs.step(t, "after").Value; v == nil || *v != 1 {
			t.Errorf("SELECT 1 after the session lowered its threshold = %v, want 1", deref(v))
		}
	},
	"first_connect": func(t *testing.T, d driver, rs reports) {
		wantReported(t, d.sqlstateOnQuery, rs.step(t, "overloaded").Error, 745, "HY000", "CPU is overloaded")
		if r := rs.step(t, "connected"); r.Error != nil || r.Value == nil {
			t.Fatalf("a new SQLAlchemy engine could not connect under overload: %+v", r.Error)
		}
		wantReported(t, d.sqlstateOnQuery, rs.step(t, "select_1").Error, 745, "HY000", "CPU is overloaded")
	},
	"pool": func(t *testing.T, d driver, rs reports) {
		if v := rs.step(t, "before").Value; v == nil || *v != 1 {
			t.Errorf("SELECT 1 before dropping = %v, want 1", deref(v))
		}
		wantReported(t, d.sqlstateOnConnect, rs.step(t, "dropped").Error, 1040, "08004", "Too many connections: CPU is overloaded")
		if v := rs.step(t, "recovered").Value; v == nil || *v != 1 {
			t.Errorf("SELECT 1 on the same pool after dropping ended = %v, want 1", deref(v))
		}
	},
}

// wantReported checks a reported server error: errno, SQLSTATE (when the driver exposes it) and
// the start of the message.
func wantReported(t *testing.T, checkState bool, e *serverError, errno int, state, prefix string) {
	t.Helper()
	if e == nil {
		t.Errorf("no error reported, want %d (%s) %q", errno, state, prefix)
		return
	}
	if e.Errno != errno || (checkState && e.SQLState != state) || !strings.HasPrefix(e.Message, prefix) {
		t.Errorf("error %d (%s) %q, want %d (%s) %q...", e.Errno, e.SQLState, e.Message, errno, state, prefix)
	}
}

func wantRows(t *testing.T, got, want [][]any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}
