package storage

import (
	"encoding/binary"
	"encoding/json"
	"sort"
	"strings"

	"overloadsql/mysqlerr"
	"overloadsql/storage/catalog"
	"overloadsql/storage/kv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Provider is the engine's database provider over a store. Database names are
// case-insensitive, as in the engine.
type Provider struct {
	store *Store
}

var (
	_ sql.DatabaseProvider         = (*Provider)(nil)
	_ sql.MutableDatabaseProvider  = (*Provider)(nil)
	_ sql.CollatedDatabaseProvider = (*Provider)(nil)
)

// Provider returns the store's database provider.
func (s *Store) Provider() *Provider { return &Provider{store: s} }

// Store is the provider's store.
func (p *Provider) Store() *Store { return p.store }

func (p *Provider) lookup(ctx *sql.Context, name string) (*Database, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, err
	}
	v, ok, err := tx.get(kv.DBNameKey(strings.ToLower(name)))
	if err != nil || !ok {
		return nil, err
	}
	id := binary.BigEndian.Uint32(v)
	raw, ok, err := tx.get(kv.DBDescKey(id))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, catalog.ErrCorrupt("database " + name + " has no descriptor")
	}
	d, err := p.store.descs.Database(id, raw)
	if err != nil {
		return nil, err
	}
	return &Database{p: p, desc: d}, nil
}

func (p *Provider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	db, err := p.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, sql.ErrDatabaseNotFound.New(name)
	}
	return db, nil
}

func (p *Provider) HasDatabase(ctx *sql.Context, name string) bool {
	db, err := p.lookup(ctx, name)
	return err == nil && db != nil
}

func (p *Provider) AllDatabases(ctx *sql.Context) []sql.Database {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil
	}
	var names []string
	_ = scanPrefix(tx.reader(), kv.DBNamePrefix(), func(k, v []byte) error {
		names = append(names, string(k[len(kv.DBNamePrefix()):]))
		return nil
	})
	var out []sql.Database
	for _, n := range names {
		if db, err := p.lookup(ctx, n); err == nil && db != nil {
			out = append(out, db)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

func (p *Provider) CreateDatabase(ctx *sql.Context, name string) error {
	return p.CreateCollatedDatabase(ctx, name, sql.Collation_Default)
}

func (p *Provider) CreateCollatedDatabase(ctx *sql.Context, name string, collation sql.CollationID) error {
	tx, err := txnOf(ctx)
	if err != nil {
		return err
	}
	if err := tx.beginWrite(ctx); err != nil {
		return err
	}
	if db, err := p.lookup(ctx, name); err != nil {
		return err
	} else if db != nil {
		return sql.ErrDatabaseExists.New(name)
	}
	id, err := tx.nextCounter(kv.KeyNextDB)
	if err != nil {
		return err
	}
	d := catalog.Database{ID: uint32(id), Name: name, Collation: collation}
	if err := tx.put(kv.DBDescKey(d.ID), d.Encode(), nil, false, 0, 0); err != nil {
		return err
	}
	return tx.put(kv.DBNameKey(strings.ToLower(name)), binary.BigEndian.AppendUint32(nil, d.ID), nil, false, 0, 0)
}

func (p *Provider) DropDatabase(ctx *sql.Context, name string) error {
	db, err := p.lookup(ctx, name)
	if err != nil {
		return err
	}
	if db == nil {
		return sql.ErrDatabaseNotFound.New(name)
	}
	tx, _ := txnOf(ctx)
	if err := tx.beginWrite(ctx); err != nil {
		return err
	}
	type entry struct{ k, v []byte }
	var keys []entry
	if err := scanPrefix(tx.reader(), kv.DBPrefix(db.desc.ID), func(k, v []byte) error {
		keys = append(keys, entry{append([]byte(nil), k...), append([]byte(nil), v...)})
		return nil
	}); err != nil {
		return err
	}
	for _, e := range keys {
		if len(e.k) == 10 && e.k[5] == kv.CatTable {
			if err := tx.markObsolete(binary.BigEndian.Uint32(e.k[6:])); err != nil {
				return err
			}
		}
		if err := tx.del(e.k, e.v, true, 0, 0); err != nil {
			return err
		}
	}
	return tx.delKnown(kv.DBNameKey(strings.ToLower(name)))
}

// nextCounter advances a store-wide id counter inside the transaction.
func (t *txn) nextCounter(key []byte) (uint64, error) {
	old, ok, err := t.get(key)
	if err != nil {
		return 0, err
	}
	var n uint64 = 1
	if ok {
		n = binary.BigEndian.Uint64(old)
	}
	if err := t.put(key, binary.BigEndian.AppendUint64(nil, n+1), old, ok, 0, 0); err != nil {
		return 0, err
	}
	return n, nil
}

// scanPrefix calls f for every key that starts with prefix, in order. k and v are valid only
// during the call.
func scanPrefix(r pebble.Reader, prefix []byte, f func(k, v []byte) error) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: kv.PrefixEnd(prefix)})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return err
		}
		if err := f(it.Key(), v); err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

