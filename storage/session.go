package storage

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/storage/catalog"
	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Session is a connection's session. It owns the connection's storage transaction: the engine
// holds only a handle (Transaction), because it sets the handle aside around CALL and drops it
// after a failed autocommit statement, while the state must stay with the session.
type Session struct {
	*sql.BaseSession
	store *Store
	tx    *txn
	// inStatement is set between BeginStatement and EndStatement.
	inStatement bool

	persisted map[string]interface{}
}

var (
	_ sql.TransactionSession = (*Session)(nil)
	_ sql.PersistableSession = (*Session)(nil)
	_ sql.Transaction        = (*Transaction)(nil)
)

// NewSession returns a session of store over base.
func (s *Store) NewSession(base *sql.BaseSession) *Session {
	return &Session{BaseSession: base, store: s, persisted: map[string]interface{}{}}
}

// StorageSession returns s; a server's session type that embeds *Session inherits it, and the
// storage finds its state through it.
func (s *Session) StorageSession() *Session { return s }

type storageSession interface{ StorageSession() *Session }

// sessionOf is the storage session of ctx.
func sessionOf(ctx *sql.Context) (*Session, error) {
	if ss, ok := ctx.Session.(storageSession); ok {
		return ss.StorageSession(), nil
	}
	return nil, fmt.Errorf("storage: the session (%T) is not a storage session", ctx.Session)
}

// Transaction is the engine's handle on a session's storage transaction.
type Transaction struct {
	tx       *txn
	readOnly bool
}

func (t *Transaction) String() string {
	return fmt.Sprintf("storage transaction %d", t.tx.id)
}

func (t *Transaction) IsReadOnly() bool { return t.readOnly }

// StartTransaction implements sql.TransactionSession. When the session still has a transaction
// open, because the engine set its handle aside (CALL) or dropped it, the open one continues:
// statement boundaries and failed statements are the session's BeginStatement/EndStatement.
func (s *Session) StartTransaction(ctx *sql.Context, ch sql.TransactionCharacteristic) (sql.Transaction, error) {
	if s.tx != nil && !s.tx.done {
		return &Transaction{tx: s.tx, readOnly: s.tx.readOnly}, nil
	}
	s.tx = s.store.newTxn(s, ch == sql.ReadOnly)
	s.tx.inStmt = s.inStatement
	return &Transaction{tx: s.tx, readOnly: s.tx.readOnly}, nil
}

// CommitTransaction implements sql.TransactionSession; committing a finished transaction is a
// no-op.
func (s *Session) CommitTransaction(ctx *sql.Context, t sql.Transaction) error {
	tx := s.txOf(t)
	if tx == nil {
		return nil
	}
	if tx.editors > 0 {
		return nil
	}
	err := tx.commit(ctx)
	if s.tx == tx {
		s.tx = nil
	}
	return err
}

// Rollback implements sql.TransactionSession.
func (s *Session) Rollback(ctx *sql.Context, t sql.Transaction) error {
	tx := s.txOf(t)
	if tx == nil {
		return nil
	}
	tx.rollback()
	if s.tx == tx {
		s.tx = nil
	}
	return nil
}

func (s *Session) txOf(t sql.Transaction) *txn {
	if h, ok := t.(*Transaction); ok && h != nil && !h.tx.done {
		return h.tx
	}
	if t == nil && s.tx != nil && !s.tx.done {
		return s.tx
	}
	return nil
}

// CreateSavepoint implements sql.TransactionSession; a savepoint of the same name is replaced.
func (s *Session) CreateSavepoint(ctx *sql.Context, t sql.Transaction, name string) error {
	tx := s.txOf(t)
	if tx == nil {
		return nil
	}
	tx.dropSavepoint(name)
	tx.savepoints = append(tx.savepoints, savepoint{name: name, mark: len(tx.undo)})
	return nil
}

