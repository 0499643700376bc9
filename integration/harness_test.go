package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	// The tests run a binary built from these packages; importing them makes a change to them
	// invalidate go test's cached results of this package.
	"overloadsql/internal/serverproc"
	"overloadsql/internal/syncbuf"
	_ "overloadsql/server"
)

// binary is the overloadsql executable built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "overloadsql-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// OVERLOADSQL_RACE=1 runs the server under the race detector.
	binary, err = serverproc.Build(context.Background(), dir, os.Getenv("OVERLOADSQL_RACE") == "1")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := stopSharedServer(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// serverOptions shape one test server.
type serverOptions struct {
	// top is TOML for top-level keys (before any table); sections is TOML after it.
	top, sections string
	// pin runs the server under taskset -c pin (e.g. "0"); empty: not pinned.
	pin string
	// dir holds config.toml; empty: a new temporary directory.
	dir string
	// env is added to the server's environment.
	env []string
	// addressSpace, when not 0, limits the server's address space (prlimit --as, bytes).
	addressSpace uint64
	// args are more command-line arguments.
	args []string
	// defaultConfig starts the server without --config, in the config's directory.
	defaultConfig bool
}

// testServer is one running overloadsql process.
type testServer struct {
	t          testing.TB
	proc       *serverproc.Process
	addr       string
	adminAddr  string
	dir        string
	configPath string
	log        *syncbuf.Buffer
}

func freePort(t testing.TB) string {
	t.Helper()
	addr, err := serverproc.FreeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// startServer starts overloadsql and waits until it answers a ping.
func startServer(t testing.TB, o serverOptions) *testServer {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	path, addr, admin, err := serverproc.WriteConfig(o.dir, o.top, o.sections)
	if err != nil {
		t.Fatal(err)
	}
	return startWithConfig(t, o, path, addr, admin)
}

func startWithConfig(t testing.TB, o serverOptions, path, addr, admin string) *testServer {
	t.Helper()
	s := &testServer{t: t, addr: addr, adminAddr: admin, dir: o.dir, configPath: path, log: &syncbuf.Buffer{}}
	if o.addressSpace != 0 {
		if os.Getenv("OVERLOADSQL_RACE") == "1" {
			t.Skip("the race detector's shadow memory does not fit in the bounded address space (ThreadSanitizer failed to allocate)")
		}
		need(t, "prlimit")
	}
	proc, err := serverproc.Start(serverproc.Options{Binary: binary, ConfigPath: path, Pin: o.pin, Env: o.env, Log: s.log, AddressSpace: o.addressSpace, Args: o.args, DefaultConfig: o.defaultConfig})
	if err != nil {
		t.Fatal(err)
	}
	s.proc = proc
	t.Cleanup(func() {
		s.stop()
		if strings.Contains(s.log.String(), "WARNING: DATA RACE") {
			t.Error("the server reported a data race (OVERLOADSQL_RACE=1)")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.log.String())
		}
	})
	// The probe goes to the admin listener, so the main listener starts with no connection
	// and no count: a probe's connection is released by the server a moment after the client
	// closed it, and a test that counts connections (max_connections, AcceptedConnections)
	// must not see it. Any answer of the server, an error packet included, means it serves.
	probeAddr := s.adminAddr
	if probeAddr == "" {
		probeAddr = s.addr
	}
	err = proc.WaitReady(context.Background(), 60*time.Second, func() error {
		db := s.open("default", "", probeAddr)
		defer db.Close()
		var me *mysql.MySQLError
		if err := db.Ping(); err != nil && !errors.As(err, &me) {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log.String())
	}
	return s
}

// stop sends SIGTERM, then SIGKILL if the process has not exited within 15 s.
func (s *testServer) stop() { s.proc.Stop(15 * time.Second) }

// open returns a connection pool to addr; its connections are real MySQL connections.
func (s *testServer) open(user, password, addr string) *sql.DB {
	db, err := openPool(user, password, addr)
	if err != nil {
		s.t.Fatal(err)
	}
	return db
}

// db is a pool for the default admin user on the main listener.
func (s *testServer) db() *sql.DB {
	db := s.open("default", "", s.addr)
	s.t.Cleanup(func() { db.Close() })
	return db
}

// adminDB is a pool for the default admin user on the admin listener.
func (s *testServer) adminDB() *sql.DB {
	db := s.open("default", "", s.adminAddr)
	s.t.Cleanup(func() { db.Close() })
	return db
}

// mysqlError returns the server error inside err, or fails the test.
func mysqlError(t testing.TB, err error) *mysql.MySQLError {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("want a MySQL server error, got %v", err)
	}
	return me
}

// unavailable ends a test that lacks something outside Go it needs (a tool, a package, root):
// under CI (CI=true) it fails, since .ci/run provides all of them; elsewhere it is skipped.
func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: .ci/run should have provided it", why)
	}
	t.Skip(why)
}