// Database is a stored database.
type Database struct {
	p    *Provider
	desc catalog.Database
}

var (
	_ sql.Database                = (*Database)(nil)
	_ sql.TableCreator            = (*Database)(nil)
	_ sql.IndexedTableCreator     = (*Database)(nil)
	_ sql.TableDropper            = (*Database)(nil)
	_ sql.TableRenamer            = (*Database)(nil)
	_ sql.CollatedDatabase        = (*Database)(nil)
	_ sql.ViewDatabase            = (*Database)(nil)
	_ sql.TriggerDatabase         = (*Database)(nil)
	_ sql.StoredProcedureDatabase = (*Database)(nil)
)

func (d *Database) Name() string { return d.desc.Name }

func (d *Database) GetCollation(ctx *sql.Context) sql.CollationID {
	if d.desc.Collation == sql.Collation_Unspecified {
		return sql.Collation_Default
	}
	return d.desc.Collation
}

func (d *Database) SetCollation(ctx *sql.Context, collation sql.CollationID) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	nd := d.desc
	nd.Collation = collation
	if err := tx.putKnown(kv.DBDescKey(d.desc.ID), nd.Encode()); err != nil {
		return err
	}
	d.desc = nd
	return nil
}

func (d *Database) writer(ctx *sql.Context) (*txn, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, err
	}
	return tx, tx.beginWrite(ctx)
}

// tableID is the id of the table named name (any case), 0 when there is none.
func (d *Database) tableID(tx *txn, name string) (uint32, error) {
	v, ok, err := tx.get(kv.TableNameKey(d.desc.ID, strings.ToLower(name)))
	if err != nil || !ok {
		return 0, err
	}
	return binary.BigEndian.Uint32(v), nil
}

// loadTable reads the descriptor of table tid.
func (d *Database) loadTable(ctx *sql.Context, tx *txn, tid uint32) (*catalog.Decoded, error) {
	raw, ok, err := tx.get(kv.TableDescKey(d.desc.ID, tid))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, catalog.ErrCorrupt("a table name points at no descriptor")
	}
	return d.p.store.descs.Table(ctx, d.desc.Name, d.desc.ID, tid, raw)
}

func (d *Database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, false, err
	}
	tid, err := d.tableID(tx, name)
	if err != nil || tid == 0 {
		return nil, false, err
	}
	t, err := d.loadTable(ctx, tx, tid)
	if err != nil {
		return nil, false, err
	}
	return newTable(d, t), true, nil
}

func (d *Database) GetTableNames(ctx *sql.Context) ([]string, error) {
	tables, err := d.tables(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Desc.Name
	}
	return names, nil
}