// RollbackToSavepoint implements sql.TransactionSession: the changes made after the savepoint
// are undone, the savepoint stays and the later ones go.
func (s *Session) RollbackToSavepoint(ctx *sql.Context, t sql.Transaction, name string) error {
	tx, i, err := s.savepointOf(t, name)
	if err != nil {
		return err
	}
	if err := tx.rollbackTo(tx.savepoints[i].mark); err != nil {
		return err
	}
	tx.savepoints = tx.savepoints[:i+1]
	s.store.kv.Stats().SavepointRollbacks.Add(1)
	return nil
}

// savepointOf is the transaction and the index of its savepoint name, or the engine's error
// when there is none.
func (s *Session) savepointOf(t sql.Transaction, name string) (*txn, int, error) {
	tx := s.txOf(t)
	if tx == nil {
		return nil, -1, sql.ErrSavepointDoesNotExist.New(name)
	}
	i := tx.findSavepoint(name)
	if i < 0 {
		return nil, -1, sql.ErrSavepointDoesNotExist.New(name)
	}
	return tx, i, nil
}

// ReleaseSavepoint implements sql.TransactionSession: the savepoint and the later ones go.
func (s *Session) ReleaseSavepoint(ctx *sql.Context, t sql.Transaction, name string) error {
	tx, i, err := s.savepointOf(t, name)
	if err != nil {
		return err
	}
	tx.savepoints = tx.savepoints[:i]
	return nil
}

// BeginStatement marks the start of a statement: EndStatement(failed) undoes what the
// statement changes after this mark. The server calls it before each statement; writes says
// that the statement may write, and then the transaction takes the write lock here, before
// the statement reads anything, so that what it reads and writes is the latest state.
func (s *Session) BeginStatement(ctx *sql.Context, writes bool) error {
	s.inStatement = true
	if s.tx != nil && !s.tx.done {
		s.tx.stmtMark = len(s.tx.undo)
		s.tx.inStmt = true
	}
	if !writes {
		return nil
	}
	tx, err := txnOf(ctx)
	if err != nil {
		return err
	}
	return tx.beginWrite(ctx)
}

// EndStatement ends a statement. When it failed, its changes are undone (MySQL's
// statement-level rollback); a transaction that only the failed statement opened, and any
// transaction in autocommit mode, is rolled back whole and the write lock released. The server
// calls it after each statement; explicit reports whether an explicit transaction (BEGIN, or
// autocommit off) is open.
func (s *Session) EndStatement(ctx *sql.Context, failed bool, explicit bool) {
	s.inStatement = false
	tx := s.tx
	if tx == nil || tx.done {
		return
	}
	tx.editors = 0
	tx.endViews()
	if !explicit {
		// autocommit: a successful statement has committed already; what is left is a failure
		tx.rollback()
		s.tx = nil
		return
	}
	if failed && tx.inStmt {
		if tx.failed != nil {
			tx.rollback()
			s.tx = nil
			return
		}
		_ = tx.rollbackTo(tx.stmtMark)
		s.store.kv.Stats().StatementRollbacks.Add(1)
	}
	tx.inStmt = false
}

// InTransaction reports whether the session has a storage transaction open, and whether it
// holds the write lock.
func (s *Session) InTransaction() (open, writing bool) {
	if s.tx == nil || s.tx.done {
		return false, false
	}
	return true, s.tx.batch != nil
}

// Close rolls back the session's open transaction; the server calls it when the connection
// ends.
func (s *Session) Close() {
	if s.tx != nil && !s.tx.done {
		s.tx.rollback()
	}
	s.tx = nil
}

// txnOf is the open storage transaction of ctx's session, started if there is none (the
// engine reads some tables outside transactions, e.g. while it prepares a statement).
func txnOf(ctx *sql.Context) (*txn, error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	if s.tx == nil || s.tx.done {
		s.tx = s.store.newTxn(s, false)
		s.tx.inStmt = s.inStatement
	}
	return s.tx, nil
}

