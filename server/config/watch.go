package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchDebounce is how long the directory must be quiet after a change of the file before
// onChange runs: an editor's save is several events (rename, create, write, chmod).
const watchDebounce = 100 * time.Millisecond

// Watch calls onChange after the file at path changed on disk, until ctx is done. It watches the
// file's directory, not the file: editors and tools replace a file by renaming a new one over it,
// which ends a watch on the file itself. Events are filtered by the file's base name and debounced.
// While the file is absent (removed, or between an editor's rename and create), onChange is not
// called; it is when the file appears again. onChange runs on the watching goroutine, one call at
// a time. Watch returns after setup, with an error if the directory cannot be watched.
func Watch(ctx context.Context, path string, logger *slog.Logger, onChange func()) error {
	if path == "" {
		return errors.New("watch config: no config file (running on built-in defaults)")
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch config %s: %w", path, err)
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	if err := w.Add(dir); err != nil {
		w.Close()
		return fmt.Errorf("watch config %s: %w", path, err)
	}
	go watchLoop(ctx, w, path, base, logger, onChange)
	return nil
}

func watchLoop(ctx context.Context, w *fsnotify.Watcher, path, base string, logger *slog.Logger, onChange func()) {
	defer w.Close()
	debounce := time.NewTimer(watchDebounce)
	debounce.Stop()
	for {
		select {
		case <-ctx.Done():
			debounce.Stop()
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) == base {
				debounce.Reset(watchDebounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			logger.Warn("watching the config file", "path", path, "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				debounce.Reset(watchDebounce) // events were lost; one of them may have been ours
			}
		case <-debounce.C:
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				logger.Info("config file is absent; keeping the running config until it reappears", "path", path)
				continue
			}
			onChange()
		}
	}
}