// tables are the database's tables in name order.
func (d *Database) tables(ctx *sql.Context) ([]*catalog.Decoded, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, err
	}
	var ids []uint32
	if err := scanPrefix(tx.reader(), kv.DBKey(d.desc.ID, kv.CatTableName, nil), func(k, v []byte) error {
		ids = append(ids, binary.BigEndian.Uint32(v))
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]*catalog.Decoded, 0, len(ids))
	for _, id := range ids {
		t, err := d.loadTable(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (d *Database) CreateTable(ctx *sql.Context, name string, schema sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	_, err := d.createTable(ctx, name, schema, nil, collation, comment)
	return err
}

func (d *Database) CreateIndexedTable(ctx *sql.Context, name string, schema sql.PrimaryKeySchema, idxDef sql.IndexDef, collation sql.CollationID, comment string) error {
	_, err := d.createTable(ctx, name, schema, &idxDef, collation, comment)
	return err
}

// createTable writes a new table's descriptor. pkDef, when set, is the primary key with its
// prefix lengths (refused: the row key is the whole key).
func (d *Database) createTable(ctx *sql.Context, name string, schema sql.PrimaryKeySchema, pkDef *sql.IndexDef, collation sql.CollationID, comment string) (*catalog.Table, error) {
	tx, err := d.writer(ctx)
	if err != nil {
		return nil, err
	}
	if id, err := d.tableID(tx, name); err != nil {
		return nil, err
	} else if id != 0 {
		return nil, sql.ErrTableAlreadyExists.New(name)
	}
	if pkDef != nil {
		for _, c := range pkDef.Columns {
			if c.Length > 0 {
				return nil, mysqlerr.New(mysql.ERNotSupportedYet, "This version of MySQL doesn't yet support 'prefix lengths in a PRIMARY KEY'")
			}
		}
	}
	tid64, err := tx.nextCounter(kv.KeyNextTable)
	if err != nil {
		return nil, err
	}
	if collation == sql.Collation_Unspecified {
		collation = d.GetCollation(ctx)
	}
	desc := catalog.NewTable(uint32(tid64), d.desc.ID, name, collation, comment, schema)
	if err := desc.CheckKeyTypes(ctx); err != nil {
		return nil, err
	}
	if err := d.writeDesc(ctx, tx, desc, nil); err != nil {
		return nil, err
	}
	return desc, tx.put(kv.TableNameKey(d.desc.ID, strings.ToLower(name)), binary.BigEndian.AppendUint32(nil, desc.ID), nil, false, 0, 0)
}

// writeDesc stores desc (under its id) in the transaction; old is the descriptor it replaces
// under the same id, nil for a new one.
func (d *Database) writeDesc(ctx *sql.Context, tx *txn, desc *catalog.Table, old []byte) error {
	if _, err := catalog.Decode(ctx, d.desc.Name, desc); err != nil {
		return err
	}
	raw, err := desc.Encode()
	if err != nil {
		return err
	}
	key := kv.TableDescKey(d.desc.ID, desc.ID)
	if old == nil {
		var ok bool
		old, ok, err = tx.get(key)
		if err != nil {
			return err
		}
		return tx.put(key, raw, old, ok, 0, 0)
	}
	return tx.put(key, raw, old, true, 0, 0)
}

func (d *Database) DropTable(ctx *sql.Context, name string) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	tid, err := d.tableID(tx, name)
	if err != nil {
		return err
	}
	if tid == 0 {
		return sql.ErrTableNotFound.New(name)
	}
	if err := tx.delKnown(kv.TableDescKey(d.desc.ID, tid)); err != nil {
		return err
	}
	if err := tx.delKnown(kv.TableNameKey(d.desc.ID, strings.ToLower(name))); err != nil {
		return err
	}
	return tx.markObsolete(tid)
}

func (d *Database) RenameTable(ctx *sql.Context, oldName, newName string) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	tid, err := d.tableID(tx, oldName)
	if err != nil {
		return err
	}
	if tid == 0 {
		return sql.ErrTableNotFound.New(oldName)
	}
	if !strings.EqualFold(oldName, newName) {
		if other, err := d.tableID(tx, newName); err != nil {
			return err
		} else if other != 0 {
			return sql.ErrTableAlreadyExists.New(newName)
		}
	}
	t, err := d.loadTable(ctx, tx, tid)
	if err != nil {
		return err
	}
	desc := t.Desc.Clone()
	desc.Name = newName
	desc.Version++
	if err := d.writeDesc(ctx, tx, desc, nil); err != nil {
		return err
	}
	if err := tx.delKnown(kv.TableNameKey(d.desc.ID, strings.ToLower(oldName))); err != nil {
		return err
	}
	if err := tx.putKnown(kv.TableNameKey(d.desc.ID, strings.ToLower(newName)), binary.BigEndian.AppendUint32(nil, tid)); err != nil {
		return err
	}
	// foreign keys that name the table, in this table and in the others of the database
	tables, err := d.tables(ctx)
	if err != nil {
		return err
	}
	for _, other := range tables {
		od := other.Desc
		if other.Desc.ID == tid {
			od = desc
		}
		nd := od.Clone()
		if nd.RenameReferences(d.desc.Name, oldName, newName) {
			nd.Version = od.Version + 1
			if err := d.writeDesc(ctx, tx, nd, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// Views, triggers and stored procedures are JSON values in the catalog.

func (d *Database) CreateView(ctx *sql.Context, name string, selectStatement, createViewStmt string) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	key := kv.DBKey(d.desc.ID, kv.CatView, []byte(strings.ToLower(name)))
	if _, ok, err := tx.get(key); err != nil {
		return err
	} else if ok {
		return sql.ErrExistingView.New(d.desc.Name, name)
	}
	raw, _ := json.Marshal(sql.ViewDefinition{Name: name, TextDefinition: selectStatement, CreateViewStatement: createViewStmt,
		SqlMode: sqlMode(ctx)})
	return tx.put(key, raw, nil, false, 0, 0)
}

func sqlMode(ctx *sql.Context) string {
	return sql.LoadSqlMode(ctx).String()
}

func (d *Database) DropView(ctx *sql.Context, name string) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	key := kv.DBKey(d.desc.ID, kv.CatView, []byte(strings.ToLower(name)))
	old, ok, err := tx.get(key)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrViewDoesNotExist.New(d.desc.Name, name)
	}
	return tx.del(key, old, true, 0, 0)
}

func (d *Database) GetViewDefinition(ctx *sql.Context, name string) (sql.ViewDefinition, bool, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return sql.ViewDefinition{}, false, err
	}
	raw, ok, err := tx.get(kv.DBKey(d.desc.ID, kv.CatView, []byte(strings.ToLower(name))))
	if err != nil || !ok {
		return sql.ViewDefinition{}, false, err
	}
	var v sql.ViewDefinition
	err = json.Unmarshal(raw, &v)
	return v, err == nil, err
}

