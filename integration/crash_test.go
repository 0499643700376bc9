package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"overloadsql/internal/serverproc"
)

// Crash safety out of process: the real binary on a real data_dir, under a concurrent write
// load of transfers, killed with SIGKILL at random (seeded) moments and restarted, again and
// again. After every restart the data must hold every transaction whose COMMIT was
// acknowledged (storage_sync = commit), none partially, and the indexes must agree with the
// rows.
//
// The workload: accounts acct(id, bal, owner, ver) with a unique index on owner and an index on
// bal, and a ledger(id, client, seq, src, dst, amt) with a unique index on (client, seq) and an
// index on dst. A transfer is one transaction: it moves amt from src to dst, bumps both
// accounts' ver, renames src's owner to a name no one else has, and writes its ledger row. Some
// transfers also run a statement that fails on a duplicate key (undone alone, the transaction
// goes on), and some end in ROLLBACK. So after any crash the ledger explains every balance
// (bal = start - out + in) and every ver (the transfers that touched the account), whatever
// subset of the transfers survived, and a transfer that is half there breaks the equations.

const (
	crashAccounts = 24
	crashStart    = 1000
	crashClients  = 4
)

// crashBook is what the clients know of their transactions, by ledger id.
type crashBook struct {
	mu sync.Mutex
	// acked: COMMIT answered OK; ackedAt is when, sentAt when the COMMIT was sent.
	acked map[int64]crashAck
	// unsure: COMMIT sent and not answered (the connection broke): either outcome is right.
	unsure map[int64]bool
	// never: rolled back, or failed before COMMIT was sent: must never be present.
	never map[int64]bool
	// lost: unsure (or, under storage_sync = none, acknowledged) and absent after a restart:
	// must stay absent. lostAcked counts the acknowledged ones.
	lost      map[int64]bool
	lostAcked int
	// maxLostAge is the longest time between a lost commit's acknowledgement and the kill.
	maxLostAge time.Duration
}

type crashAck struct{ sentAt, ackedAt time.Time }

func newCrashBook() *crashBook {
	return &crashBook{acked: map[int64]crashAck{}, unsure: map[int64]bool{}, never: map[int64]bool{}, lost: map[int64]bool{}}
}

// crashServer runs one data directory's servers, one after another, on the same config.
type crashServer struct {
	t    *testing.T
	o    serverOptions
	path string
	addr string
	adm  string
	cur  *testServer
}

func newCrashServer(t *testing.T, sync string) *crashServer {
	dir := t.TempDir()
	o := serverOptions{dir: dir, top: fmt.Sprintf("overload_enforcement = \"dry_run\"\ndata_dir = %q\nstorage_sync = %q\n",
		filepath.Join(dir, "data"), sync)}
	path, addr, admin, err := serverproc.WriteConfig(o.dir, o.top, o.sections)
	if err != nil {
		t.Fatal(err)
	}
	return &crashServer{t: t, o: o, path: path, addr: addr, adm: admin}
}

// start starts a server on the directory and returns how long it took to answer.
func (c *crashServer) start() time.Duration {
	began := time.Now()
	c.cur = startWithConfig(c.t, c.o, c.path, c.addr, c.adm)
	return time.Since(began)
}

// kill sends SIGKILL and waits for the process to end.
func (c *crashServer) kill() {
	if err := c.cur.proc.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatalf("kill -9: %v", err)
	}
	select {
	case <-c.cur.proc.Exited():
	case <-time.After(30 * time.Second):
		c.t.Fatal("the server did not end within 30 s of SIGKILL")
	}
}

func crashSchema(t *testing.T, db *sql.DB) {
	t.Helper()
	mustExec(t, db,
		"CREATE TABLE acct (id INT PRIMARY KEY, bal BIGINT NOT NULL, owner VARCHAR(40) NOT NULL, ver INT NOT NULL, UNIQUE KEY u_owner (owner), KEY k_bal (bal))",
		"CREATE TABLE ledger (id BIGINT PRIMARY KEY, client INT NOT NULL, seq INT NOT NULL, src INT NOT NULL, dst INT NOT NULL, amt INT NOT NULL, UNIQUE KEY u_cs (client, seq), KEY k_dst (dst))")
	var vals []string
	for i := 0; i < crashAccounts; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'start-%d', 0)", i, crashStart, i))
	}
	mustExec(t, db, "INSERT INTO acct VALUES "+strings.Join(vals, ", "))
}

