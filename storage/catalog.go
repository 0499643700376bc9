package storage

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"overloadsql/storage/rowcodec"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// The catalog is stored as descriptors in the same key space as the data and written in the
// same batches, so that DDL commits or rolls back with the transaction it runs in. A table
// descriptor carries a version that grows with every change; decoded descriptors are cached by
// (table id, version), so that a statement reads a table's catalog with two point reads and
// no decoding.

// dbDesc describes a database.
type dbDesc struct {
	ID        uint32          `json:"id"`
	Name      string          `json:"name"`
	Collation sql.CollationID `json:"collation"`
	// NextTrigger orders triggers by creation, as the engine expects them.
	NextTrigger uint64 `json:"nextTrigger"`
}

// columnDesc describes a column. Tag is its stable identity in the row codec.
type columnDesc struct {
	Tag       uint32 `json:"tag"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Nullable  bool   `json:"nullable,omitempty"`
	Default   string `json:"default,omitempty"`
	Generated string `json:"generated,omitempty"`
	OnUpdate  string `json:"onUpdate,omitempty"`
	Virtual   bool   `json:"virtual,omitempty"`
	AutoInc   bool   `json:"autoInc,omitempty"`
	Comment   string `json:"comment,omitempty"`
	Extra     string `json:"extra,omitempty"`
	Hidden    bool   `json:"hidden,omitempty"`
	HiddenSys bool   `json:"hiddenSys,omitempty"`
	// HasDefault and friends tell an empty expression from none.
	HasDefault   bool `json:"hasDefault,omitempty"`
	HasGenerated bool `json:"hasGenerated,omitempty"`
	HasOnUpdate  bool `json:"hasOnUpdate,omitempty"`
}

// indexDesc describes a secondary index. Its entries live under (table id, ID).
type indexDesc struct {
	ID      uint16   `json:"id"`
	Name    string   `json:"name"`
	Tags    []uint32 `json:"tags"`
	Prefix  []uint16 `json:"prefix,omitempty"`
	Unique  bool     `json:"unique,omitempty"`
	Comment string   `json:"comment,omitempty"`
}

// tableDesc describes a table. Data lives under ID; a rewrite or TRUNCATE moves it to a fresh
// id, so ID can change while the name entry keeps pointing at the descriptor.
type tableDesc struct {
	ID        uint32          `json:"id"`
	DB        uint32          `json:"db"`
	Name      string          `json:"name"`
	Version   uint64          `json:"version"`
	Collation sql.CollationID `json:"collation"`
	Comment   string          `json:"comment,omitempty"`
	Columns   []columnDesc    `json:"columns"`
	// PK lists the primary key's tags in key order; empty for a table with a hidden row id.
	PK        []uint32                   `json:"pk,omitempty"`
	Indexes   []indexDesc                `json:"indexes,omitempty"`
	Checks    []sql.CheckDefinition      `json:"checks,omitempty"`
	FKs       []sql.ForeignKeyConstraint `json:"fks,omitempty"`
	NextTag   uint32                     `json:"nextTag"`
	NextIndex uint16                     `json:"nextIndex"`
	RowSize   uint64                     `json:"rowSize,omitempty"`
}

func (d *tableDesc) clone() *tableDesc {
	b, _ := json.Marshal(d)
	var c tableDesc
	_ = json.Unmarshal(b, &c)
	return &c
}

func (d *tableDesc) colByTag(tag uint32) (int, bool) {
	for i := range d.Columns {
		if d.Columns[i].Tag == tag {
			return i, true
		}
	}
	return -1, false
}

func (d *tableDesc) colByName(name string) (int, bool) {
	for i := range d.Columns {
		if strings.EqualFold(d.Columns[i].Name, name) {
			return i, true
		}
	}
	return -1, false
}

func (d *tableDesc) indexByName(name string) (int, bool) {
	for i := range d.Indexes {
		if strings.EqualFold(d.Indexes[i].Name, name) {
			return i, true
		}
	}
	return -1, false
}

// encodeDesc is the stored form: the version, then JSON.
func encodeDesc(d *tableDesc) ([]byte, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return append(binary.BigEndian.AppendUint64(nil, d.Version), b...), nil
}

// table is a decoded descriptor with what every statement needs precomputed. It is immutable.
type table struct {
	desc   *tableDesc
	schema sql.PrimaryKeySchema
	codec  *rowcodec.Codec
	// pkPos are the schema positions of the primary key, in key order.
	pkPos []int
	// indexes are the secondary indexes with their schema positions.
	indexes    []*indexInfo
	autoInc    int // schema position of the AUTO_INCREMENT column, or -1
	hasVirtual bool
}

type indexInfo struct {
	desc indexDesc
	pos  []int // schema positions of the index columns
}

// descCache caches decoded descriptors by id, version and content: a rolled-back DDL leaves its
// descriptor in the cache under the version (and, for CREATE TABLE, the id) that the next DDL
// writes again with other content, so the version alone does not name one descriptor. The
// cache is bounded by the number of live tables.
type descCache struct {
	mu sync.Mutex
	m  map[descCacheKey]*table
}

type descCacheKey struct {
	db, id  uint32
	version uint64
	sum     uint64 // xxh64 of the stored descriptor
}

// get returns the decoded descriptor stored as raw under (db, id).
func (c *descCache) get(ctx context.Context, dbName string, db, id uint32, raw []byte) (*table, error) {
	if len(raw) < 8 {
		return nil, errCorruptCatalog("short table descriptor")
	}
	key := descCacheKey{db: db, id: id, version: binary.BigEndian.Uint64(raw), sum: xxhash.Sum64(raw)}
	c.mu.Lock()
	t, ok := c.m[key]
	c.mu.Unlock()
	if ok && t.schema.Schema != nil && (len(t.schema.Schema) == 0 || t.schema.Schema[0].DatabaseSource == dbName) {
		return t, nil
	}
	var d tableDesc
	if err := json.Unmarshal(raw[8:], &d); err != nil {
		return nil, errCorruptCatalog(err.Error())
	}
	t, err := buildTable(ctx, dbName, &d)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[descCacheKey]*table)
	}
	if len(c.m) > 4096 {
		clear(c.m)
	}
	c.m[key] = t
	c.mu.Unlock()
	return t, nil
}

func errCorruptCatalog(what string) error {
	return fmt.Errorf("storage: corrupt catalog: %s", what)
}

// columnTags are the tags of cols, in schema order.
func columnTags(cols []columnDesc) []uint32 {
	tags := make([]uint32, len(cols))
	for i, c := range cols {
		tags[i] = c.Tag
	}
	return tags
}

// buildTable turns a descriptor into the engine's schema and the codec.
func buildTable(ctx context.Context, dbName string, d *tableDesc) (*table, error) {
	t := &table{desc: d, codec: rowcodec.New(columnTags(d.Columns)), autoInc: -1}
	sch := make(sql.Schema, len(d.Columns))
	for i, c := range d.Columns {
		typ, err := planbuilder.ParseColumnTypeString(ctx, c.Type)
		if err != nil {
			return nil, fmt.Errorf("storage: column %s.%s: type %q: %w", d.Name, c.Name, c.Type, err)
		}
		col := &sql.Column{
			Name:           c.Name,
			Type:           typ,
			Source:         d.Name,
			DatabaseSource: dbName,
			Nullable:       c.Nullable,
			Comment:        c.Comment,
			Extra:          c.Extra,
			Virtual:        c.Virtual,
			AutoIncrement:  c.AutoInc,
			Hidden:         c.Hidden,
			HiddenSystem:   c.HiddenSys,
		}
		if c.HasDefault {
			col.Default = sql.NewUnresolvedColumnDefaultValue(c.Default)
		}
		if c.HasGenerated {
			col.Generated = sql.NewUnresolvedColumnDefaultValue(c.Generated)
		}
		if c.HasOnUpdate {
			col.OnUpdate = sql.NewUnresolvedColumnDefaultValue(c.OnUpdate)
		}
		if c.AutoInc {
			t.autoInc = i
		}
		if c.Virtual {
			t.hasVirtual = true
		}
		sch[i] = col
	}
	for _, tag := range d.PK {
		i, ok := d.colByTag(tag)
		if !ok {
			return nil, fmt.Errorf("storage: table %s: primary key names a missing column", d.Name)
		}
		sch[i].PrimaryKey = true
		t.pkPos = append(t.pkPos, i)
	}
	if t.hasVirtual {
		resolveGenerated(ctx, dbName, d.Name, sch)
	}
	t.schema = sql.NewPrimaryKeySchema(sch, t.pkPos...)
	for _, idx := range d.Indexes {
		info := &indexInfo{desc: idx}
		for _, tag := range idx.Tags {
			i, ok := d.colByTag(tag)
			if !ok {
				return nil, fmt.Errorf("storage: index %s.%s names a missing column", d.Name, idx.Name)
			}
			info.pos = append(info.pos, i)
		}
		t.indexes = append(t.indexes, info)
	}
	return t, nil
}

// columnDescOf is the stored description of an engine column.
func columnDescOf(c *sql.Column, tag uint32) columnDesc {
	cd := columnDesc{
		Tag:       tag,
		Name:      c.Name,
		Type:      c.Type.String(),
		Nullable:  c.Nullable,
		Virtual:   c.Virtual,
		AutoInc:   c.AutoIncrement,
		Comment:   c.Comment,
		Extra:     c.Extra,
		Hidden:    c.Hidden,
		HiddenSys: c.HiddenSystem,
	}
	if c.PrimaryKey {
		cd.Nullable = false
	}
	if c.Default != nil {
		cd.HasDefault, cd.Default = true, exprText(c.Default)
	}
	if c.Generated != nil {
		cd.HasGenerated, cd.Generated = true, exprText(c.Generated)
	}
	if c.OnUpdate != nil {
		cd.HasOnUpdate, cd.OnUpdate = true, exprText(c.OnUpdate)
	}
	return cd
}

// resolveGenerated resolves the generated expressions of sch in place, as the engine's own
// tables hold them after an ALTER: CREATE INDEX evaluates the generated columns of the table's
// schema without resolving them. Column references stay unqualified, as they are shown. A
// schema that does not resolve (a function the engine's registry lacks) stays unresolved.
func resolveGenerated(ctx context.Context, dbName, table string, sch sql.Schema) {
	sctx, ok := ctx.(*sql.Context)
	if !ok {
		sctx = sql.NewEmptyContext()
	}
	defer func() { _ = recover() }()
	cp := make(sql.Schema, len(sch))
	for i, c := range sch {
		cp[i] = c.Copy()
	}
	b := planbuilder.NewBuilderForColumnDefaultResolution(sctx, sql.EngineOverrides{})
	resolved := b.ResolveSchemaDefaults(dbName, table, cp)
	for i, c := range resolved {
		if c.Generated == nil || !c.Generated.Resolved() {
			continue
		}
		g, _, err := transform.Expr(sctx, c.Generated, unqualify)
		if err != nil {
			continue
		}
		if gd, ok := g.(*sql.ColumnDefaultValue); ok {
			sch[i].Generated = gd
		}
	}
}

func unqualify(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if gf, ok := e.(*expression.GetField); ok {
		ne := expression.NewGetField(gf.Index(), gf.Type(ctx), gf.Name(), gf.IsNullable(ctx))
		return ne.WithQuotedNames(sql.DefaultMySQLSchemaFormatter, gf.IsQuotedIdentifier()), transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}

// exprText is the text of a column's default, generated or ON UPDATE expression, with its
// column references unqualified (as the engine parses them back).
func exprText(d *sql.ColumnDefaultValue) string {
	ctx := sql.NewEmptyContext()
	e, _, err := transform.Expr(ctx, d, unqualify)
	if err != nil {
		return d.String()
	}
	return e.String()
}