// PersistGlobal implements sql.PersistableSession (in memory: the server persists them).
func (s *Session) PersistGlobal(ctx *sql.Context, name string, value interface{}) error {
	sv, _, ok := sql.SystemVariables.GetGlobal(name)
	if !ok {
		return sql.ErrUnknownSystemVariable.New(name)
	}
	v, _, err := sv.GetType().Convert(ctx, value)
	if err != nil {
		return err
	}
	s.persisted[name] = v
	return nil
}

// SetGlobals sets the map the persisted globals are kept in.
func (s *Session) SetGlobals(globals map[string]interface{}) *Session {
	s.persisted = globals
	return s
}

func (s *Session) RemovePersistedGlobal(name string) error {
	if _, _, ok := sql.SystemVariables.GetGlobal(name); !ok {
		return sql.ErrUnknownSystemVariable.New(name)
	}
	delete(s.persisted, name)
	return nil
}

func (s *Session) RemoveAllPersistedGlobals() error {
	clear(s.persisted)
	return nil
}

func (s *Session) GetPersistedValue(k string) (interface{}, error) { return s.persisted[k], nil }

// txn is a storage transaction. Before its first write it reads a snapshot taken at its first
// read; at its first write it takes the write lock, drops the snapshot and from then on reads
// and writes an indexed batch, which shows the latest committed state (nothing else commits
// while the lock is held) plus its own writes.
type txn struct {
	id       uint64
	store    *Store
	sess     *Session
	readOnly bool
	done     bool

	snap  *pebble.Snapshot
	batch *pebble.Batch

	undo      []undoRec
	undoBytes int
	// savepoints are marks in undo, oldest first.
	savepoints []savepoint
	stmtMark   int
	inStmt     bool

	// deltas are the row-count changes by table id; autoInc the tables whose AUTO_INCREMENT
	// counter must be persisted at commit.
	deltas  map[uint32]int64
	autoInc map[uint32]bool
	// counts are the committed row counts read through countsFrom, the reader they were read
	// with: the committed state a reader sees does not change while the transaction holds it
	// (a snapshot, or the batch under the write lock), so a new reader or a write of a counter
	// key drops them. countsMu guards both: the engine may plan the subqueries of one
	// statement on several goroutines, and each asks for row counts.
	countsMu   sync.Mutex
	counts     map[uint32]int64
	countsFrom pebble.Reader
	// obsolete are table ids whose data is deleted once the commit is durable.
	obsolete []uint32
	// editors counts the open row editors: a COMMIT while a statement writes (a procedure
	// called by a trigger) leaves the transaction open for the statement to finish.
	editors int
	// ddl: the transaction changed the catalog; its commit is synced under kv.SyncNone too.
	ddl bool
	// failed makes every later write fail: the transaction went over its byte limit and was
	// rolled back.
	failed error

	// catalogGen is the catalog generation the snapshot holds; catalogCached says whether
	// the snapshot's catalog reads may use the catalog cache (see catalog.ReadCache).
	catalogGen    uint64
	catalogCached bool

	lockedAt time.Time
	// table is the table the transaction's last editor wrote, for the full-disk error.
	table string

	// openIters counts the open iterators, snapIters those on the snapshot; zombies are the
	// batches and snapshots to close when the last iterator closes. iters guards the three:
	// the engine reads subqueries of one statement from several goroutines (parallel GROUP BY).
	iters                sync.Mutex
	openIters, snapIters int
	zombies              []io.Closer
	// open are the open iterators, which the transaction's end closes: the engine leaves the
	// scan of a failed ALTER TABLE (index build, rewrite) unclosed.
	open map[*pebble.Iterator]bool
	// views are the tables' frozen views while their editors are in a statement (openIter).
	views map[uint32]*tableView
	// snapCommits is the store's commit count when the snapshot was taken.
	snapCommits int64
}

type savepoint struct {
	name string
	mark int
}

// undoRec restores one key: its old value, or its absence. rowDelta is the row-count change
// the write made to table tid.
type undoRec struct {
	key      []byte
	old      []byte
	existed  bool
	tid      uint32
	rowDelta int8
	// obsolete is the length of txn.obsolete before the write, for DDL records.
	obsolete int
}