// crashClient runs transfers on one connection until stop or until the connection breaks,
// recording each transaction's outcome in the book. seq numbers are never reused.
func crashClient(ctx context.Context, db *sql.DB, client int, seq *int, rnd *rand.Rand, book *crashBook, maxTx int) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	for n := 0; n < maxTx && ctx.Err() == nil; n++ {
		*seq++
		id := int64(client)*1_000_000 + int64(*seq)
		src := rnd.Intn(crashAccounts)
		dst := (src + 1 + rnd.Intn(crashAccounts-1)) % crashAccounts
		amt := 1 + rnd.Intn(50)
		steps := []string{
			"BEGIN",
			fmt.Sprintf("UPDATE acct SET bal = bal - %d, ver = ver + 1, owner = 'o%d' WHERE id = %d", amt, id, src),
			fmt.Sprintf("UPDATE acct SET bal = bal + %d, ver = ver + 1 WHERE id = %d", amt, dst),
		}
		failing := rnd.Intn(8) == 0
		if failing {
			// fails on the primary key after changing nothing: undone alone
			steps = append(steps, fmt.Sprintf("INSERT INTO acct VALUES (%d, 0, 'dup-%d', 0)", src, id))
		}
		steps = append(steps, fmt.Sprintf("INSERT INTO ledger VALUES (%d, %d, %d, %d, %d, %d)", id, client, *seq, src, dst, amt))
		rollback := rnd.Intn(10) == 0
		var failed error
		for _, q := range steps {
			_, err := conn.ExecContext(context.Background(), q)
			var me *mysql.MySQLError
			if failing && strings.HasPrefix(q, "INSERT INTO acct") && errors.As(err, &me) && me.Number == 1062 {
				continue
			}
			if err != nil {
				failed = err
				break
			}
		}
		if failed != nil || rollback {
			book.mu.Lock()
			book.never[id] = true
			book.mu.Unlock()
			// A server error leaves the transaction open: end it, so that the connection never
			// goes back to the pool inside it. A broken connection ends here.
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				return
			}
			continue
		}
		sent := time.Now()
		_, err := conn.ExecContext(context.Background(), "COMMIT")
		book.mu.Lock()
		if err == nil {
			book.acked[id] = crashAck{sentAt: sent, ackedAt: time.Now()}
		} else {
			book.unsure[id] = true
		}
		book.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// crashRow is one ledger row.
type crashRow struct{ client, seq, src, dst, amt int }

