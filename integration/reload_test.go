package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestReloadFollowsAConfigMapUpdate: config.toml -> ..data/config.toml, ..data -> a timestamped
// directory; an update writes a new directory and renames a new ..data symlink over the old one,
// as a Kubernetes ConfigMap volume does. The server reloads it.
func TestReloadFollowsAConfigMapUpdate(t *testing.T) {
	dir := t.TempDir()
	addr, admin := freePort(t), freePort(t)
	publish := func(stamp, top string) {
		t.Helper()
		if err := os.Mkdir(filepath.Join(dir, stamp), 0o755); err != nil {
			t.Fatal(err)
		}
		text := configText(addr, admin, serverOptions{top: top})
		if err := os.WriteFile(filepath.Join(dir, stamp, "config.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		old, _ := os.Readlink(filepath.Join(dir, "..data"))
		if err := os.Symlink(stamp, filepath.Join(dir, "..data_tmp")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
		if old != "" {
			if err := os.RemoveAll(filepath.Join(dir, old)); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish("..2026_12_01_01_00_00.1", "max_connections = 11\n")
	path := filepath.Join(dir, "config.toml")
	if err := os.Symlink(filepath.Join("..data", "config.toml"), path); err != nil {
		t.Fatal(err)
	}
	s := startWithConfig(t, serverOptions{dir: dir}, path, addr, admin)
	db := s.adminDB()
	if got := serverSetting(t, db, "max_connections"); got != "11" {
		t.Fatalf("max_connections at start = %s, want 11", got)
	}
	for i, want := range []string{"22", "33"} {
		publish("..2026_12_01_01_0"+want[:1]+"_00."+want, "max_connections = "+want+"\n")
		eventually(t, 15*time.Second, "ConfigMap update "+want+" applied", func() (bool, string) {
			got := serverSetting(t, db, "max_connections")
			return got == want, got
		})
		if n := strings.Count(s.log.String(), "config reloaded"); n != i+1 {
			t.Errorf("after %d updates the log has %d reloads", i+1, n)
		}
	}
}

// TestHalfWrittenConfigIsNeverApplied: a writer that truncates the config and pauses 300 ms
// mid-file never has its partial file applied — not an empty file (the defaults), not
// "max_connections = 2" of "20", not a [settings] table without its keys.
func TestHalfWrittenConfigIsNeverApplied(t *testing.T) {
	before := serverOptions{top: "max_connections = 10\n", sections: "[settings]\nmax_os_cpu_wait_time_ratio_to_throw = 2\n"}
	after := serverOptions{top: "max_connections = 20\n", sections: "[settings]\nmax_os_cpu_wait_time_ratio_to_throw = 3\n"}
	s := startServer(t, before)
	db := s.adminDB()
	full := configText(s.addr, s.adminAddr, after)
	for _, cut := range []struct {
		name string
		at   int
	}{
		{"empty", 0},
		{"in the middle of a number", strings.Index(full, "max_connections = 2") + len("max_connections = 2")},
		{"after a table header", strings.Index(full, "[settings]") + len("[settings]\n")},
	} {
		t.Run(cut.name, func(t *testing.T) {
			state := func() string {
				return serverSetting(t, db, "max_connections") + " " + globalValue(t, db, "max_os_cpu_wait_time_ratio_to_throw")
			}
			for round := 1; ; round++ {
				s.replaceConfig(before)
				eventually(t, 15*time.Second, "the starting file applied", func() (bool, string) { st := state(); return st == "10 2", st })

				var mu sync.Mutex
				var states []string
				stop := make(chan struct{})
				watching := sync.WaitGroup{}
				watching.Add(1)
				go func() {
					defer watching.Done()
					for {
						var st, mc, throw string
						if err := db.QueryRow("SELECT value FROM system.server_settings WHERE name = 'max_connections'").Scan(&mc); err != nil {
							st = err.Error()
						} else if err := db.QueryRow("SELECT @@GLOBAL.max_os_cpu_wait_time_ratio_to_throw").Scan(&throw); err != nil {
							st = err.Error()
						} else {
							st = mc + " " + throw
						}
						mu.Lock()
						states = append(states, st)
						mu.Unlock()
						select {
						case <-stop:
							return
						case <-time.After(20 * time.Millisecond):
						}
					}
				}()
				f, err := os.OpenFile(s.configPath, os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					t.Fatal(err)
				}
				started := time.Now()
				if _, err := f.WriteString(full[:cut.at]); err != nil {
					t.Fatal(err)
				}
				time.Sleep(300 * time.Millisecond) // the writer's pause, not a wait for a state
				if _, err := f.WriteString(full[cut.at:]); err != nil {
					t.Fatal(err)
				}
				paused := time.Since(started)
				f.Close()
				eventually(t, 15*time.Second, "the complete file applied", func() (bool, string) { st := state(); return st == "20 3", st })
				close(stop)
				watching.Wait()
				// The two values are read one after the other, so a reading may straddle the
				// reload: each value on its own must be the old or the new one.
				var bad []string
				for _, st := range states {
					mc, throw, _ := strings.Cut(st, " ")
					if (mc != "10" && mc != "20") || (throw != "2" && throw != "3") {
						bad = append(bad, st)
					}
				}
				if len(bad) == 0 {
					return
				}
				if paused < 400*time.Millisecond || round == 3 {
					t.Fatalf("partial file applied (max_connections, @@GLOBAL.max_os_cpu_wait_time_ratio_to_throw): %q; the writer paused %v", bad, paused)
				}
				t.Logf("round %d: the writer was held up for %v, longer than the test means; again", round, paused)
			}
		})
	}
}

// TestConfigThatCannotBeReadFailsTheReload: a config path that became a FIFO, an empty file or
// a file that does not parse is a failed reload — a warning row, the running settings stay —
// and never blocks anything: SET GLOBAL, SYSTEM RELOAD CONFIG and SIGHUP still answer.
func TestConfigThatCannotBeReadFailsTheReload(t *testing.T) {
	s := startServer(t, serverOptions{top: "max_connections = 10\n"})
	db := s.adminDB()
	reloadWarning := func() []string {
		return queryStrings(t, db, "SELECT message FROM system.warnings WHERE resource = 'config'")
	}
	for _, tt := range []struct {
		name  string
		make  func(path string) error
		cause string
	}{
		{"FIFO", func(path string) error {
			if err := os.Remove(path); err != nil {
				return err
			}
			return syscall.Mkfifo(path, 0o644)
		}, "not a regular file"},
		{"empty file", func(path string) error { return os.WriteFile(path, nil, 0o644) }, "the file is empty"},
		{"parse error", func(path string) error { return os.WriteFile(path, []byte("max_connections = \"many\"\n"), 0o644) }, "max_connections"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.make(s.configPath); err != nil {
				t.Fatal(err)
			}
			eventually(t, 15*time.Second, "the failed reload shown in system.warnings", func() (bool, string) {
				rows := reloadWarning()
				return len(rows) == 1 && strings.Contains(rows[0], tt.cause), strings.Join(rows, "|")
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := db.ExecContext(ctx, "SET GLOBAL max_connections = 12"); err != nil {
				t.Fatalf("SET GLOBAL beside a failed reload: %v", err)
			}
			if _, err := db.ExecContext(ctx, "SYSTEM RELOAD CONFIG"); err == nil || !strings.Contains(err.Error(), tt.cause) {
				t.Errorf("SYSTEM RELOAD CONFIG: %v, want an error naming %q", err, tt.cause)
			}
			if err := s.proc.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "SET GLOBAL max_connections = 10"); err != nil {
				t.Fatalf("SET GLOBAL after SIGHUP: %v", err)
			}
			if got := serverSetting(t, db, "max_connections"); got != "10" {
				t.Errorf("max_connections = %s after failed reloads, want 10", got)
			}

			// A good file mends it.
			if err := os.Remove(s.configPath); err != nil {
				t.Fatal(err)
			}
			s.replaceConfig(serverOptions{top: "max_connections = 10\n"})
			mustExec(t, db, "SYSTEM RELOAD CONFIG")
			if rows := reloadWarning(); len(rows) != 0 {
				t.Errorf("after a good reload: %q", rows)
			}
		})
	}
}
