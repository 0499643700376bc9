package config

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a log destination that the watcher goroutine writes while the test reads.
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

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
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
		change func(t *testing.T, path string, log *syncBuffer)
	}{
		{"write in place", func(t *testing.T, path string, _ *syncBuffer) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("max_connections = 2\n"); err != nil {
				t.Fatal(err)
			}
		}},
		{"replace by rename", func(t *testing.T, path string, _ *syncBuffer) {
			tmp := path + ".new"
			writeFile(t, tmp, "max_connections = 3\n")
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"editor rename dance: old file moved away, new one written", func(t *testing.T, path string, _ *syncBuffer) {
			if err := os.Rename(path, path+"~"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, "max_connections = 4\n")
		}},
		{"remove, then re-create", func(t *testing.T, path string, log *syncBuffer) {
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
			var log syncBuffer
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
	logger := slog.New(slog.NewTextHandler(&syncBuffer{}, nil))
	for _, path := range []string{"", filepath.Join(t.TempDir(), "missing-dir", "config.toml")} {
		if err := Watch(context.Background(), path, logger, func() {}); err == nil {
			t.Errorf("Watch(%q) succeeded, want an error", path)
		}
	}
}