// crashVerify checks the restarted server's data against the book and settles the unsure
// transactions. durable says that every acknowledged commit must be present (storage_sync =
// commit); without it, acknowledged commits may be missing, but only a tail of them: none
// acknowledged more than maxLoss before killedAt, and none before one that survived.
func crashVerify(t *testing.T, db *sql.DB, book *crashBook, durable bool, killedAt time.Time, maxLoss time.Duration, checkPlans bool) (ledgerRows int) {
	t.Helper()
	ledger := map[int64]crashRow{}
	for _, r := range queryStrings(t, db, crashLedgerScan) {
		f := strings.Split(r, "\t")
		id, _ := strconv.ParseInt(f[0], 10, 64)
		var row crashRow
		for i, p := range []*int{&row.client, &row.seq, &row.src, &row.dst, &row.amt} {
			*p, _ = strconv.Atoi(f[i+1])
		}
		ledger[id] = row
	}

	book.mu.Lock()
	var missingAcked []int64
	lostNow := map[int64]crashAck{}
	for id, a := range book.acked {
		if _, ok := ledger[id]; ok {
			continue
		}
		if durable || a.ackedAt.Before(killedAt.Add(-maxLoss)) {
			missingAcked = append(missingAcked, id)
			continue
		}
		lostNow[id] = a
	}
	// the losses are a tail: no commit survives that was sent after a lost one was acknowledged
	for lostID, la := range lostNow {
		for id, a := range book.acked {
			if _, present := ledger[id]; present && a.sentAt.After(la.ackedAt) {
				t.Errorf("commit %d survived, but commit %d, acknowledged before %d was sent, is lost", id, lostID, id)
			}
		}
		delete(book.acked, lostID)
		book.lost[lostID] = true
		book.lostAcked++
		book.maxLostAge = max(book.maxLostAge, killedAt.Sub(la.ackedAt))
	}
	for id := range ledger {
		_, acked := book.acked[id]
		switch {
		case book.never[id]:
			t.Errorf("ledger %d is present, but its transaction was rolled back or never committed", id)
		case book.lost[id]:
			t.Errorf("ledger %d is present, but it was absent after an earlier restart", id)
		case book.unsure[id]:
			delete(book.unsure, id)
			book.acked[id] = crashAck{}
		case !acked:
			t.Errorf("ledger %d is present, but no client wrote it", id)
		}
	}
	for id := range book.unsure {
		book.lost[id] = true
		delete(book.unsure, id)
	}
	book.mu.Unlock()
	if len(missingAcked) > 0 {
		sort.Slice(missingAcked, func(i, j int) bool { return missingAcked[i] < missingAcked[j] })
		t.Errorf("%d acknowledged commits are missing after the restart, e.g. ledger ids %v", len(missingAcked), missingAcked[:min(5, len(missingAcked))])
	}

	// the ledger explains every account
	wantBal, wantVer := map[int]int{}, map[int]int{}
	for i := 0; i < crashAccounts; i++ {
		wantBal[i] = crashStart
	}
	dstCount := map[int]int{}
	perClient := map[int][]int{}
	for _, r := range ledger {
		wantBal[r.src] -= r.amt
		wantBal[r.dst] += r.amt
		wantVer[r.src]++
		wantVer[r.dst]++
		dstCount[r.dst]++
		perClient[r.client] = append(perClient[r.client], r.seq)
	}
	type acctRow struct {
		bal, ver int
		owner    string
	}
	accts := map[int]acctRow{}
	sum := 0
	for _, r := range queryStrings(t, db, crashAcctScan) {
		f := strings.Split(r, "\t")
		id, _ := strconv.Atoi(f[0])
		bal, _ := strconv.Atoi(f[1])
		ver, _ := strconv.Atoi(f[2])
		accts[id] = acctRow{bal, ver, f[3]}
		sum += bal
	}
	if len(accts) != crashAccounts || sum != crashAccounts*crashStart {
		t.Errorf("%d accounts with a total of %d, want %d with %d", len(accts), sum, crashAccounts, crashAccounts*crashStart)
	}
	for id, a := range accts {
		if a.bal != wantBal[id] || a.ver != wantVer[id] {
			t.Errorf("account %d: bal %d ver %d, but the ledger gives bal %d ver %d: a transaction is partly there", id, a.bal, a.ver, wantBal[id], wantVer[id])
		}
		// the unique index finds the row by its owner, the bal index by its balance
		if got := queryStrings(t, db, "SELECT id FROM acct WHERE owner = ?", a.owner); len(got) != 1 || got[0] != strconv.Itoa(id) {
			t.Errorf("lookup by owner %q via u_owner = %q, the scan has account %d", a.owner, got, id)
		}
		if got := queryStrings(t, db, "SELECT id FROM acct WHERE bal = ?", a.bal); !containsString(got, strconv.Itoa(id)) {
			t.Errorf("lookup by bal %d via k_bal = %q, the scan has account %d", a.bal, got, id)
		}
		if got := oneValue(t, db, "SELECT COUNT(*) FROM ledger WHERE dst = ?", id); got != strconv.Itoa(dstCount[id]) {
			t.Errorf("ledger rows with dst %d via k_dst: %s, the scan has %d", id, got, dstCount[id])
		}
	}
	for c := 0; c < crashClients; c++ {
		want := perClient[c]
		sort.Ints(want)
		got := queryStrings(t, db, "SELECT seq FROM ledger WHERE client = ? ORDER BY seq", c)
		if strings.Join(got, ",") != intsJoin(want) {
			t.Errorf("client %d's ledger rows via u_cs: %d rows, the scan has %d", c, len(got), len(want))
		}
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM ledger",
		"SELECT COUNT(*) FROM ledger WHERE client >= 0",
		"SELECT COUNT(*) FROM ledger WHERE dst >= 0",
	} {
		if got := oneValue(t, db, q); got != strconv.Itoa(len(ledger)) {
			t.Errorf("%s = %s, the scan has %d rows", q, got, len(ledger))
		}
	}
	if got := oneValue(t, db, "SELECT COUNT(DISTINCT owner) FROM acct WHERE owner > ''"); got != strconv.Itoa(crashAccounts) {
		t.Errorf("distinct owners via u_owner = %s, want %d", got, crashAccounts)
	}
	if checkPlans {
		// the scans read the rows, the lookups read the indexes: so the comparisons above
		// compare each index with the rows
		for q, index := range map[string]string{
			crashLedgerScan:                                           "",
			crashAcctScan:                                             "",
			"SELECT id FROM acct WHERE owner = 'x'":                   "[acct.owner]",
			"SELECT id FROM acct WHERE bal = 1":                       "[acct.bal]",
			"SELECT COUNT(*) FROM ledger WHERE dst = 1":               "[ledger.dst]",
			"SELECT COUNT(*) FROM ledger WHERE dst >= 0":              "[ledger.dst]",
			"SELECT seq FROM ledger WHERE client = 1 ORDER BY seq":    "[ledger.client,ledger.seq]",
			"SELECT COUNT(*) FROM ledger WHERE client >= 0":           "[ledger.client,ledger.seq]",
			"SELECT COUNT(DISTINCT owner) FROM acct WHERE owner > ''": "[acct.owner]",
		} {
			plan := strings.Join(queryStrings(t, db, "EXPLAIN PLAN "+q), "\n")
			if index == "" && strings.Contains(plan, "IndexedTableAccess") || index != "" && !strings.Contains(plan, "index: "+index) {
				t.Errorf("%s: want a read of index %q (\"\" = the rows), the plan is\n%s", q, index, plan)
			}
		}
	}
	return len(ledger)
}

