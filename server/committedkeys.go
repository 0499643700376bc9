package server

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
)

// Reads of the committed tables.
//
// The engine's in-memory database gives each transaction a copy of every table it touches (of
// the list of rows and of each secondary index, not of the rows themselves): that is how a
// transaction's writes stay its own until it commits. A session that does not hold the write
// lock writes nothing (transactions.go), so committedDatabase gives it the committed table
// itself, without the copy: on a 10 000-row table the two copies made a point SELECT allocate
// about half a megabyte, and the server spent its time collecting the garbage. What the session
// reads stays its transaction's: the engine reads a table's rows from the version the session
// registered when it first read the table (a committed version is never changed; a commit puts
// a new one in place), and the session drops those registrations before it takes the write lock.
//
// Point lookups by an integer primary key, answered from a map of the committed rows.
//
// The engine's in-memory table has no index structure: scanLookup reads every row of the
// table for each lookup. But the rows of a table only change when a transaction that holds the
// write lock commits (transactions.go), and a read in autocommit mode sees the tables as last
// committed. So when no transaction took the write lock between the start of such a read and its
// lookup (writeLock.quiet gives the same grant count, free, at both moments), the rows the read
// sees are the committed table's rows, and a map from key to row built once for that committed
// version of the table (the engine makes a new table object at every commit) answers the lookup
// in constant time. Any other read (a transaction's, one that overlapped a writer) scans.

// maxKeyProbes is the widest key range answered from the map, one probe per integer in it.
const maxKeyProbes = 1024

// maxKeyMaps is how many tables keep a map; a new one beyond it clears them all.
const maxKeyMaps = 64

// maxMappedRows is the most rows a table may have to be mapped: a map costs about as much memory
// as the table's row list, and building it runs inside one statement. Larger tables scan.
const maxMappedRows = 1 << 20

// committedKeys keeps, per table, a map of key to row for the table's committed version. Lock
// order: mu is a leaf.
type committedKeys struct {
	provider sql.DatabaseProvider
	lock     *writeLock

	mu     sync.Mutex
	tables map[string]*keyMap // by lower-case "database.table"
}

// keyMap is the rows of one committed version of a table, by key, with their partitions. A
// version is mapped at its second lookup: rows is nil after the first, which scans, so that a
// table written between every two lookups is not mapped at each (a map costs more than a scan).
type keyMap struct {
	db, table string
	version   *memory.Table
	rows      map[int64]keyedRow
}

type keyedRow struct {
	partition string
	row       sql.Row
}

func newCommittedKeys(provider sql.DatabaseProvider, lock *writeLock) *committedKeys {
	return &committedKeys{provider: provider, lock: lock, tables: map[string]*keyMap{}}
}

// committedRead is a statement's claim to read the committed tables: made when it starts (a read
// in autocommit mode, no transaction holding the write lock), valid while the lock stays quiet.
// The zero value claims nothing. It lives in the statement's inFlight.
type committedRead struct {
	keys  *committedKeys
	epoch uint64
}

// startCommittedRead returns the claim of a read that starts now; none if a transaction holds
// the write lock.
func (k *committedKeys) startCommittedRead() committedRead {
	epoch, free := k.lock.quiet()
	if !free {
		return committedRead{}
	}
	return committedRead{keys: k, epoch: epoch}
}

// committedReadOf returns the claim of the statement running on ctx, nil if it has none or the
// claim no longer holds.
func committedReadOf(ctx context.Context) *committedRead {
	f, _ := ctx.Value(inFlightKey{}).(*inFlight)
	if f == nil || f.read.keys == nil {
		return nil
	}
	if epoch, free := f.read.keys.lock.quiet(); !free || epoch != f.read.epoch {
		return nil
	}
	return &f.read
}

// rows returns the map of the committed version of db.table, building it at that version's
// second lookup; false (scan) at the first, and if the table is not an in-memory table with an
// integer key in column ord.
func (k *committedKeys) rows(ctx *sql.Context, db, table string, ord int) (map[int64]keyedRow, bool, error) {
	version, err := k.committed(ctx, db, table)
	if err != nil || version == nil {
		return nil, false, err
	}
	name := strings.ToLower(db + "." + table)
	k.mu.Lock()
	m := k.tables[name]
	k.mu.Unlock()
	if m != nil && m.version == version && m.rows != nil {
		return m.rows, true, nil
	}
	seen := &keyMap{db: db, table: table, version: version}
	if m != nil && m.version == version {
		rows, ok, err := keyRows(ctx, version, ord, maxMappedRows)
		if err != nil || !ok {
			return nil, false, err
		}
		seen.rows = rows
	}
	k.mu.Lock()
	if len(k.tables) >= maxKeyMaps {
		clear(k.tables)
	}
	k.tables[name] = seen
	k.mu.Unlock()
	return seen.rows, seen.rows != nil, nil
}

