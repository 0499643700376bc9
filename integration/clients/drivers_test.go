package clients

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

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
		argv:            func(sc string) []string { return []string{"/usr/bin/python3", "python/client.py", name, sc} },
		sqlstateOnQuery: sqlstate,
		logins:          accounts,
		extra:           extra,
	}
}

func nodeDriver(name string, logins []account, extra ...string) driver {
	return driver{
		name:              name,
		argv:              func(sc string) []string { return []string{"node", "node/client.js", name, sc} },
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
			need(t, "/usr/bin/python3", "apt-get install python3")
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
			need(t, "node", "apt-get install nodejs npm")
			for _, pkg := range []string{"mysql2", "mysql", "knex"} {
				needFile(t, "node/node_modules/"+pkg+"/package.json", "cd integration/clients/node && npm install")
			}
			runDriver(t, d)
		})
	}
}

// runDriver runs every scenario of a driver against a server of its own.
func runDriver(t *testing.T, d driver) {
	s := startServer(t)
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
			wantError(t, d.sqlstateOnQuery, rs.step(t, "orphan").Error, 1452, "23000",
				"Cannot add or update a child row: a foreign key constraint fails")
		})
	},
	"overload": func(t *testing.T, d driver, rs reports) {
		e := rs.step(t, "rejected").Error
		wantError(t, d.sqlstateOnQuery, e, 745, "HY000", "CPU is overloaded, CPU is waiting for execution way more than executing")
		if e != nil && !strings.HasSuffix(e.Message, "(SERVER_OVERLOADED)") {
			t.Errorf("745 message %q does not end with (SERVER_OVERLOADED)", e.Message)
		}
		if v := rs.step(t, "after").Value; v == nil || *v != 1 {
			t.Errorf("SELECT 1 after the session lowered its threshold = %v, want 1", deref(v))
		}
	},
	"first_connect": func(t *testing.T, d driver, rs reports) {
		wantError(t, d.sqlstateOnQuery, rs.step(t, "overloaded").Error, 745, "HY000", "CPU is overloaded")
		if r := rs.step(t, "connected"); r.Error != nil || r.Value == nil {
			t.Fatalf("a new SQLAlchemy engine could not connect under overload: %+v", r.Error)
		}
		wantError(t, d.sqlstateOnQuery, rs.step(t, "select_1").Error, 745, "HY000", "CPU is overloaded")
	},
	"pool": func(t *testing.T, d driver, rs reports) {
		if v := rs.step(t, "before").Value; v == nil || *v != 1 {
			t.Errorf("SELECT 1 before dropping = %v, want 1", deref(v))
		}
		wantError(t, d.sqlstateOnConnect, rs.step(t, "dropped").Error, 1040, "08004", "Too many connections: CPU is overloaded")
		if v := rs.step(t, "recovered").Value; v == nil || *v != 1 {
			t.Errorf("SELECT 1 on the same pool after dropping ended = %v, want 1", deref(v))
		}
	},
}

// wantError checks a reported server error: errno, SQLSTATE (when the driver exposes it) and
// the start of the message.
func wantError(t *testing.T, checkState bool, e *serverError, errno int, state, prefix string) {
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
