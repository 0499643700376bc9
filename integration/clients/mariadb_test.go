package clients

import (
	"strings"
	"testing"
	"time"
)

// TestMariadbCLI drives the mariadb command-line client: every kind of account logs in, an
// overload hint takes effect only with --comments, and the two spellings of SYSTEM RELOAD
// CONFIG that docs/operations.md gives reach the server.
func TestMariadbCLI(t *testing.T) {
	need(t, "mariadb", "apt-get install mariadb-client")
	s := startServer(t)

	for _, a := range accounts {
		t.Run("connect/"+a.kind, func(t *testing.T) {
			out, err := mariadb(t, s.addr, a.name, password, "SELECT CURRENT_USER()", "-N", "-B")
			if err != nil || !strings.HasPrefix(out, a.name+"@") {
				t.Errorf("mariadb as %s: %v\n%s", a.name, err, out)
			}
		})
	}

	t.Run("hint_needs_comments", func(t *testing.T) {
		if out, err := mariadb(t, s.adminAddr, "default", "", "SET GLOBAL simulated_os_cpu_overload = 7"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		const hinted = "SELECT /*+ SET_VAR(min_os_cpu_wait_time_ratio_to_throw = 1) SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 2) */ 1"
		// With --comments the hint reaches the server and the statement is rejected.
		eventually(t, 15*time.Second, "745 for a hinted statement with --comments", func() (bool, string) {
			out, err := mariadb(t, s.addr, plainAccount.name, password, hinted, "-N", "-B", "--comments")
			return err != nil && strings.Contains(out, "ERROR 745 (HY000)") && strings.Contains(out, "(SERVER_OVERLOADED)"), out
		})
		// Without it the CLI strips the hint, and the statement runs.
		out, err := mariadb(t, s.addr, plainAccount.name, password, hinted, "-N", "-B")
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
			if out, err := mariadb(t, s.adminAddr, "default", "", "", args...); err != nil || out != "" {
				t.Fatalf("mariadb %q: %v\n%s", args, err, out)
			}
			eventually(t, 10*time.Second, "a config reload logged by the server", func() (bool, string) {
				n := strings.Count(s.log.String(), `msg="config reloaded"`)
				return n > before, s.log.String()
			})
		})
	}
}