// need returns the path of a command-line tool the test needs, or ends the test (unavailable).
func need(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		unavailable(t, fmt.Sprintf("%s is not installed (.ci/run installs it)", tool))
	}
	return p
}

// needFile ends the test (unavailable) unless path, a file a package installs, exists.
func needFile(t testing.TB, path, install string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		unavailable(t, fmt.Sprintf("%s is missing (%s)", path, install))
	}
}

// realCPU skips a test whose figures come from real CPU contention unless OVERLOADSQL_REAL_CPU=1:
// anything else running on the machine (go test runs packages in parallel) moves them, so such
// tests run alone, in a step of their own (CONTRIBUTING.md, "Real-CPU tests"; .ci/run).
func realCPU(t testing.TB) {
	t.Helper()
	if os.Getenv("OVERLOADSQL_REAL_CPU") != "1" {
		t.Skip("measures real CPU contention: run alone with OVERLOADSQL_REAL_CPU=1 go test -p 1 -run TestReal ./overload ./integration")
	}
}

// toolTimeout bounds one run of an external client (the mariadb CLI, a client script).
const toolTimeout = 90 * time.Second

// mariadbCLI runs the mariadb client against addr with the SQL on stdin and returns its
// combined output.
func mariadbCLI(t testing.TB, addr, user, sqlText string, extra ...string) (string, error) {
	t.Helper()
	bin := need(t, "mariadb")
	host, port, _ := net.SplitHostPort(addr)
	args := append([]string{"-h", host, "-P", port, "-u", user, "--skip-ssl", "--connect-timeout=5"}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = strings.NewReader(sqlText)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// eventually polls cond every 50 ms until it holds or the timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last state: %s", what, timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// queryStrings runs a query and returns its rows as strings joined by tabs.
func queryStrings(t testing.TB, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			parts[i] = v.String
			if !v.Valid {
				parts[i] = "NULL"
			}
		}
		out = append(out, strings.Join(parts, "\t"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// configText is the config file of a server on addr and admin with the given options.
func configText(addr, admin string, o serverOptions) string {
	return serverproc.ConfigText(addr, admin, o.top, o.sections)
}

// rewriteConfig writes a new config in place (same listeners).
func (s *testServer) rewriteConfig(o serverOptions) {
	s.t.Helper()
	if err := os.WriteFile(s.configPath, []byte(configText(s.addr, s.adminAddr, o)), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// replaceConfig writes a new config beside the old one and renames it over it, as editors do.
func (s *testServer) replaceConfig(o serverOptions) {
	s.t.Helper()
	tmp := s.configPath + ".swp"
	if err := os.WriteFile(tmp, []byte(configText(s.addr, s.adminAddr, o)), 0o644); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Rename(tmp, s.configPath); err != nil {
		s.t.Fatal(err)
	}
}

// startTool runs an external program (a load balancer, Prometheus) for the rest of the test:
// killed when the test ends, its output shown if the test failed.
func startTool(t *testing.T, name, bin string, args ...string) {
	t.Helper()
	log := &syncbuf.Buffer{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, log.String())
		}
	})
}

// oneValue runs a query that must answer exactly one row of one column (a row of a system
// table looked up by name) and returns it as text.
func oneValue(t testing.TB, db *sql.DB, query string, args ...any) string {
	t.Helper()
	rows := queryStrings(t, db, query, args...)
	if len(rows) != 1 {
		t.Fatalf("%s %v: %d rows %q, want one", query, args, len(rows), rows)
	}
	return rows[0]
}

// appUsers is the [[users]] part of a server with the admin `default` (no password) and the
// non-admin `app` (password "secret").
const appUsers = `
[[users]]
name = "default"
admin = true

[[users]]
name = "app"
password = "secret"
admin = false
`

// execer is a pool, a connection or a transaction.
type execer interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}

// mustExec runs the statements in order and fails the test at the first error.
func mustExec(t testing.TB, db execer, queries ...string) {
	t.Helper()
	for _, q := range queries {
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// session is one connection of db, closed with the test, after the setup statements ran on it.
func session(t *testing.T, db *sql.DB, setup ...string) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mustExec(t, c, setup...)
	return c
}

// intOn runs a query that answers one integer on conn.
func intOn(t *testing.T, conn *sql.Conn, query string) int {
	t.Helper()
	var n int
	if err := conn.QueryRowContext(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// wantError runs stmt and checks that it fails with the MySQL error number and SQLSTATE.
func wantError(t *testing.T, db *sql.DB, stmt string, number uint16, state string) *mysql.MySQLError {
	t.Helper()
	_, err := db.Exec(stmt)
	if err == nil {
		t.Errorf("%s: succeeded, want error %d (%s)", stmt, number, state)
		return nil
	}
	me := mysqlError(t, err)
	if me.Number != number || string(me.SQLState[:]) != state {
		t.Errorf("%s: error %d (%s) %q, want %d (%s)", stmt, me.Number, string(me.SQLState[:]), me.Message, number, state)
	}
	return me
}

// event reads one counter of system.events.
func event(t testing.TB, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) int {
	t.Helper()
	var n int
	err := db.QueryRowContext(context.Background(), "SELECT value FROM system.events WHERE event = ?", name).Scan(&n)
	if err != nil {
		t.Fatalf("system.events %s: %v", name, err)
	}
	return n
}

// gauge reads one row of system.metrics.
func gauge(t testing.TB, db *sql.DB, name string) string {
	t.Helper()
	return oneValue(t, db, "SELECT value FROM system.metrics WHERE metric = ?", name)
}

// serverSetting reads one row of system.server_settings.
func serverSetting(t testing.TB, db *sql.DB, name string) string {
	t.Helper()
	return oneValue(t, db, "SELECT value FROM system.server_settings WHERE name = ?", name)
}

// globalValue reads @@GLOBAL.name as text.
func globalValue(t testing.TB, db *sql.DB, name string) string {
	t.Helper()
	return queryStrings(t, db, "SELECT @@GLOBAL."+name)[0]
}

// metric reads one row of system.asynchronous_metrics.
func metric(t *testing.T, admin *sql.DB, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(oneValue(t, admin, "SELECT value FROM system.asynchronous_metrics WHERE metric = ?", name), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// alive fails the test if the server process has exited or no longer answers.
func (s *testServer) alive(t testing.TB, after string) {
	t.Helper()
	select {
	case <-s.proc.Exited():
		t.Fatalf("the server died after %s: %v", after, s.proc.ExitErr())
	default:
	}
	db := s.open("default", "", s.adminAddr)
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatalf("the server does not answer after %s: %v", after, err)
	}
}

// loadKeyedTable creates table (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k)) and
// inserts rows 1 to rows in one statement, each with k = id % mod and c = 'c' followed by id.
func loadKeyedTable(t testing.TB, db execer, table string, rows, mod int) {
	t.Helper()
	values := make([]string, 0, rows)
	for id := 1; id <= rows; id++ {
		values = append(values, fmt.Sprintf("(%d, %d, 'c%d')", id, id%mod, id))
	}
	mustExec(t, db, "CREATE TABLE "+table+" (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))",
		"INSERT INTO "+table+" VALUES "+strings.Join(values, ", "))
}

// heavyQuery keeps one core busy for about a second or two on this kind of machine.
const heavyQuery = "SELECT COUNT(*) FROM information_schema.columns a, information_schema.columns b"

// startHTTPServer starts overloadsql with http_listen on a free port; top adds top-level keys.
func startHTTPServer(t *testing.T, top string) (*testServer, string) {
	t.Helper()
	httpAddr := freePort(t)
	s := startServer(t, serverOptions{top: fmt.Sprintf("http_listen = %q\n%s", httpAddr, top)})
	return s, "http://" + httpAddr
}

// httpGet returns the status and body of GET url (with basic auth when user is not empty).
func httpGet(t testing.TB, rawURL, user, password string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	return resp.StatusCode, string(body)
}
