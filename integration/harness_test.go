package integration

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	// The tests run a binary built from these packages; importing them makes a change to them
	// invalidate go test's cached results of this package.
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
	binary = filepath.Join(dir, "overloadsql")
	args := []string{"build", "-o", binary}
	if os.Getenv("OVERLOADSQL_RACE") == "1" {
		args = append(args, "-race") // the server under the race detector
	}
	build := exec.Command("go", append(args, "../cmd/overloadsql")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build overloadsql:", err)
		os.Exit(1)
	}
	code := m.Run()
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
}

// testServer is one running overloadsql process.
type testServer struct {
	t          testing.TB
	cmd        *exec.Cmd
	addr       string
	adminAddr  string
	dir        string
	configPath string
	log        *syncBuffer
	exited     chan struct{}
	exitErr    error
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// writeConfig writes the test config with fresh ports and returns the addresses.
func writeConfig(t testing.TB, dir string, o serverOptions) (path, addr, admin string) {
	t.Helper()
	addr, admin = freePort(t), freePort(t)
	path = filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(configText(addr, admin, o)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, addr, admin
}

// startServer starts overloadsql and waits until it answers SELECT 1.
func startServer(t testing.TB, o serverOptions) *testServer {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	path, addr, admin := writeConfig(t, o.dir, o)
	return startWithConfig(t, o, path, addr, admin)
}

func startWithConfig(t testing.TB, o serverOptions, path, addr, admin string) *testServer {
	t.Helper()
	args := []string{binary, "--config", path}
	if o.pin != "" {
		args = append([]string{"taskset", "-c", o.pin}, args...)
	}
	s := &testServer{t: t, addr: addr, adminAddr: admin, dir: o.dir, configPath: path, log: &syncBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(args[0], args[1:]...)
	s.cmd.Dir = o.dir
	s.cmd.Env = append(os.Environ(), o.env...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	go func() {
		s.exitErr = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.stop()
		if strings.Contains(s.log.String(), "WARNING: DATA RACE") {
			t.Error("the server reported a data race (OVERLOADSQL_RACE=1)")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.log.String())
		}
	})
	s.waitReady()
	return s
}

func (s *testServer) waitReady() {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			s.t.Fatalf("server exited before it was ready: %v\n%s", s.exitErr, s.log.String())
		default:
		}
		db := s.open("default", "", s.addr)
		err := db.Ping()
		db.Close()
		if err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("server not ready after 60 s:\n%s", s.log.String())
}

// stop sends SIGTERM, then SIGKILL if the process has not exited within 15 s.
func (s *testServer) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// open returns a connection pool to addr; its connections are real MySQL connections.
func (s *testServer) open(user, password, addr string) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, password, "tcp", addr
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, 60*time.Second, 10*time.Second
	cfg.AllowNativePasswords = true
	cfg.InterpolateParams = false
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	return sql.OpenDB(connector)
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

func (s *testServer) port() string {
	_, p, _ := net.SplitHostPort(s.addr)
	return p
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

// need returns the path of a command-line tool the test needs. Under CI (CI=true) a missing
// tool fails the test, since .ci/run installs it; elsewhere the test is skipped.
func need(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing: .ci/run should have installed it", tool)
	}
	t.Skipf("%s is not installed (apt-get install -y mariadb-client stress-ng)", tool)
	return ""
}

// mariadbCLI runs the mariadb client against addr with the SQL on stdin and returns its
// combined output.
func mariadbCLI(t testing.TB, addr, user, sqlText string, extra ...string) (string, error) {
	t.Helper()
	bin := need(t, "mariadb")
	host, port, _ := net.SplitHostPort(addr)
	args := append([]string{"-h", host, "-P", port, "-u", user, "--skip-ssl", "--connect-timeout=5"}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = strings.NewReader(sqlText)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// eventually polls cond until it holds or the timeout passes.
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
func queryStrings(t testing.TB, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
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

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// configText is the config file of a server on addr and admin with the given options.
func configText(addr, admin string, o serverOptions) string {
	return fmt.Sprintf("listen = %q\nadmin_listen = %q\n%s\n%s\n", addr, admin, o.top, o.sections)
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
