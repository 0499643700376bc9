package clients

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"

	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	// The tests run a binary built from these packages; importing them makes a change to them
	// invalidate go test's cached results of this package.
	"overloadsql/internal/serverproc"
	_ "overloadsql/server"
)

// binary is the overloadsql executable built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "overloadsql-clients-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, err = serverproc.Build(context.Background(), dir, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// password is the password of every test account but the admin's.
const password = "secret"

// account is a login of the test server and the kind of password entry it has in the config.
type account struct{ name, kind string }

// The three kinds of password entry a [[users]] item can have.
var (
	plainAccount      = account{"app", "password"}
	sha256Account     = account{"app_sha256", "password_sha256_hex"}
	doubleSHA1Account = account{"app_native", "password_double_sha1_hex"}
	accounts          = []account{plainAccount, sha256Account, doubleSHA1Account}
)

// usersConfig is the [[users]] part of every test server: the admin `default` with an empty
// password and one non-admin account per kind of password entry.
func usersConfig() string {
	s256 := sha256.Sum256([]byte(password))
	s1 := sha1.Sum([]byte(password))
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
`, plainAccount.name, password, sha256Account.name, hex.EncodeToString(s256[:]),
		doubleSHA1Account.name, hex.EncodeToString(s11[:]))
}

// server is one running overloadsql process.
type server struct {
	t         testing.TB
	proc      *serverproc.Process
	addr      string
	adminAddr string
	log       *serverproc.LogBuffer
}

// logTail is how much of the server's log a failed test shows (the engine logs a stack trace
// with every failed statement).
const logTail = 8000

// startServer starts overloadsql with the test accounts on free loopback ports and waits until
// it answers a ping. It is stopped when the test ends.
func startServer(t testing.TB) *server {
	t.Helper()
	path, addr, admin, err := serverproc.WriteConfig(t.TempDir(), "", usersConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, addr: addr, adminAddr: admin, log: &serverproc.LogBuffer{}}
	s.proc, err = serverproc.Start(serverproc.Options{Binary: binary, ConfigPath: path, Log: s.log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.proc.Stop(15 * time.Second)
		if t.Failed() {
			log := s.log.String()
			if len(log) > logTail {
				log = "..." + log[len(log)-logTail:]
			}
			t.Logf("server log:\n%s", log)
		}
	})
	err = s.proc.WaitReady(context.Background(), 60*time.Second, func() error {
		db := s.open(s.addr)
		defer db.Close()
		return db.Ping()
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log.String())
	}
	return s
}

// open returns a go-sql-driver pool for the admin `default` on addr.
func (s *server) open(addr string) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "default", "tcp", addr, "main"
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, 30*time.Second, 10*time.Second
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	return sql.OpenDB(connector)
}

// query runs a statement as the admin on the admin listener and returns its rows as strings
// joined by tabs.
func (s *server) query(query string) []string {
	s.t.Helper()
	db := s.open(s.adminAddr)
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		s.t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			s.t.Fatal(err)
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
		s.t.Fatalf("%s: %v", query, err)
	}
	return out
}

// need returns the path of a command-line tool the test needs. Under CI (CI=true) a missing
// tool fails the test, since .ci/run installs it; elsewhere the test is skipped.
func need(t testing.TB, tool, install string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err == nil {
		return p
	}
	missing(t, fmt.Sprintf("%s is not installed (%s)", tool, install))
	return ""
}

// needFile is need for a file a package installs.
func needFile(t testing.TB, path, install string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(t, fmt.Sprintf("%s is missing (%s)", path, install))
	}
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: .ci/run should have installed it", why)
	}
	t.Skip(why)
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

// scriptTimeout bounds one script run; the scripts bound their own waits to 15 s.
const scriptTimeout = 90 * time.Second

// runScript runs a client script with the server's addresses and the account in its
// environment and returns its reports. A script that exits non-zero fails the test with its
// output.
func runScript(t testing.TB, s *server, a account, table string, argv ...string) reports {
	t.Helper()
	host, port, _ := net.SplitHostPort(s.addr)
	_, adminPort, _ := net.SplitHostPort(s.adminAddr)
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(),
		"OSQL_HOST="+host, "OSQL_PORT="+port, "OSQL_ADMIN_PORT="+adminPort,
		"OSQL_USER="+a.name, "OSQL_PASSWORD="+password, "OSQL_TABLE="+table)
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

// mariadb runs the mariadb CLI against addr as user with the SQL on stdin and returns its
// combined output.
func mariadb(t testing.TB, addr, user, pass, sqlText string, extra ...string) (string, error) {
	t.Helper()
	bin := need(t, "mariadb", "apt-get install mariadb-client")
	host, port, _ := net.SplitHostPort(addr)
	args := []string{"-h", host, "-P", port, "-u", user, "--skip-ssl", "--connect-timeout=5"}
	if pass != "" {
		args = append(args, "-p"+pass)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, extra...)...)
	cmd.Stdin = strings.NewReader(sqlText)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// eventually polls cond every 50 ms until it holds or the timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last state: %s", what, timeout, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
