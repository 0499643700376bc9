package catalog

import (
	"context"
	"fmt"

	"overloadsql/storage/rowcodec"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Decoded is a table descriptor with what every statement needs precomputed: the engine's
// schema, the row codec and the positions of the keys. It is immutable.
type Decoded struct {
	Desc   *Table
	Schema sql.PrimaryKeySchema
	Codec  *rowcodec.Codec
	// PKPos are the schema positions of the primary key, in key order.
	PKPos []int
	// Indexes are the secondary indexes with their schema positions.
	Indexes    []*DecodedIndex
	AutoInc    int // schema position of the AUTO_INCREMENT column, or -1
	HasVirtual bool
	// Digest is the xxh64 of the stored descriptor this was decoded from (Cache.Table), or 0
	// for a descriptor a DDL statement is changing.
	Digest uint64
}

// DecodedIndex is a secondary index with the schema positions of its columns.
type DecodedIndex struct {
	Desc Index
	Pos  []int // schema positions of the index columns
}

// Decode turns a descriptor into the engine's schema and the codec. dbName is the database
// the schema's columns name as their source.
func Decode(ctx context.Context, dbName string, d *Table) (*Decoded, error) {
	t := &Decoded{Desc: d, Codec: rowcodec.New(columnTags(d.Columns)), AutoInc: -1}
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
			t.AutoInc = i
		}
		if c.Virtual {
			t.HasVirtual = true
		}
		sch[i] = col
	}
	for _, tag := range d.PK {
		i, ok := d.columnByTag(tag)
		if !ok {
			return nil, fmt.Errorf("storage: table %s: primary key names a missing column", d.Name)
		}
		sch[i].PrimaryKey = true
		t.PKPos = append(t.PKPos, i)
	}
	if t.HasVirtual {
		resolveGenerated(ctx, dbName, d.Name, sch)
	}
	t.Schema = sql.NewPrimaryKeySchema(sch, t.PKPos...)
	for _, idx := range d.Indexes {
		info := &DecodedIndex{Desc: idx}
		for _, tag := range idx.Tags {
			i, ok := d.columnByTag(tag)
			if !ok {
				return nil, fmt.Errorf("storage: index %s.%s names a missing column", d.Name, idx.Name)
			}
			info.Pos = append(info.Pos, i)
		}
		t.Indexes = append(t.Indexes, info)
	}
	return t, nil
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
