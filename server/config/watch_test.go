package config

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"overloadsql/internal/syncbuf"
)

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWatch(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string, log *syncbuf.Buffer)
	}{
		{"write in place", func(t *testing.T, path string, _ *syncbuf.Buffer) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("max_connections = 2\n"); err != nil {
				t.Fatal(err)
			}
		}},
		{"replace by rename", func(t *testing.T, path string, _ *syncbuf.Buffer) {
			tmp := path + ".new"
			writeFile(t, tmp, "max_connections = 3\n")
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"editor rename dance: old file moved away, new one written", func(t *testing.T, path string, _ *syncbuf.Buffer) {
			if err := os.Rename(path, path+"~"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, "max_connections = 4\n")
		}},
		{"remove, then re-create", func(t *testing.T, path string, log *syncbuf.Buffer) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the watcher to notice the file is absent", func() bool {
				return strings.Contains(log.String(), "config file is absent")
			})
			writeFile(t, path, "max_connections = 5\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.toml")
			writeFile(t, path, "max_connections = 1\n")
			var log syncbuf.Buffer
			logger := slog.New(slog.NewTextHandler(&log, nil))
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			var calls atomic.Int32
			if err := Watch(ctx, path, logger, func() { calls.Add(1) }); err != nil {
				t.Fatalf("Watch: %v", err)
			}

			// Other files in the directory are not the config.
			writeFile(t, filepath.Join(dir, "other.toml"), "x = 1\n")
			tt.change(t, path, &log)
			waitFor(t, "onChange", func() bool { return calls.Load() >= 1 })

			// It keeps working after the change.
			before := calls.Load()
			writeFile(t, path, "max_connections = 9\n")
			waitFor(t, "onChange after a second change", func() bool { return calls.Load() > before })
		})
	}
}

func TestWatchErrors(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(&syncbuf.Buffer{}, nil))
	for _, path := range []string{"", filepath.Join(t.TempDir(), "missing-dir", "config.toml")} {
		if err := Watch(context.Background(), path, logger, func() {}); err == nil {
			t.Errorf("Watch(%q) succeeded, want an error", path)
		}
	}
}

// configMap lays out dir the way a Kubernetes ConfigMap volume does: config.toml ->
// ..data/config.toml, ..data -> a timestamped directory holding the file.
func configMap(t *testing.T, dir, stamp, content string) {
	t.Helper()
	real := filepath.Join(dir, stamp)
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(real, "config.toml"), content)
	link := filepath.Join(dir, "..data")
	if _, err := os.Lstat(link); err != nil {
		if err := os.Symlink(stamp, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..data", "config.toml"), filepath.Join(dir, "config.toml")); err != nil {
			t.Fatal(err)
		}
		return
	}
	// An update: a new ..data_tmp symlink renamed over ..data, then the old directory removed.
	old, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(stamp, filepath.Join(dir, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), link); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, old)); err != nil {
		t.Fatal(err)
	}
}

func startWatch(t *testing.T, path string) (calls *atomic.Int32, log *syncbuf.Buffer) {
	t.Helper()
	log = &syncbuf.Buffer{}
	logger := slog.New(slog.NewTextHandler(log, nil))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	calls = &atomic.Int32{}
	if err := Watch(ctx, path, logger, func() { calls.Add(1) }); err != nil {
		t.Fatalf("Watch: %v", err)
	}
	return calls, log
}

// TestWatchFollowsSymlinks: a ConfigMap update, a re-pointed symlink, and an in-place edit of
// the file a symlink points to are all changes of the config.
func TestWatchFollowsSymlinks(t *testing.T) {
	t.Run("ConfigMap update", func(t *testing.T) {
		dir := t.TempDir()
		configMap(t, dir, "..2026_12_01_00_00_00.1", "max_connections = 1\n")
		calls, _ := startWatch(t, filepath.Join(dir, "config.toml"))
		configMap(t, dir, "..2026_12_01_00_01_00.2", "max_connections = 2\n")
		waitFor(t, "onChange after the ConfigMap update", func() bool { return calls.Load() == 1 })
		configMap(t, dir, "..2026_12_01_00_02_00.3", "max_connections = 3\n")
		waitFor(t, "onChange after a second update", func() bool { return calls.Load() == 2 })
	})
	t.Run("file behind a symlink edited in place", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		target := filepath.Join(elsewhere, "real.toml")
		writeFile(t, target, "max_connections = 1\n")
		path := filepath.Join(dir, "config.toml")
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		calls, _ := startWatch(t, path)
		writeFile(t, target, "max_connections = 2\n")
		waitFor(t, "onChange after an edit of the target", func() bool { return calls.Load() == 1 })

		// Re-pointed to a third directory: that one is watched from then on.
		third := t.TempDir()
		other := filepath.Join(third, "other.toml")
		writeFile(t, other, "max_connections = 3\n")
		tmp := filepath.Join(dir, "config.toml.new")
		if err := os.Symlink(other, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "onChange after re-pointing", func() bool { return calls.Load() == 2 })
		writeFile(t, other, "max_connections = 4\n")
		waitFor(t, "onChange after an edit of the new target", func() bool { return calls.Load() == 3 })
	})
}