// errNoWriteLock is a write of a transaction that does not hold the write lock: the storage's
// backstop behind the server's statement classification.
var errNoWriteLock = errors.New("storage: a write outside the write lock (the transaction has ended or never began to write)")

var txnIDs atomic.Uint64

func (s *Store) newTxn(sess *Session, readOnly bool) *txn {
	return &txn{id: txnIDs.Add(1), store: s, sess: sess, readOnly: readOnly}
}

func (t *txn) findSavepoint(name string) int {
	for i := len(t.savepoints) - 1; i >= 0; i-- {
		if strings.EqualFold(t.savepoints[i].name, name) {
			return i
		}
	}
	return -1
}

func (t *txn) dropSavepoint(name string) {
	if i := t.findSavepoint(name); i >= 0 {
		t.savepoints = append(t.savepoints[:i], t.savepoints[i+1:]...)
	}
}

// reader is the transaction's view.
func (t *txn) reader() pebble.Reader {
	if t.batch != nil {
		return t.batch
	}
	if t.snap == nil {
		t.snapCommits = t.store.kv.Stats().Commits.Load()
		before := t.store.catalogReads.Current()
		t.snap = t.store.kv.DB().NewSnapshot()
		t.catalogGen, t.catalogCached = t.store.catalogReads.Generation(before)
	}
	return t.snap
}

// ErrTransactionTooLarge is the error of a transaction that went over MaxTransactionBytes.
func errTooLarge(limit int64) error {
	return mysqlerr.New(mysqlerr.ERTransCacheFull,
		"Multi-statement transaction required more than 'max_transaction_bytes' bytes of storage (%d); the transaction was rolled back", limit)
}

// beginWrite makes t a writer: it takes the write lock and opens the batch.
func (t *txn) beginWrite(ctx *sql.Context) error {
	if t.failed != nil {
		return t.failed
	}
	if err := t.store.kv.Broken(); err != nil {
		return err
	}
	if err := t.store.kv.Admit(0, t.tableName()); err != nil {
		// a full disk fails the statement and rolls back its transaction
		t.failed = err
		t.discardWrites()
		return err
	}
	if t.batch != nil {
		return nil
	}
	if t.readOnly {
		return sql.ErrReadOnlyTransaction.New()
	}
	start := time.Now()
	if err := t.store.writeLock.Acquire(ctx, t.sess); err != nil {
		return err
	}
	t.lockedAt = time.Now()
	t.store.kv.Stats().LockWaitNanos.Add(int64(t.lockedAt.Sub(start)))
	if t.snap != nil {
		t.iters.Lock()
		onSnapshot := t.snapIters > 0
		t.iters.Unlock()
		if onSnapshot && t.store.kv.Stats().Commits.Load() != t.snapCommits {
			// a scan of this statement reads a snapshot that another commit has made stale:
			// writing from it could undo that commit
			t.store.writeLock.Release(t.sess)
			return mysqlerr.New(mysql.ERLockDeadlock, "Deadlock found when trying to get lock; try restarting transaction")
		}
		t.retire(t.snap)
		t.snap = nil
	}
	t.batch = t.store.kv.DB().NewIndexedBatch()
	return nil
}

// checkSize fails the transaction when it went over its limit.
// checkRoom fails the transaction before a write of n bytes that would take it over
// MaxTransactionBytes: the batch grows by doubling, so a write past the bound could allocate
// twice the bound at once.
func (t *txn) checkRoom(n int) error {
	limit := t.store.opts.MaxTransactionBytes
	if int64(t.batch.Len()+t.undoBytes+n) <= limit {
		return nil
	}
	t.failed = errTooLarge(limit)
	t.discardWrites()
	return t.failed
}

func (t *txn) checkSize() error {
	limit := t.store.opts.MaxTransactionBytes
	if int64(t.batch.Len()+t.undoBytes) <= limit {
		return nil
	}
	t.failed = errTooLarge(limit)
	t.discardWrites()
	return t.failed
}

