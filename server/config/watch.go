package config

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// watchQuiet is how long the watched directories must be free of events before the file is
	// looked at: an editor's save is several events (rename, create, write, chmod).
	watchQuiet = 100 * time.Millisecond
	// WatchStable is how long the file's content must stay the same before onChange runs, so a
	// file that a writer fills in several steps is not applied half written.
	WatchStable = 500 * time.Millisecond
	// maxSymlinkHops bounds the symlinks followed from the config path.
	maxSymlinkHops = 40
)

// Watch calls onChange once the content of the file at path has changed and then stayed the
// same for WatchStable, until ctx is done. It follows the path through symlinks: it watches the
// directory of the path itself, of every symlink on the way, and of the file it resolves to,
// and resolves the path again after every event, so a file replaced by rename, a symlink
// re-pointed, or a Kubernetes ConfigMap update (a new timestamped directory, then an atomic
// rename of the "..data" symlink) are all seen. What counts is the content (a hash): events that
// leave it as it was (a touch, another file in the directory) call nothing. While the file is
// absent, onChange is not called; it is when the file appears again with new content. A path
// that is not a regular file counts as changed content, so the caller's reload reports it.
// onChange runs on the watching goroutine, one call at a time. Watch returns after setup, with
// an error if the directory cannot be watched.
func Watch(ctx context.Context, path string, logger *slog.Logger, onChange func()) error {
	if path == "" {
		return errors.New("watch config: no config file (running on built-in defaults)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("watch config %s: %w", path, err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch config %s: %w", path, err)
	}
	w := &watcher{path: abs, fsw: fw, logger: logger, onChange: onChange, dirs: map[string]bool{}}
	if err := fw.Add(filepath.Dir(abs)); err != nil {
		fw.Close()
		return fmt.Errorf("watch config %s: %w", path, err)
	}
	w.dirs[filepath.Dir(abs)] = true
	w.follow()
	w.seen, _ = w.content()
	go w.loop(ctx)
	return nil
}

type watcher struct {
	path     string
	fsw      *fsnotify.Watcher
	logger   *slog.Logger
	onChange func()
	dirs     map[string]bool // directories watched now
	seen     string          // hash of the content onChange last ran for (or found at start)
	// candidate is new content waiting to be stable since candidateAt.
	candidate   string
	candidateAt time.Time
}

// chainDirs returns the directories a change of the config can show up in: the path's own, the
// directory of every symlink on the way, and the resolved file's.
func chainDirs(path string) []string {
	dirs := []string{filepath.Dir(path)}
	p := path
	for range maxSymlinkHops {
		info, err := os.Lstat(p)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
		dirs = append(dirs, filepath.Dir(p))
	}
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		dirs = append(dirs, filepath.Dir(resolved))
	}
	return dirs
}

// follow watches the directories of the current symlink chain and stops watching the others.
// The path's own directory stays watched for good.
func (w *watcher) follow() {
	want := map[string]bool{filepath.Dir(w.path): true}
	for _, d := range chainDirs(w.path) {
		want[d] = true
	}
	for d := range want {
		if w.dirs[d] {
			continue
		}
		if err := w.fsw.Add(d); err != nil {
			w.logger.Warn("watching a directory of the config's symlink chain", "dir", d, "err", err)
			continue
		}
		w.dirs[d] = true
	}
	for d := range w.dirs {
		if !want[d] {
			_ = w.fsw.Remove(d) // gone with its directory, or no longer on the chain
			delete(w.dirs, d)
		}
	}
}

// content returns a hash of the config's content, or of why it cannot be read; absent reports
// a missing file.
func (w *watcher) content() (hash string, absent bool) {
	data, err := ReadFile(w.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", true
	}
	if err != nil {
		return "unreadable: " + err.Error(), false
	}
	sum := sha256.Sum256(data)
	return string(sum[:]), false
}

func (w *watcher) loop(ctx context.Context) {
	defer w.fsw.Close()
	timer := time.NewTimer(watchQuiet)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case _, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			timer.Reset(watchQuiet)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.logger.Warn("watching the config file", "path", w.path, "err", err)
			timer.Reset(watchQuiet) // events may have been lost; one of them may have been ours
		case <-timer.C:
			if wait := w.check(time.Now()); wait > 0 {
				timer.Reset(wait)
			}
		}
	}
}

// check looks at the file after a quiet spell; it returns how long to wait before looking again
// (0: nothing to wait for).
func (w *watcher) check(now time.Time) time.Duration {
	w.follow()
	hash, absent := w.content()
	switch {
	case absent:
		w.candidate = ""
		w.logger.Info("config file is absent; keeping the running config until it reappears", "path", w.path)
		return 0
	case hash == w.seen:
		w.candidate = ""
		return 0
	case hash != w.candidate:
		w.candidate, w.candidateAt = hash, now
		return WatchStable
	case now.Sub(w.candidateAt) < WatchStable:
		return WatchStable - now.Sub(w.candidateAt)
	}
	w.seen, w.candidate = hash, ""
	w.onChange()
	return 0
}