// TestWatchWaitsForAStableFile: a writer that pauses mid-file gets its file applied once, when
// complete, never half written; events that leave the content as it was call nothing.
func TestWatchWaitsForAStableFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	writeFile(t, path, "max_connections = 1\n")
	var mu sync.Mutex
	var applied []string // the file's content as each onChange saw it
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := Watch(ctx, path, slog.New(slog.NewTextHandler(&syncbuf.Buffer{}, nil)), func() {
		data, _ := os.ReadFile(path)
		mu.Lock()
		defer mu.Unlock()
		applied = append(applied, string(data))
	}); err != nil {
		t.Fatal(err)
	}
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), applied...)
	}

	// The writer may be held up beyond its pause on a loaded machine; a pause longer than the
	// stable interval is not what this test checks, so such a round is tried again.
	for round := 1; ; round++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		if _, err := f.WriteString("max_connections = 2"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // the writer's pause, not a wait for a state
		if _, err := f.WriteString("0\n"); err != nil {
			t.Fatal(err)
		}
		paused := time.Since(started)
		f.Close()
		waitFor(t, "onChange for the complete file", func() bool {
			got := seen()
			return len(got) > 0 && got[len(got)-1] == "max_connections = 20\n"
		})
		if got := seen(); len(got) != 1 {
			if paused < WatchStable-watchQuiet || round == 3 {
				t.Fatalf("onChange saw %q for one write paused %v mid-file, want only the complete file", got, paused)
			}
			t.Logf("round %d: the writer paused %v, longer than the test means; again", round, paused)
			mu.Lock()
			applied = nil
			mu.Unlock()
			writeFile(t, path, "max_connections = 1\n")
			waitFor(t, "the reset", func() bool { got := seen(); return len(got) > 0 && got[len(got)-1] == "max_connections = 1\n" })
			mu.Lock()
			applied = nil
			mu.Unlock()
			continue
		}
		break
	}

	// A touch, a rewrite with the same content, another file: no call.
	now := time.Now()
	if err := os.Chtimes(path, now, now); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "max_connections = 20\n")
	writeFile(t, filepath.Join(dir, "persisted_settings.toml"), "x = \"1\"\n")
	writeFile(t, path, "max_connections = 21\n") // a change after the non-changes, so the test knows when they were seen
	waitFor(t, "onChange for the real change", func() bool { return len(seen()) > 1 })
	if got := seen(); len(got) != 2 || got[1] != "max_connections = 21\n" {
		t.Errorf("onChange saw %q after a touch, an identical rewrite, another file and one change; want only the change", got[1:])
	}
}

// TestWatchCheck steps the watcher's decision with a fake clock.
func TestWatchCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	writeFile(t, path, "max_connections = 1\n")
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	var calls int
	w := &watcher{path: path, fsw: fsw, logger: slog.New(slog.NewTextHandler(&syncbuf.Buffer{}, nil)), onChange: func() { calls++ }, dirs: map[string]bool{}}
	w.seen, _ = w.content()
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at        time.Duration
		content   string // "" keeps the file, "-" removes it
		wantWait  time.Duration
		wantCalls int
	}{
		{0, "", 0, 0}, // unchanged
		{10 * time.Millisecond, "max_connections = 2", WatchStable, 0},     // new: wait for it to be stable
		{300 * time.Millisecond, "max_connections = 20\n", WatchStable, 0}, // changed again: the wait starts over
		{500 * time.Millisecond, "", WatchStable - 200*time.Millisecond, 0},
		{800 * time.Millisecond, "", 0, 1}, // stable for WatchStable: applied
		{900 * time.Millisecond, "", 0, 1}, // nothing new
		{1000 * time.Millisecond, "-", 0, 1},
		{1100 * time.Millisecond, "max_connections = 20\n", 0, 1}, // back with the same content
		{1200 * time.Millisecond, "", 0, 1},
		{1300 * time.Millisecond, "", 0, 1},
	}
	for i, st := range steps {
		switch st.content {
		case "":
		case "-":
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		default:
			writeFile(t, path, st.content)
		}
		if wait := w.check(t0.Add(st.at)); wait != st.wantWait || calls != st.wantCalls {
			t.Errorf("step %d (%v): wait %v, %d calls; want %v, %d", i, st.at, wait, calls, st.wantWait, st.wantCalls)
		}
	}

	// A path that is not a regular file counts as a change, so the reload reports it.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	w.check(t0.Add(2 * time.Second))
	if wait := w.check(t0.Add(3 * time.Second)); wait != 0 || calls != 2 {
		t.Errorf("FIFO: wait %v, %d calls; want 0, 2", wait, calls)
	}
}
