package data

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/server/access"
	"overloadsql/storage"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// SYSTEM BACKUP TO 'dir' writes an online, consistent copy of the stored databases into dir: a
// Pebble checkpoint (storage.Store.Checkpoint). Writers are not stopped: the copy holds every
// transaction committed before the statement began and none after it, each whole, as a crash
// at that moment would leave it with storage_sync = commit. Table files are hard links when dir
// is on data_dir's filesystem (they never change once written), copies otherwise; the logs and
// the manifest are copied. A server started with data_dir = dir has the data as of the backup.
//
// It is an admin's statement, and a file operation like SELECT ... INTO OUTFILE: dir must be
// an absolute path inside secure_file_priv (after symbolic links and ".." are resolved), must
// not exist, and its parent must.

// Backup runs SYSTEM BACKUP TO dir of store (nil: none is open) on data directory dataDir, with
// files the running secure_file_priv, and returns the statement's OK result.
func Backup(store *storage.Store, dataDir string, files access.SecureFiles, dir string, logger *slog.Logger) (*sqltypes.Result, error) {
	if store == nil {
		return nil, mysqlerr.New(mysql.ERUnknownError, "SYSTEM BACKUP: the server has no storage open")
	}
	if files.Dir == "" {
		return nil, mysqlerr.New(mysql.EROptionPreventsStatement,
			"The MySQL server is running with the --secure-file-priv option so it cannot execute this statement (SYSTEM BACKUP writes inside secure_file_priv, which is \"\")")
	}
	target, err := files.Writable(dir)
	if err != nil {
		return nil, err
	}
	if inside(target, dataDir) {
		return nil, mysqlerr.New(mysqlerr.ERCantCreateFile,
			"Can't create file '%s' (a backup cannot be written inside data_dir)", dir)
	}
	began := time.Now()
	if err := store.Checkpoint(target); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, mysqlerr.New(mysql.ERFileExists, "File '%s' already exists", dir)
		}
		logger.Error("SYSTEM BACKUP failed", "dir", target, "err", err)
		return nil, mysqlerr.New(mysqlerr.ERCantCreateFile, "Can't create file '%s' (%v)", dir, err)
	}
	n, size := dirSize(target)
	took := time.Since(began)
	logger.Info("SYSTEM BACKUP written", "dir", target, "files", n, "bytes", size, "took", took.Round(time.Millisecond).String())
	return &sqltypes.Result{Info: fmt.Sprintf("Backup written to '%s': %d files, %d bytes, in %.3f s", target, n, size, took.Seconds())}, nil
}

// inside reports whether path lies in dir (both resolved as far as they exist).
func inside(path, dir string) bool {
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(resolve(dir), resolve(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// dirSize counts the regular files under dir and their bytes (a hard link counts in full).
func dirSize(dir string) (files int, bytes int64) {
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			files++
			bytes += info.Size()
		}
		return nil
	})
	return files, bytes
}