// prune forgets the maps of table versions that are no longer committed (a commit replaced
// them, or the table was dropped), so that they do not keep a former version's rows in memory:
// dropping or truncating a table is how an admin frees memory. Called when a transaction that
// held the write lock ends.
func (k *committedKeys) prune(ctx *sql.Context) {
	k.mu.Lock()
	stale := make([]*keyMap, 0, len(k.tables))
	for _, m := range k.tables {
		stale = append(stale, m)
	}
	k.mu.Unlock()
	tables := map[string]map[string]sql.Table{} // each database's tables, read once
	for i := 0; i < len(stale); {
		m := stale[i]
		if _, read := tables[m.db]; !read {
			tables[m.db] = k.databaseTables(ctx, m.db)
		}
		if t, ok := sql.GetTableInsensitive(m.table, tables[m.db]); ok && t == sql.Table(m.version) {
			stale = append(stale[:i], stale[i+1:]...)
			continue
		}
		i++
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, m := range stale {
		name := strings.ToLower(m.db + "." + m.table)
		if k.tables[name] == m {
			delete(k.tables, name)
		}
	}
}

// committed is the table object the database holds now for db.table: its committed version.
func (k *committedKeys) committed(ctx *sql.Context, db, table string) (*memory.Table, error) {
	d, err := k.provider.Database(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", db, err)
	}
	t, ok := sql.GetTableInsensitive(table, inMemoryTables(d))
	if !ok {
		return nil, nil
	}
	mt, _ := t.(*memory.Table)
	return mt, nil
}

// databaseTables is the committed tables of database db; none if it is gone or not in memory.
func (k *committedKeys) databaseTables(ctx *sql.Context, db string) map[string]sql.Table {
	d, err := k.provider.Database(ctx, db)
	if err != nil {
		return nil
	}
	return inMemoryTables(d)
}

// inMemoryTables is the tables of an in-memory database, nil for another kind.
func inMemoryTables(d sql.Database) map[string]sql.Table {
	switch d := d.(type) {
	case *memory.Database:
		return d.Tables()
	case *memory.BaseDatabase:
		return d.Tables()
	}
	return nil
}

// keyRows maps the integer key in column ord of every row of a committed table version to the
// row; false if a key is not an integer or appears twice, or the table has more than maxRows
// rows.
func keyRows(ctx *sql.Context, version *memory.Table, ord, maxRows int) (map[int64]keyedRow, bool, error) {
	parts, err := version.Partitions(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("partitions of %s: %w", version.Name(), err)
	}
	defer parts.Close(ctx)
	var keys []string
	count := 0
	for {
		p, err := parts.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("partitions of %s: %w", version.Name(), err)
		}
		keys = append(keys, string(p.Key()))
		if count += len(version.GetPartition(keys[len(keys)-1])); count > maxRows {
			return nil, false, nil
		}
	}
	rows := make(map[int64]keyedRow, count)
	for _, key := range keys {
		for _, row := range version.GetPartition(key) {
			if ord >= len(row) {
				return nil, false, nil
			}
			v, ok := signedInt(row[ord])
			if !ok {
				return nil, false, nil
			}
			if _, dup := rows[v]; dup {
				return nil, false, nil
			}
			rows[v] = keyedRow{partition: key, row: row}
		}
	}
	return rows, true, nil
}

// committedProvider is the engine's provider with its in-memory databases wrapped in
// committedDatabase.
type committedProvider struct {
	boundedProvider
	lock *writeLock
	side *sideIndexes
}

// Database implements sql.DatabaseProvider.
func (p committedProvider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	db, err := p.boundedProvider.Database(ctx, name)
	return p.wrap(db), err
}

// AllDatabases implements sql.DatabaseProvider.
func (p committedProvider) AllDatabases(ctx *sql.Context) []sql.Database {
	all := p.boundedProvider.AllDatabases(ctx)
	for i, db := range all {
		all[i] = p.wrap(db)
	}
	return all
}

