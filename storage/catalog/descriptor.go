package catalog

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// The JSON field names below are the stored format: renaming one breaks existing data
// directories.

// Database describes a database.
type Database struct {
	ID        uint32          `json:"id"`
	Name      string          `json:"name"`
	Collation sql.CollationID `json:"collation"`
	// NextTrigger orders triggers by creation, as the engine expects them.
	NextTrigger uint64 `json:"nextTrigger"`
}

// Encode is the stored form of a database descriptor: JSON.
func (d Database) Encode() []byte {
	raw, _ := json.Marshal(d)
	return raw
}

// Column describes a column. Tag is its stable identity in the row codec.
type Column struct {
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

// Index describes a secondary index. Its entries live under (table id, ID).
type Index struct {
	ID      uint16   `json:"id"`
	Name    string   `json:"name"`
	Tags    []uint32 `json:"tags"`
	Prefix  []uint16 `json:"prefix,omitempty"`
	Unique  bool     `json:"unique,omitempty"`
	Comment string   `json:"comment,omitempty"`
}

// Table describes a table. Data lives under ID; a rewrite or TRUNCATE moves it to a fresh id,
// so ID can change while the name entry keeps pointing at the descriptor.
type Table struct {
	ID        uint32          `json:"id"`
	DB        uint32          `json:"db"`
	Name      string          `json:"name"`
	Version   uint64          `json:"version"`
	Collation sql.CollationID `json:"collation"`
	Comment   string          `json:"comment,omitempty"`
	Columns   []Column        `json:"columns"`
	// PK lists the primary key's tags in key order; empty for a table with a hidden row id.
	PK        []uint32                   `json:"pk,omitempty"`
	Indexes   []Index                    `json:"indexes,omitempty"`
	Checks    []sql.CheckDefinition      `json:"checks,omitempty"`
	FKs       []sql.ForeignKeyConstraint `json:"fks,omitempty"`
	NextTag   uint32                     `json:"nextTag"`
	NextIndex uint16                     `json:"nextIndex"`
	RowSize   uint64                     `json:"rowSize,omitempty"`
}

// Clone is a deep copy of d.
func (d *Table) Clone() *Table {
	b, _ := json.Marshal(d)
	var c Table
	_ = json.Unmarshal(b, &c)
	return &c
}

// columnByTag is the position of the column tagged tag.
func (d *Table) columnByTag(tag uint32) (int, bool) {
	for i := range d.Columns {
		if d.Columns[i].Tag == tag {
			return i, true
		}
	}
	return -1, false
}

// columnByName is the position of the column named name (any case).
func (d *Table) columnByName(name string) (int, bool) {
	for i := range d.Columns {
		if strings.EqualFold(d.Columns[i].Name, name) {
			return i, true
		}
	}
	return -1, false
}

// indexByName is the position in Indexes of the index named name (any case).
func (d *Table) indexByName(name string) (int, bool) {
	for i := range d.Indexes {
		if strings.EqualFold(d.Indexes[i].Name, name) {
			return i, true
		}
	}
	return -1, false
}

// isPK says whether the column tagged tag is in the primary key.
func (d *Table) isPK(tag uint32) bool {
	for _, t := range d.PK {
		if t == tag {
			return true
		}
	}
	return false
}

// Encode is the stored form of a table descriptor: the version (big-endian u64), then JSON.
func (d *Table) Encode() ([]byte, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return append(binary.BigEndian.AppendUint64(nil, d.Version), b...), nil
}

// ErrCorrupt is the error of a catalog that does not decode or does not hold together.
func ErrCorrupt(what string) error {
	return fmt.Errorf("storage: corrupt catalog: %s", what)
}

// columnTags are the tags of cols, in schema order.
func columnTags(cols []Column) []uint32 {
	tags := make([]uint32, len(cols))
	for i, c := range cols {
		tags[i] = c.Tag
	}
	return tags
}

// columnOf is the stored description of an engine column.
func columnOf(c *sql.Column, tag uint32) Column {
	cd := Column{
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
