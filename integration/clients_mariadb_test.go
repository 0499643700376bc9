package integration

import (
	"context"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMariadbCLI drives the mariadb command-line client: every kind of account logs in, SQL
// PREPARE/EXECUTE works, an overload hint takes effect only with --comments, and the two
// spellings of SYSTEM RELOAD CONFIG that docs/operations.md gives reach the server.
func TestMariadbCLI(t *testing.T) {
	need(t, "mariadb")
	s := startServer(t, serverOptions{sections: clientUsers()})

	for _, a := range accounts {
		t.Run("connect/"+a.kind, func(t *testing.T) {
			out, err := mariadbCLI(t, s.addr, a.name, "SELECT CURRENT_USER()", "-p"+clientPassword, "-N", "-B")
			if err != nil || !strings.HasPrefix(out, a.name+"@") {
				t.Errorf("mariadb as %s: %v\n%s", a.name, err, out)
			}
		})
	}

	t.Run("sql_prepare", func(t *testing.T) {
		out, err := mariadbCLI(t, s.addr, plainAccount.name, `
CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(20));
PREPARE ins FROM 'INSERT INTO p VALUES (?, ?)';
SET @i = 1, @n = 'one';
EXECUTE ins USING @i, @n;
SET @i = 2, @n = 'two';
EXECUTE ins USING @i, @n;
DEALLOCATE PREPARE ins;
PREPARE sel FROM 'SELECT name FROM p WHERE id = ?';
SET @i = 2;
EXECUTE sel USING @i;
`, "-p"+clientPassword, "-N", "-B")
		if err != nil || strings.TrimSpace(out) != "two" {
			t.Errorf("PREPARE / EXECUTE in the mariadb CLI: %v\n%s", err, out)
		}
	})

	t.Run("hint_needs_comments", func(t *testing.T) {
		if out, err := mariadbCLI(t, s.adminAddr, "default", "SET GLOBAL simulated_os_cpu_overload = 7"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		const hinted = "SELECT /*+ SET_VAR(min_os_cpu_wait_time_ratio_to_throw = 1) SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 2) */ 1"
		// With --comments the hint reaches the server and the statement is rejected.
		eventually(t, 15*time.Second, "745 for a hinted statement with --comments", func() (bool, string) {
			out, err := mariadbCLI(t, s.addr, plainAccount.name, hinted, "-p"+clientPassword, "-N", "-B", "--comments")
			return err != nil && strings.Contains(out, "ERROR 745 (HY000)") && strings.Contains(out, "(SERVER_OVERLOADED)"), out
		})
		// Without it the CLI strips the hint, and the statement runs.
		out, err := mariadbCLI(t, s.addr, plainAccount.name, hinted, "-p"+clientPassword, "-N", "-B")
		if err != nil || strings.TrimSpace(out) != "1" {
			t.Errorf("without --comments the hint should be stripped and the statement run: %v\n%s", err, out)
		}
	})

	// `mariadb -e "SYSTEM RELOAD CONFIG"` runs the client's own `system` shell command. These two
	// spellings send the statement to the server instead.
	for name, args := range map[string][]string{
		"reload_binary_mode":     {"--binary-mode", "-e", "SYSTEM RELOAD CONFIG"},
		"reload_leading_comment": {"-e", "/* reload */ SYSTEM RELOAD CONFIG"},
	} {
		t.Run(name, func(t *testing.T) {
			before := strings.Count(s.log.String(), `msg="config reloaded"`)
			if out, err := mariadbCLI(t, s.adminAddr, "default", "", args...); err != nil || out != "" {
				t.Fatalf("mariadb %q: %v\n%s", args, err, out)
			}
			eventually(t, 10*time.Second, "a config reload logged by the server", func() (bool, string) {
				n := strings.Count(s.log.String(), `msg="config reloaded"`)
				return n > before, s.log.String()
			})
		})
	}
}

// dumpSchema is what the dump test puts in `main`: a primary key with AUTO_INCREMENT, a secondary
// index, a foreign key, and values that need quoting.
const dumpSchema = `
CREATE TABLE customer (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email VARCHAR(100) NOT NULL,
  name VARCHAR(100),
  balance DECIMAL(10,2) NOT NULL DEFAULT 0,
  joined DATETIME,
  note TEXT,
  UNIQUE KEY email (email)
);
CREATE TABLE orders (
  id BIGINT NOT NULL PRIMARY KEY,
  customer_id INT NOT NULL,
  amount DOUBLE,
  placed DATE,
  KEY placed (placed),
  FOREIGN KEY (customer_id) REFERENCES customer (id)
);
INSERT INTO customer (email, name, balance, joined, note) VALUES
  ('ann@example.com', 'Ann O''Neil', 12.50, '2026-01-02 03:04:05', 'line one\nline two'),
  ('bo@example.com', 'Bø Ström', -3.25, NULL, 'back\\slash "quoted" \t tab'),
  ('cy@example.com', NULL, 0, '1999-12-31 23:59:59', NULL);
INSERT INTO orders VALUES (10, 1, 99.5, '2026-02-03'), (11, 1, NULL, NULL), (12, 2, 0.125, '2025-12-31');
`

// TestMariadbDumpRestore dumps `main` with mariadb-dump --single-transaction and restores the
// dump into a second server with the mariadb CLI: the same tables, definitions and rows.
func TestMariadbDumpRestore(t *testing.T) {
	dump := need(t, "mariadb-dump")
	need(t, "mariadb")
	src, dst := startServer(t, serverOptions{sections: clientUsers()}), startServer(t, serverOptions{sections: clientUsers()})
	if out, err := mariadbCLI(t, src.addr, "default", dumpSchema, "main"); err != nil {
		t.Fatalf("load the source: %v\n%s", err, out)
	}

	host, port, _ := net.SplitHostPort(src.addr)
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dump, "-h", host, "-P", port, "-u", "default", "--skip-ssl",
		"--single-transaction", "main")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	text, err := cmd.Output()
	if err != nil {
		t.Fatalf("mariadb-dump --single-transaction main: %v\n%s", err, stderr.String())
	}
	if out, err := mariadbCLI(t, dst.addr, "default", string(text), "main"); err != nil {
		t.Fatalf("restore the dump: %v\n%s\ndump:\n%s", err, out, text)
	}

	tables := queryStrings(t, src.adminDB(), "SHOW TABLES FROM main")
	if got := queryStrings(t, dst.adminDB(), "SHOW TABLES FROM main"); !slices.Equal(got, tables) || len(tables) != 2 {
		t.Fatalf("tables after restore = %q, source has %q (want customer and orders)", got, tables)
	}
	for _, table := range tables {
		for _, q := range []string{"SHOW CREATE TABLE main." + table, "SELECT * FROM main." + table + " ORDER BY id"} {
			want, got := queryStrings(t, src.adminDB(), q), queryStrings(t, dst.adminDB(), q)
			if !slices.Equal(got, want) {
				t.Errorf("%s after restore:\n%q\nsource:\n%q", q, got, want)
			}
		}
	}
}
