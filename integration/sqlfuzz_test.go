package integration

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"overloadsql/cmd/sqlfuzz/fuzz"
	"overloadsql/internal/syncbuf"
)

// TestSQLFuzzAgainstMariaDB is the smoke run of the differential fuzzer: three seeds of up to
// 1 000 random statements each against the real server and against a MariaDB of its own;
// every difference must be one cmd/sqlfuzz/known-differences.toml lists with its reason.
func TestSQLFuzzAgainstMariaDB(t *testing.T) {
	mariaDSN := startMariaDB(t)
	s := startServer(t, serverOptions{})
	known, err := os.ReadFile("../cmd/sqlfuzz/known-differences.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []string{"1", "2", "3"} {
		var out, errOut bytes.Buffer
		args := []string{
			"-overloadsql", "default@tcp(" + s.addr + ")/main",
			"-mariadb", mariaDSN,
			"-seed", seed, "-statements", "1000", "-duration", "15s",
			"-reduce-time", "5s", "-max-reports", "5",
		}
		code := fuzz.Run(args, string(known), &out, &errOut)
		if code != 0 {
			t.Fatalf("sqlfuzz %v: exit code %d (1: differences that known-differences.toml does not list)\n%s\n%s", args, code, out.String(), errOut.String())
		}
		m := regexp.MustCompile(`seed ` + seed + `: (\d+) statements`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no summary in the report:\n%s", out.String())
		}
		// The run stops at 15 s even when the machine is slow; fewer than 100 statements
		// compare too little to count as a smoke run.
		if n, _ := strconv.Atoi(m[1]); n < 100 {
			t.Fatalf("seed %s: only %d statements ran:\n%s", seed, n, out.String())
		}
		t.Logf("%s", out.String())
	}

	// The reducer, on the known differences of a shorter run: each printed one replays.
	var out, errOut bytes.Buffer
	args := []string{
		"-overloadsql", "default@tcp(" + s.addr + ")/main", "-mariadb", mariaDSN,
		"-seed", "1", "-statements", "300", "-duration", "15s",
		"-v", "-max-reports", "1", "-reduce-time", "2s",
	}
	if code := fuzz.Run(args, string(known), &out, &errOut); code != 0 {
		t.Fatalf("sqlfuzz %v: exit code %d\n%s\n%s", args, code, out.String(), errOut.String())
	}
	printed := regexp.MustCompile(`(?m)^known \S+: seed 1, statement \d+$`).FindAllString(out.String(), -1)
	replayed := regexp.MustCompile(`(?m)^  reproduction \(replays from `).FindAllString(out.String(), -1)
	if len(printed) != len(replayed) {
		t.Fatalf("%d known differences printed, %d with a reproduction that replays:\n%s", len(printed), len(replayed), out.String())
	}
	t.Logf("%d known differences reduced to reproductions that replay", len(printed))
}

// startMariaDB starts Debian's mariadbd on a loopback port with a data directory of its own
// and returns the DSN of a user that may create databases. It is stopped at the test's end.
func startMariaDB(t *testing.T) string {
	t.Helper()
	mariadbd := need(t, "mariadbd")
	install := need(t, "mariadb-install-db")
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	sock := filepath.Join(dir, "mariadb.sock")
	// As root, --user=root: mariadbd refuses to run as root otherwise.
	initDB := exec.Command(install, "--no-defaults", "--datadir="+data, "--user="+me.Username,
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := initDB.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	addr := freePort(t)
	host, port, _ := net.SplitHostPort(addr)
	log := &syncbuf.Buffer{}
	cmd := exec.Command(mariadbd, "--no-defaults", "--datadir="+data, "--user="+me.Username,
		"--bind-address="+host, "--port="+port, "--socket="+sock, "--pid-file="+filepath.Join(dir, "mariadb.pid"),
		"--skip-name-resolve", "--skip-log-bin", "--innodb-buffer-pool-size=32M",
		"--innodb-flush-log-at-trx-commit=0", "--max-connections=20")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mariadbd: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("mariadbd log:\n%s", log.String())
		}
	})

	rootCfg := mysql.NewConfig()
	rootCfg.User, rootCfg.Net, rootCfg.Addr = "root", "unix", sock
	rootCfg.Timeout = 5 * time.Second
	connector, err := mysql.NewConnector(rootCfg)
	if err != nil {
		t.Fatal(err)
	}
	root := sql.OpenDB(connector)
	defer root.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("mariadbd exited before it was ready:\n%s", log.String())
		default:
		}
		if err = root.PingContext(context.Background()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mariadbd not ready after 60 s: %v\n%s", err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, q := range []string{
		"CREATE USER 'sqlfuzz'@'127.0.0.1' IDENTIFIED BY 'sqlfuzz'",
		"GRANT ALL ON *.* TO 'sqlfuzz'@'127.0.0.1'",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return fmt.Sprintf("sqlfuzz:sqlfuzz@tcp(%s)/sqlfuzz", addr)
}
