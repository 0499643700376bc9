package integration

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// SYSTEM BACKUP TO under a running write load: a second server started on the backup has every
// transaction acknowledged before the statement was sent, none sent after it answered, each
// transaction whole, and indexes that agree with the rows. The refusals carry MySQL's numbers.
func TestSystemBackupOnline(t *testing.T) {
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serverOptions{dir: dir, top: "overload_enforcement = \"dry_run\"\nsecure_file_priv = " + quote(files), sections: appUsers})
	admin := s.adminDB()
	crashSchema(t, admin)

	book := newCrashBook()
	seqs := make([]int, crashClients)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	pool := s.db()
	pool.SetMaxOpenConns(crashClients + 1)
	for c := 0; c < crashClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			crashClient(ctx, pool, c, &seqs[c], rand.New(rand.NewSource(int64(c)+1)), book, 20_000)
		}(c)
	}
	eventually(t, 30*time.Second, "the load commits", func() (bool, string) {
		book.mu.Lock()
		defer book.mu.Unlock()
		return len(book.acked) >= 50, ""
	})

	target := filepath.Join(files, "b1")
	sent := time.Now()
	if _, err := admin.Exec("SYSTEM BACKUP TO '" + target + "'"); err != nil {
		t.Fatalf("SYSTEM BACKUP TO: %v", err)
	}
	done := time.Now()
	// the load goes on after the backup, then stops
	eventually(t, 30*time.Second, "the load commits after the backup", func() (bool, string) {
		book.mu.Lock()
		defer book.mu.Unlock()
		for _, a := range book.acked {
			if a.sentAt.After(done) {
				return true, ""
			}
		}
		return false, "no commit after the backup yet"
	})

	// refusals
	wantError(t, appDB(t, s), "SYSTEM BACKUP TO '"+filepath.Join(files, "b2")+"'", 1227, "42000")
	wantError(t, admin, "SYSTEM BACKUP TO '"+target+"'", 1086, "HY000")
	wantError(t, admin, "SYSTEM BACKUP TO '"+filepath.Join(dir, "outside")+"'", 1290, "HY000")
	wantError(t, admin, "SYSTEM BACKUP TO '"+files+"/../outside'", 1290, "HY000")
	wantError(t, admin, "SYSTEM BACKUP TO 'relative'", 1290, "HY000")
	if _, err := os.Stat(filepath.Join(dir, "outside")); err == nil {
		t.Error("a refused backup left a directory behind")
	}
	cancel()
	wg.Wait()

	// what the backup must hold, by the clients' records
	want := newCrashBook()
	book.mu.Lock()
	for id, a := range book.acked {
		switch {
		case a.ackedAt.Before(sent):
			want.acked[id] = a
		case a.sentAt.After(done):
			want.never[id] = true
		default:
			want.unsure[id] = true
		}
	}
	for id := range book.never {
		want.never[id] = true
	}
	for id := range book.unsure {
		want.unsure[id] = true
	}
	book.mu.Unlock()

	restored := startServer(t, serverOptions{top: "overload_enforcement = \"dry_run\"\ndata_dir = " + quote(target)})
	rows := crashVerify(t, restored.db(), want, true, time.Time{}, 0, true)
	t.Logf("backup under load: %d ledger rows in the backup, %d acknowledged before it, %d commits in flight during it", rows, len(want.acked), len(want.unsure))
	if rows < len(want.acked) || rows == 0 {
		t.Errorf("the backup has %d ledger rows, want at least the %d acknowledged before it", rows, len(want.acked))
	}
	if got := oneValue(t, restored.db(), "SELECT COUNT(*) FROM ledger"); got == oneValue(t, s.db(), "SELECT COUNT(*) FROM ledger") {
		t.Errorf("the backup has the source's %s ledger rows: it holds commits made after the backup", got)
	}
	if !strings.Contains(s.log.String(), "SYSTEM BACKUP written") {
		t.Error("the server did not log the backup")
	}
}

// A backup inside data_dir is refused (1004), and so is one without secure_file_priv (1290).
func TestSystemBackupRefusals(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, serverOptions{dir: dir, top: "secure_file_priv = " + quote(dir)})
	wantError(t, s.adminDB(), "SYSTEM BACKUP TO '"+filepath.Join(dir, "data", "b")+"'", 1004, "HY000")
	if _, err := os.Stat(filepath.Join(dir, "data", "b")); err == nil {
		t.Error("the refused backup left a directory inside data_dir")
	}
	if _, err := s.adminDB().Exec("SYSTEM BACKUP TO '" + filepath.Join(dir, "ok") + "'"); err != nil {
		t.Errorf("a backup beside data_dir: %v", err)
	}
	plain := startServer(t, serverOptions{})
	wantError(t, plain.adminDB(), "SYSTEM BACKUP TO '"+filepath.Join(t.TempDir(), "b")+"'", 1290, "HY000")
}