// get reads key in the transaction's view; nil, false when absent. The value is a copy.
func (t *txn) get(key []byte) ([]byte, bool, error) {
	r := t.reader()
	cached := t.catalogCached && t.batch == nil && len(key) > 0 && key[0] == kv.SpaceCatalog
	if cached {
		if e, ok := t.store.catalogReads.Get(t.catalogGen, key); ok {
			return append([]byte(nil), e.Val...), e.Found, nil
		}
	}
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		if cached {
			t.store.catalogReads.Put(t.catalogGen, key, catalog.Entry{})
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := append([]byte(nil), v...)
	_ = closer.Close()
	if cached {
		t.store.catalogReads.Put(t.catalogGen, key, catalog.Entry{Val: append([]byte(nil), out...), Found: true})
	}
	return out, true, nil
}

// forgetCounts drops the cached committed row counts if key is a counter key.
func (t *txn) forgetCounts(key []byte) {
	if len(key) > 0 && key[0] == kv.SpaceCounter {
		t.countsMu.Lock()
		t.counts = nil
		t.countsMu.Unlock()
	}
}

// put writes key = val, recording the old state (old, existed) for the undo log.
func (t *txn) put(key, val, old []byte, existed bool, tid uint32, rowDelta int8) error {
	if t.failed != nil {
		return t.failed
	}
	if t.batch == nil {
		return errNoWriteLock
	}
	if err := t.checkRoom(len(key) + len(val) + len(old)); err != nil {
		return err
	}
	t.undo = append(t.undo, undoRec{key: key, old: old, existed: existed, tid: tid, rowDelta: rowDelta, obsolete: len(t.obsolete)})
	t.undoBytes += len(key) + len(old) + 64
	t.ddl = t.ddl || key[0] == kv.SpaceCatalog
	t.forgetCounts(key)
	if err := t.batch.Set(key, val, nil); err != nil {
		return err
	}
	t.addDelta(tid, int64(rowDelta))
	return t.checkSize()
}

// del deletes key, recording its old state.
func (t *txn) del(key, old []byte, existed bool, tid uint32, rowDelta int8) error {
	if t.failed != nil {
		return t.failed
	}
	if t.batch == nil {
		return errNoWriteLock
	}
	t.undo = append(t.undo, undoRec{key: key, old: old, existed: existed, tid: tid, rowDelta: rowDelta, obsolete: len(t.obsolete)})
	t.undoBytes += len(key) + len(old) + 64
	t.ddl = t.ddl || key[0] == kv.SpaceCatalog
	t.forgetCounts(key)
	if err := t.batch.Delete(key, nil); err != nil {
		return err
	}
	t.addDelta(tid, int64(rowDelta))
	return t.checkSize()
}

// putKnown reads key's old state itself.
func (t *txn) putKnown(key, val []byte) error {
	old, existed, err := t.get(key)
	if err != nil {
		return err
	}
	return t.put(key, val, old, existed, 0, 0)
}

func (t *txn) delKnown(key []byte) error {
	old, existed, err := t.get(key)
	if err != nil {
		return err
	}
	if !existed {
		return nil
	}
	return t.del(key, old, true, 0, 0)
}

func (t *txn) addDelta(tid uint32, d int64) {
	if d == 0 {
		return
	}
	if t.deltas == nil {
		t.deltas = map[uint32]int64{}
	}
	t.deltas[tid] += d
}

// markObsolete schedules tid's data for deletion after the commit; rollback forgets it.
func (t *txn) markObsolete(tid uint32) error {
	t.obsolete = append(t.obsolete, tid)
	// an undo record without a key carries the obsolete length back on rollback
	t.undo = append(t.undo, undoRec{obsolete: len(t.obsolete) - 1})
	return nil
}

// rollbackTo undoes the writes after mark.
func (t *txn) rollbackTo(mark int) error {
	if t.batch == nil || mark >= len(t.undo) {
		if mark < len(t.undo) {
			t.undo = t.undo[:mark]
		}
		return nil
	}
	for i := len(t.undo) - 1; i >= mark; i-- {
		u := t.undo[i]
		t.obsolete = t.obsolete[:u.obsolete]
		if u.key == nil {
			continue
		}
		t.forgetCounts(u.key)
		var err error
		if u.existed {
			err = t.batch.Set(u.key, u.old, nil)
		} else {
			err = t.batch.Delete(u.key, nil)
		}
		if err != nil {
			return err
		}
		t.addDelta(u.tid, -int64(u.rowDelta))
		t.undoBytes -= len(u.key) + len(u.old) + 64
	}
	t.undo = t.undo[:mark]
	for i := range t.savepoints {
		if t.savepoints[i].mark > mark {
			t.savepoints = t.savepoints[:i]
			break
		}
	}
	if t.stmtMark > mark {
		t.stmtMark = mark
	}
	return nil
}

// tableName names the transaction's table in an error: its last editor's, else the store's
// directory.
func (t *txn) tableName() string {
	if t.table != "" {
		return t.table
	}
	return t.store.kv.Dir()
}

// discardWrites drops the batch and releases the lock; the transaction stays open.
func (t *txn) discardWrites() {
	t.endViews()
	if t.batch != nil {
		t.retire(t.batch)
		t.batch = nil
		t.store.kv.Stats().LockHoldNanos.Add(int64(time.Since(t.lockedAt)))
		t.store.writeLock.Release(t.sess)
	}
	t.undo, t.undoBytes, t.savepoints, t.deltas, t.obsolete, t.ddl = nil, 0, nil, nil, nil, false
	t.stmtMark = 0
}

func (t *txn) rollback() {
	if t.done {
		return
	}
	t.closeLeftovers()
	wrote := t.batch != nil
	t.discardWrites()
	if t.snap != nil {
		t.retire(t.snap)
		t.snap = nil
	}
	t.done = true
	if wrote {
		t.store.kv.Stats().Rollbacks.Add(1)
	}
}

// apply applies the batch; a change of the catalog is bracketed for the catalog cache.
func (t *txn) apply(opts *pebble.WriteOptions) error {
	if t.ddl {
		t.store.catalogReads.BeginChange()
		defer t.store.catalogReads.EndChange()
	}
	return t.store.kv.Apply(t.batch, opts)
}

// commit applies the batch with the store's durability, then deletes obsolete table data.
func (t *txn) commit(ctx *sql.Context) error {
	if t.done {
		return nil
	}
	if t.failed != nil {
		err := t.failed
		t.rollback()
		return err
	}
	t.closeLeftovers()
	if t.snap != nil {
		t.retire(t.snap)
		t.snap = nil
	}
	if t.batch == nil {
		t.done = true
		return nil
	}
	s := t.store
	if err := t.writeCounters(); err != nil {
		t.rollback()
		return err
	}
	opts := pebble.Sync
	if s.opts.Sync == kv.SyncNone && !t.ddl {
		opts = pebble.NoSync
	}
	if !t.batch.Empty() {
		if err := s.kv.Broken(); err != nil {
			t.rollback()
			return err
		}
		if err := s.kv.Admit(int64(t.batch.Len()), t.tableName()); err != nil {
			t.rollback()
			return err
		}
		if err := t.apply(opts); err != nil {
			t.rollback()
			return s.kv.CommitFailed(t.tableName(), err)
		}
	}
	obsolete := t.obsolete
	t.endViews()
	t.retire(t.batch)
	t.batch = nil
	t.done = true
	for _, tid := range obsolete {
		if err := s.deleteTableData(tid); err != nil {
			break // removeOrphans finishes it at the next start
		}
	}
	s.kv.Stats().LockHoldNanos.Add(int64(time.Since(t.lockedAt)))
	s.writeLock.Release(t.sess)
	s.kv.Stats().Commits.Add(1)
	return nil
}
