package fuzz

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// side names one of the two servers a statement runs on.
type side int

const (
	overload side = iota // overloadsql, the server under test
	maria                // MariaDB, the reference
)

func (s side) String() string {
	if s == overload {
		return "overloadsql"
	}
	return "mariadb"
}

// kind is a column's SQL type family; the generator draws values and expressions by it.
type kind int

const (
	kInt kind = iota
	kUBigint
	kDecimal
	kDouble
	kFloat
	kChar
	kVarchar
	kDate
	kDatetime
)

// collation is the collation of a text column, named apart from its spelling on each side:
// MariaDB 10.11 has none of MySQL 8's utf8mb4_0900 collations, so each maps to the MariaDB
// collation with the same rules (binary or case-insensitive, NO PAD or PAD SPACE).
type collation int

const (
	collBin       collation = iota // utf8mb4_0900_bin: code points, NO PAD
	collGeneralCI                  // utf8mb4_general_ci: case-insensitive, PAD SPACE, on both
	collAICI                       // utf8mb4_0900_ai_ci: accent- and case-insensitive, NO PAD
)

func (c collation) name(s side) string {
	switch c {
	case collGeneralCI:
		return "utf8mb4_general_ci"
	case collAICI:
		if s == maria {
			return "utf8mb4_uca1400_nopad_ai_ci"
		}
		return "utf8mb4_0900_ai_ci"
	}
	if s == maria {
		return "utf8mb4_nopad_bin"
	}
	return "utf8mb4_0900_bin"
}

// caseInsensitive reports whether two different texts may compare equal (so a value read
// from the column, a MIN or a GROUP BY key, may be either of them).
func (c collation) caseInsensitive() bool { return c != collBin }

// column is one column of a generated table.
type column struct {
	name     string
	kind     kind
	p, s     int // DECIMAL(p,s)
	n        int // CHAR(n) / VARCHAR(n)
	coll     collation
	nullable bool
}

func (c column) typeSQL(s side) string {
	switch c.kind {
	case kInt:
		return "INT"
	case kUBigint:
		return "BIGINT UNSIGNED"
	case kDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", c.p, c.s)
	case kDouble:
		return "DOUBLE"
	case kFloat:
		return "FLOAT"
	case kChar:
		return fmt.Sprintf("CHAR(%d) COLLATE %s", c.n, c.coll.name(s))
	case kVarchar:
		return fmt.Sprintf("VARCHAR(%d) COLLATE %s", c.n, c.coll.name(s))
	case kDate:
		return "DATE"
	case kDatetime:
		return "DATETIME"
	}
	panic("unknown kind")
}

func (c column) numeric() bool { return c.kind <= kFloat }
func (c column) text() bool    { return c.kind == kChar || c.kind == kVarchar }

// ambiguous reports whether equal values of the column may be spelled differently, so which
// spelling a server returns for a group or a MIN/MAX is not defined.
func (c column) ambiguous() bool { return c.text() && c.coll.caseInsensitive() }

// index is a secondary index of a generated table.
type index struct {
	name   string
	unique bool
	cols   []string
}

// table is one generated table. Every table has an INT NOT NULL column id to which the
// generator gives distinct values, so that id orders any result fully; only some tables
// declare it PRIMARY KEY.
type table struct {
	name    string
	pk      bool
	cols    []column // cols[0] is id
	indexes []index
	nextID  int
}

func (t *table) createSQL(s side) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.name)
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.name + " " + c.typeSQL(s))
		if !c.nullable {
			b.WriteString(" NOT NULL")
		}
	}
	if t.pk {
		b.WriteString(", PRIMARY KEY (id)")
	}
	for _, ix := range t.indexes {
		if ix.unique {
			b.WriteString(", UNIQUE KEY ")
		} else {
			b.WriteString(", KEY ")
		}
		fmt.Fprintf(&b, "%s (%s)", ix.name, strings.Join(ix.cols, ", "))
	}
	b.WriteString(")")
	return b.String()
}

func (t *table) column(name string) column {
	for _, c := range t.cols {
		if c.name == name {
			return c
		}
	}
	panic("no column " + name)
}

// randomColumn draws a column of a random kind.
func randomColumn(r *rand.Rand, name string) column {
	c := column{name: name, kind: kind(r.IntN(int(kDatetime) + 1)), nullable: r.IntN(5) != 0}
	switch c.kind {
	case kDecimal:
		c.p = 3 + r.IntN(10)
		c.s = r.IntN(min(c.p, 5))
	case kChar:
		c.n = 2 + r.IntN(6)
	case kVarchar:
		c.n = 2 + r.IntN(10)
	}
	if c.text() {
		switch r.IntN(4) {
		case 0, 1:
			c.coll = collBin
		case 2:
			c.coll = collGeneralCI
		default:
			c.coll = collAICI
		}
	}
	return c
}

// newSchema draws n tables of 2 to 5 columns besides id, with and without a primary key and
// secondary indexes, plain and unique, on one or two columns.
func newSchema(r *rand.Rand, n int) []*table {
	tables := make([]*table, n)
	for i := range tables {
		t := &table{name: fmt.Sprintf("fz%d", i+1), pk: r.IntN(3) != 0, nextID: 1}
		t.cols = append(t.cols, column{name: "id", kind: kInt})
		ncols := 2 + r.IntN(4)
		for j := range ncols {
			t.cols = append(t.cols, randomColumn(r, fmt.Sprintf("c%d", j+1)))
		}
		for j := range r.IntN(3) {
			ix := index{name: fmt.Sprintf("k%d", j+1), unique: r.IntN(3) == 0}
			ix.cols = append(ix.cols, t.cols[1+r.IntN(ncols)].name)
			if r.IntN(3) == 0 {
				if c := t.cols[1+r.IntN(ncols)].name; c != ix.cols[0] {
					ix.cols = append(ix.cols, c)
				}
			}
			t.indexes = append(t.indexes, ix)
		}
		tables[i] = t
	}
	return tables
}