// The scans of the tables: they read the rows, not an index (checked by crashVerify).
const (
	crashLedgerScan = "SELECT id, client, seq, src, dst, amt FROM ledger"
	crashAcctScan   = "SELECT id, bal, ver, owner FROM acct"
)

func containsString(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func intsJoin(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// crashEnvInt reads a positive integer from the environment, def when unset.
func crashEnvInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s = %q: want a positive integer", name, v)
	}
	return n
}

// crashRun is the kill loop: kills rounds of a load window each (uniform in [minWindow,
// maxWindow)), seeded.
func crashRun(t *testing.T, syncMode string, kills int, minWindow, maxWindow time.Duration) {
	seed := int64(crashEnvInt(t, "OVERLOADSQL_CRASH_SEED", int(time.Now().UnixNano()%1_000_000)+1))
	t.Logf("seed %d (OVERLOADSQL_CRASH_SEED=%d reruns it), %d kills, storage_sync = %s", seed, seed, kills, syncMode)
	rnd := rand.New(rand.NewSource(seed))
	// the clients' connections break at every kill: the driver's log of each is noise
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	t.Cleanup(func() { _ = mysql.SetLogger(log.New(os.Stderr, "[mysql] ", log.Ldate|log.Ltime|log.Lshortfile)) })
	cs := newCrashServer(t, syncMode)
	cs.start()
	crashSchema(t, cs.cur.db())
	book := newCrashBook()
	seqs := make([]int, crashClients)
	var worstRestart time.Duration
	var killedAt time.Time
	durable := syncMode == "commit"
	for round := 0; round <= kills; round++ {
		if round > 0 {
			took := cs.start()
			worstRestart = max(worstRestart, took)
		}
		db := cs.cur.db()
		// storage_sync = none syncs every second; 2 s more of slack for a loaded machine's
		// scheduling, so that the test does not depend on the machine's speed
		rows := crashVerify(t, db, book, durable, killedAt, 3*time.Second, round == 1)
		if t.Failed() {
			t.Fatalf("round %d (after %d kills, %d ledger rows): the data is not what the acknowledged commits left", round, round, rows)
		}
		if round == kills {
			t.Logf("%d kills: %d ledger rows survive, %d commits acknowledged and present, %d acknowledged and lost (at most %v before the kill), %d unacknowledged and lost; slowest restart %v",
				kills, rows, len(book.acked), book.lostAcked, book.maxLostAge.Round(time.Millisecond), len(book.lost)-book.lostAcked, worstRestart.Round(time.Millisecond))
			break
		}
		window := minWindow + time.Duration(rnd.Int63n(int64(maxWindow-minWindow)))
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for c := 0; c < crashClients; c++ {
			wg.Add(1)
			crnd := rand.New(rand.NewSource(rnd.Int63()))
			go func(c int) {
				defer wg.Done()
				crashClient(ctx, db, c, &seqs[c], crnd, book, 100_000)
			}(c)
		}
		time.Sleep(window)
		killedAt = time.Now()
		cs.kill()
		cancel()
		wg.Wait()
		db.Close()
	}
}