func (p committedProvider) wrap(db sql.Database) sql.Database {
	if mdb, ok := db.(*memory.Database); ok {
		return committedDatabase{Database: mdb, lock: p.lock, side: p.side}
	}
	return db
}

// CreateDatabase implements sql.MutableDatabaseProvider: a new database starts without side
// indexes.
func (p committedProvider) CreateDatabase(ctx *sql.Context, name string) error {
	p.side.forgetDatabase(name)
	return p.boundedProvider.CreateDatabase(ctx, name)
}

// DropDatabase implements sql.MutableDatabaseProvider.
func (p committedProvider) DropDatabase(ctx *sql.Context, name string) error {
	if err := p.boundedProvider.DropDatabase(ctx, name); err != nil {
		return err
	}
	p.side.forgetDatabase(name)
	return nil
}

// committedDatabase is an in-memory database whose tables a session without the write lock
// gets as they are committed, without the transaction's copy (see the top of this file), each
// with its side indexes (sideindex.go).
type committedDatabase struct {
	*memory.Database
	lock *writeLock
	side *sideIndexes
}

// GetTableInsensitive implements sql.Database. A context with session id 0 (the server's own, or
// a connection whose id wrapped around to 0) gets the engine's copy, which is always safe.
func (d committedDatabase) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if id := ctx.Session.ID(); id != 0 && !d.lock.holds(id) {
		if t, ok := sql.GetTableInsensitive(name, d.Tables()); ok {
			if mt, ok := t.(*memory.Table); ok && !mt.IgnoreSessionData() {
				return &sideTable{Table: mt, side: d.side}, true, nil
			}
		}
	}
	t, ok, err := d.Database.GetTableInsensitive(ctx, name)
	if mt, isMemory := t.(*memory.Table); isMemory && ok && err == nil {
		return &sideTable{Table: mt, side: d.side}, true, nil
	}
	return t, ok, err
}

// CreateTable implements sql.TableCreator. The engine's CreateTable also registers the new
// table's rows in the creating session as its transaction's copy, though they are the very rows
// the database holds. So the rows CREATE TABLE ... AS SELECT stored went into the committed
// table; and when the statement failed after it had stored some (interrupted by KILL QUERY or
// the memory guard's cancel between two rows, the engine keeps the rows so far for the commit),
// the server's rollback could not take them back. Created for a session of its own, the table is
// only in the database, as the engine's CreateIndexedTable leaves a table with a primary key, and
// the creating session takes its own copy when it first uses it. A table created under a name
// starts without side indexes, whatever a former table of that name had.
func (d committedDatabase) CreateTable(ctx *sql.Context, name string, schema sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	if err := d.Database.CreateTable(asideContext(ctx), name, schema, collation, comment); err != nil {
		return err
	}
	d.created(ctx, name)
	return nil
}

// CreateIndexedTable implements sql.IndexedTableCreator.
func (d committedDatabase) CreateIndexedTable(ctx *sql.Context, name string, schema sql.PrimaryKeySchema, def sql.IndexDef, collation sql.CollationID, comment string) error {
	if err := d.Database.CreateIndexedTable(ctx, name, schema, def, collation, comment); err != nil {
		return err
	}
	d.created(ctx, name)
	return nil
}

// created follows a table the running statement created: it starts without side indexes, and it
// is dropped again if the statement fails (sideIndexes.rollbackStatement).
func (d committedDatabase) created(ctx *sql.Context, name string) {
	d.side.forgetTable(d.Name(), name)
	d.side.createdTable(func() error {
		if err := d.DropTable(asideContext(ctx), name); err != nil {
			return fmt.Errorf("drop %s.%s, created by the failed statement: %w", d.Name(), name, err)
		}
		return nil
	})
}

// asideContext is ctx with a session of its own, for the engine's calls that register a table in
// the calling session.
func asideContext(ctx *sql.Context) *sql.Context {
	return sql.NewContext(ctx, sql.WithSession(memory.NewSession(sql.NewBaseSession(), nil)))
}

// DropTable implements sql.TableDropper.
func (d committedDatabase) DropTable(ctx *sql.Context, name string) error {
	if err := d.Database.DropTable(ctx, name); err != nil {
		return err
	}
	d.side.forgetTable(d.Name(), name)
	return nil
}

// RenameTable implements sql.TableRenamer.
func (d committedDatabase) RenameTable(ctx *sql.Context, from, to string) error {
	if err := d.Database.RenameTable(ctx, from, to); err != nil {
		return err
	}
	d.side.moveTable(d.Name(), from, to)
	return nil
}