func (d *Database) AllViews(ctx *sql.Context) ([]sql.ViewDefinition, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.ViewDefinition
	err = scanPrefix(tx.reader(), kv.DBKey(d.desc.ID, kv.CatView, nil), func(k, v []byte) error {
		var vd sql.ViewDefinition
		if err := json.Unmarshal(v, &vd); err != nil {
			return catalog.ErrCorrupt(err.Error())
		}
		out = append(out, vd)
		return nil
	})
	return out, err
}

func (d *Database) GetTriggers(ctx *sql.Context) ([]sql.TriggerDefinition, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.TriggerDefinition
	err = scanPrefix(tx.reader(), kv.DBKey(d.desc.ID, kv.CatTrigger, nil), func(k, v []byte) error {
		var td sql.TriggerDefinition
		if err := json.Unmarshal(v, &td); err != nil {
			return catalog.ErrCorrupt(err.Error())
		}
		out = append(out, td)
		return nil
	})
	return out, err
}

func (d *Database) CreateTrigger(ctx *sql.Context, def sql.TriggerDefinition) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	seq, err := tx.nextCounter(kv.DBKey(d.desc.ID, kv.CatTriggerSeq, nil))
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(def)
	return tx.put(kv.DBKey(d.desc.ID, kv.CatTrigger, binary.BigEndian.AppendUint64(nil, seq)), raw, nil, false, 0, 0)
}

func (d *Database) DropTrigger(ctx *sql.Context, name string) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	var key, old []byte
	err = scanPrefix(tx.reader(), kv.DBKey(d.desc.ID, kv.CatTrigger, nil), func(k, v []byte) error {
		var td sql.TriggerDefinition
		if json.Unmarshal(v, &td) == nil && strings.EqualFold(td.Name, name) {
			key, old = append([]byte(nil), k...), append([]byte(nil), v...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if key == nil {
		return sql.ErrTriggerDoesNotExist.New(name)
	}
	return tx.del(key, old, true, 0, 0)
}

func (d *Database) GetStoredProcedure(ctx *sql.Context, name string) (sql.StoredProcedureDetails, bool, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return sql.StoredProcedureDetails{}, false, err
	}
	raw, ok, err := tx.get(kv.DBKey(d.desc.ID, kv.CatProcedure, []byte(strings.ToLower(name))))
	if err != nil || !ok {
		return sql.StoredProcedureDetails{}, false, err
	}
	var p sql.StoredProcedureDetails
	err = json.Unmarshal(raw, &p)
	return p, err == nil, err
}

func (d *Database) GetStoredProcedures(ctx *sql.Context) ([]sql.StoredProcedureDetails, error) {
	tx, err := txnOf(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.StoredProcedureDetails
	err = scanPrefix(tx.reader(), kv.DBKey(d.desc.ID, kv.CatProcedure, nil), func(k, v []byte) error {
		var p sql.StoredProcedureDetails
		if err := json.Unmarshal(v, &p); err != nil {
			return catalog.ErrCorrupt(err.Error())
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

func (d *Database) SaveStoredProcedure(ctx *sql.Context, spd sql.StoredProcedureDetails) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	key := kv.DBKey(d.desc.ID, kv.CatProcedure, []byte(strings.ToLower(spd.Name)))
	if _, ok, err := tx.get(key); err != nil {
		return err
	} else if ok {
		return sql.ErrStoredProcedureAlreadyExists.New(spd.Name)
	}
	raw, _ := json.Marshal(spd)
	return tx.put(key, raw, nil, false, 0, 0)
}

func (d *Database) DropStoredProcedure(ctx *sql.Context, name string) error {
	tx, err := d.writer(ctx)
	if err != nil {
		return err
	}
	key := kv.DBKey(d.desc.ID, kv.CatProcedure, []byte(strings.ToLower(name)))
	old, ok, err := tx.get(key)
	if err != nil {
		return err
	}
	if !ok {
		return sql.ErrStoredProcedureDoesNotExist.New(name)
	}
	return tx.del(key, old, true, 0, 0)
}