// TestCrashKill9Durable: with storage_sync = commit, every acknowledged commit survives
// kill -9, none is partial, and the indexes agree with the rows. OVERLOADSQL_CRASH_KILLS sets the
// number of kills (default 50, load windows of 50-450 ms).
func TestCrashKill9Durable(t *testing.T) {
	crashRun(t, "commit", crashEnvInt(t, "OVERLOADSQL_CRASH_KILLS", 50), 50*time.Millisecond, 450*time.Millisecond)
}

// TestCrashKill9SyncNone: with storage_sync = none, the store opens after kill -9 with no
// partial transaction; it may lose the commits of the last second, and only a tail of them.
func TestCrashKill9SyncNone(t *testing.T) {
	crashRun(t, "none", crashEnvInt(t, "OVERLOADSQL_CRASH_KILLS_NONE", 6), 300*time.Millisecond, 1300*time.Millisecond)
}

// TestCrashRestart1M: a server killed with SIGKILL right after loading a sysbench-shaped table
// of 1M rows answers again within 5 s of its start, with every row. It takes minutes to load, so
// it runs only with OVERLOADSQL_CRASH_1M=1.
func TestCrashRestart1M(t *testing.T) {
	if os.Getenv("OVERLOADSQL_CRASH_1M") != "1" {
		t.Skip("loads 1M rows (minutes): set OVERLOADSQL_CRASH_1M=1")
	}
	const rows, batch = 1_000_000, 100_000
	cs := newCrashServer(t, "commit")
	cs.start()
	db := cs.cur.db()
	mustExec(t, db,
		"CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL, KEY k_1 (k))",
		"CREATE TABLE digits (n INT PRIMARY KEY)")
	var vals []string
	for i := 0; i < 1000; i++ {
		vals = append(vals, "("+strconv.Itoa(i)+")")
	}
	mustExec(t, db, "INSERT INTO digits VALUES "+strings.Join(vals, ","))
	began := time.Now()
	for lo := 0; lo < rows/1000; lo += batch / 1000 {
		mustExec(t, db, fmt.Sprintf(`INSERT INTO sbtest1
			SELECT a.n * 1000 + b.n + 1, (a.n * 7919 + b.n * 104729) %% %d,
				CONCAT(LPAD(a.n, 10, '0'), '-', LPAD(b.n, 10, '0'), '-', REPEAT('c', 90)),
				CONCAT(LPAD(b.n, 11, '0'), '-', REPEAT('p', 40))
			FROM digits a JOIN digits b WHERE a.n >= %d AND a.n < %d`, rows, lo, lo+batch/1000))
	}
	load := time.Since(began)
	// a write in flight at the kill, as in production
	mustExec(t, db, "UPDATE sbtest1 SET k = k + 1 WHERE id = 500000")
	cs.kill()
	db.Close()
	var restarts []time.Duration
	for i := 0; i < 3; i++ {
		took := cs.start()
		restarts = append(restarts, took)
		db = cs.cur.db()
		if got := oneValue(t, db, "SELECT COUNT(*) FROM sbtest1"); got != strconv.Itoa(rows) {
			t.Fatalf("after kill -9 and restart: %s rows, want %d", got, rows)
		}
		if got := oneValue(t, db, "SELECT COUNT(*) FROM sbtest1 WHERE k >= 0"); got != strconv.Itoa(rows) {
			t.Fatalf("via k_1: %s rows, want %d", got, rows)
		}
		cs.kill()
		db.Close()
		if took > 5*time.Second {
			t.Errorf("restart %d after kill -9 at %d rows took %v, want under 5 s", i+1, rows, took)
		}
	}
	var du int64
	_ = filepath.Walk(filepath.Join(cs.o.dir, "data"), func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			du += info.Size()
		}
		return nil
	})
	t.Logf("1M rows loaded in %v (%d statements of %d rows); restarts after kill -9: %v; data_dir %d MiB",
		load.Round(time.Millisecond), rows/batch, batch, restarts, du>>20)
}
