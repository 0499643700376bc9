package integration

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"overloadsql/internal/serverproc"
)

// SHA-256 of "secret".
const tlsUsers = `
[[users]]
name = "default"
admin = true

[[users]]
name = "sha"
password_sha256_hex = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"
`

// openTLS returns a pool for user over TLS without verifying the certificate (tls=skip-verify).
func (s *testServer) openTLS(user, password string) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, password, "tcp", s.addr
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, 30*time.Second, 10*time.Second
	cfg.AllowNativePasswords = true
	cfg.TLSConfig = "skip-verify"
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	s.t.Cleanup(func() { db.Close() })
	return db
}

// sslCipher is the session's Ssl_cipher status ("" without TLS).
func sslCipher(t *testing.T, db *sql.DB) string {
	t.Helper()
	var name, value string
	if err := db.QueryRow("SHOW STATUS LIKE 'Ssl_cipher'").Scan(&name, &value); err != nil {
		t.Fatalf("SHOW STATUS LIKE 'Ssl_cipher': %v", err)
	}
	return value
}

// TestTLS: at the first start the server generates a self-signed certificate beside its config
// and offers TLS; go-sql-driver, the mariadb CLI and Node mysql2 connect encrypted; the files are
// reused at the next start.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, serverOptions{dir: dir, sections: tlsUsers})
	certFile, keyFile := filepath.Join(dir, "server-cert.pem"), filepath.Join(dir, "server-key.pem")
	cert, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatalf("generated certificate: %v", err)
	}
	if st, err := os.Stat(keyFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("generated key: %v, mode %v, want 0600", err, st.Mode().Perm())
	}
	if !strings.Contains(s.log.String(), "generated a self-signed TLS certificate") {
		t.Errorf("the log does not say where the certificate was generated:\n%s", s.log.String())
	}

	if c := sslCipher(t, s.openTLS("default", "")); c == "" {
		t.Error("go-sql-driver tls=skip-verify: Ssl_cipher is empty")
	}
	if c := sslCipher(t, s.db()); c != "" {
		t.Errorf("plain connection: Ssl_cipher = %q, want empty", c)
	}

	host, port, _ := net.SplitHostPort(s.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, need(t, "mariadb"), "-h", host, "-P", port, "-u", "sha", "-psecret",
		"--ssl", "--skip-ssl-verify-server-cert", "--connect-timeout=5", "-N", "-e", "SHOW STATUS LIKE 'Ssl_cipher'").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Ssl_cipher\t") || strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Ssl_cipher")) == "" {
		t.Errorf("mariadb --ssl: %v\n%s", err, out)
	}

	node := need(t, "node")
	script := filepath.Join("clients", "node", "tls.js")
	needFile(t, filepath.Join("clients", "node", "node_modules", "mysql2", "package.json"), "cd integration/clients/node && npm install")
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = append(os.Environ(), "OSQL_HOST="+host, "OSQL_PORT="+port, "OSQL_USER=sha", "OSQL_PASSWORD=secret")
	out, err = cmd.Output()
	var got struct {
		Cipher, Version string
		Error           any
	}
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &got); jerr != nil || err != nil || got.Cipher == "" || got.Error != nil {
		t.Errorf("node mysql2 ssl: %v %v\n%s", err, jerr, out)
	}

	s.stop()
	startServer(t, serverOptions{dir: dir, sections: tlsUsers})
	again, err := os.ReadFile(certFile)
	if err != nil || !bytes.Equal(again, cert) {
		t.Errorf("the certificate was not reused at the next start: %v", err)
	}
}

// TestTLSReadOnlyConfigDirectory: a config directory the server cannot write (a Kubernetes
// ConfigMap volume, a root-owned directory in a container) does not stop the server: it keeps a
// generated certificate in memory, offers TLS with it, says so once in the log, and reloads.
func TestTLSReadOnlyConfigDirectory(t *testing.T) {
	dir := smallFileSystem(t)
	// The data directory is writable, as a server's must be (docs/storage.md).
	path, addr, admin, err := serverproc.WriteConfig(dir, "data_dir = "+quote(t.TempDir())+"\n", tlsUsers)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
	s := startWithConfig(t, serverOptions{dir: dir}, path, addr, admin)
	if c := sslCipher(t, s.openTLS("default", "")); c == "" {
		t.Error("go-sql-driver tls=skip-verify: Ssl_cipher is empty")
	}
	mustExec(t, s.adminDB(), "SYSTEM RELOAD CONFIG")
	if c := sslCipher(t, s.openTLS("default", "")); c == "" {
		t.Error("after a reload: Ssl_cipher is empty")
	}
	if n := strings.Count(s.log.String(), "kept in memory"); n != 1 {
		t.Errorf("the log says %d times that the certificate is kept in memory, want once:\n%s", n, s.log.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "server-cert.pem")); err == nil {
		t.Error("server-cert.pem was written on a read-only file system")
	}
}

// TestRequireSecureTransport: with require_secure_transport ON a login without TLS gets MySQL's
// error 3159; over TLS it works. caching_sha2_password's full authentication (the client sends
// the password itself after a scramble that does not match) runs over TLS and is refused
// without it.
func TestRequireSecureTransport(t *testing.T) {
	s := startServer(t, serverOptions{sections: tlsUsers})
	// Reloadable: switched on by a reload, so the harness could log in to start.
	s.rewriteConfig(serverOptions{top: `require_secure_transport = "ON"`, sections: tlsUsers})
	mustExec(t, s.adminDB(), "SYSTEM RELOAD CONFIG")
	var err error
	eventually(t, 10*time.Second, "plain logins refused", func() (bool, string) {
		db := s.open("sha", "secret", s.addr)
		defer db.Close()
		err = db.Ping()
		return err != nil, "a login without TLS is still accepted"
	})
	if me := mysqlError(t, err); me.Number != 3159 || me.Message != "Connections using insecure transport are prohibited while --require_secure_transport=ON." {
		t.Errorf("login without TLS: %d %s, want 3159", me.Number, me.Message)
	}
	if c := sslCipher(t, s.openTLS("sha", "secret")); c == "" {
		t.Error("over TLS: Ssl_cipher is empty")
	}

	// A wrong password over TLS goes through full authentication (the server asks for the
	// password) and is refused there; without TLS the server does not ask.
	err = s.openTLS("sha", "wrong").Ping()
	if err == nil {
		t.Fatal("wrong password over TLS accepted")
	}
	if me := mysqlError(t, err); me.Number != 1045 || strings.Contains(me.Message, "not using TLS") {
		t.Errorf("wrong password over TLS: %d %s, want 1045 after full authentication", me.Number, me.Message)
	}
}

// TestFullAuthenticationNeedsTLS: without require_secure_transport, a scramble that does not
// match is refused without TLS, as MySQL does, instead of asking for the password in clear.
func TestFullAuthenticationNeedsTLS(t *testing.T) {
	s := startServer(t, serverOptions{sections: tlsUsers})
	err := s.open("sha", "wrong", s.addr).Ping()
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	if me := mysqlError(t, err); me.Number != 1045 || !strings.Contains(me.Message, "not using TLS") {
		t.Errorf("wrong password without TLS: %d %s, want 1045 (not using TLS)", me.Number, me.Message)
	}
	if err := s.open("sha", "secret", s.addr).Ping(); err != nil {
		t.Errorf("right password without TLS (fast path): %v", err)
	}
}
