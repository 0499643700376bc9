package fuzz

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// statement is one generated statement. writes names the table it may change (empty for a
// read); ordered says the result's row order is defined (an ORDER BY that ends in unique
// keys), so the comparison keeps the order; otherwise rows are compared as multisets.
type statement struct {
	sql     string
	writes  string
	ordered bool
	// tags describe what the text does not show, for known-differences.toml: "join
	// DOUBLE = BIGINT UNSIGNED" (the types of a join's key columns).
	tags []string
}

// generator draws statements over a schema from one seeded source, so that a seed and a
// count replay the same statements.
type generator struct {
	r      *rand.Rand
	tables []*table
	rows   map[string]int // rows per table as last read, to keep tables small
	// insertIgnore lets INSERT IGNORE be drawn (the servers store a converted value, or none,
	// for a row's faults).
	insertIgnore bool
	// faulted says the statement being drawn already has a value its column cannot hold (or
	// a duplicate key): one fault per statement, so that which error comes first is defined.
	faulted bool
}

func newGenerator(seed uint64, tables []*table) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), tables: tables, rows: map[string]int{}}
}

func (g *generator) pick(n int) int    { return g.r.IntN(n) }
func (g *generator) chance(p int) bool { return g.r.IntN(100) < p }

func (g *generator) table() *table { return g.tables[g.pick(len(g.tables))] }

func pickOf[T any](g *generator, xs []T) T { return xs[g.pick(len(xs))] }

// Value pools: small sets shared by inserts and predicates, so that comparisons hit rows,
// with the types' boundaries and values just past them.
var (
	intVals = []string{"0", "1", "-1", "2", "3", "7", "10", "100", "-100", "2147483647", "-2147483648",
		"1.5", "2.5", "-0.5", "'3'", "'2x'", "NULL"}
	intOut    = []string{"2147483648", "-2147483649", "1e10", "'abc'"}
	ubigVals  = []string{"0", "1", "2", "3", "10", "100", "9223372036854775807", "9223372036854775808", "18446744073709551615", "'7'", "NULL"}
	ubigOut   = []string{"-1", "18446744073709551616", "-0.6"}
	decVals   = []string{"0", "1", "-1", "1.5", "1.50", "2.25", "-2.5", "0.1", "0.25", "3", "10.125", "99.99", "1.499", "'1.5'", "1e0", "2.5e0", "NULL"}
	doubleVal = []string{"0", "1", "-1", "1.5", "1.5e0", "-0e0", "0.1", "0.25", "2.5", "3", "1e300", "-1e-300", "1e16", "9007199254740993", "'1.5'", "NULL"}
	floatVals = []string{"0", "1", "-1", "1.5", "0.1", "0.25", "2.5", "3", "3.4e38", "1e-38", "16777217", "'0.5'", "NULL"}
	floatOut  = []string{"3.5e38", "1e39"}
	textVals  = []string{"''", "'a'", "'A'", "'b'", "'B'", "'ab'", "'aB'", "'a '", "' a'", "'é'", "'e'", "'E'", "'x%'", "'a_b'",
		"'1'", "'1.5'", "'2x'", "'ß'", "'ss'", "'Ab'", "NULL"}
	textLong = []string{"'abcdefghijklmnopqrstuvwxyz'"}
	dateVals = []string{"'2024-01-31'", "'2024-02-29'", "'1000-01-01'", "'9999-12-31'", "'2024-01-01'", "'2023-12-31'", "'2024-01-31 10:00:00'", "NULL"}
	dtVals   = []string{"'2024-01-31 00:00:00'", "'2024-01-31 12:30:45'", "'2024-02-29 23:59:59'", "'1000-01-01 00:00:00'", "'9999-12-31 23:59:59'",
		"'2024-01-31'", "NULL"}
	// Dates written as numbers, drawn less often (see literal).
	dateNumbers = []string{"20240131", "20240131123045", "20240229"}
	badDates    = []string{"'2023-02-29'", "'2024-13-01'", "'not a date'"}
)

// literal draws a value for a column, sometimes one the column cannot hold.
func (g *generator) literal(c column, allowBad bool) string {
	bad := allowBad && !g.faulted && g.chance(4)
	if bad {
		g.faulted = true
	}
	var pool []string
	switch c.kind {
	case kInt:
		pool = intVals
		if bad {
			pool = intOut
		}
	case kUBigint:
		pool = ubigVals
		if bad {
			pool = ubigOut
		}
	case kDecimal:
		if bad {
			return strings.Repeat("9", c.p-c.s+1)
		}
		if g.chance(40) {
			return g.decimalFor(c)
		}
		pool = decVals
	case kDouble:
		pool = doubleVal
	case kFloat:
		pool = floatVals
		if bad {
			pool = floatOut
		}
	case kChar, kVarchar:
		pool = textVals
		if bad {
			pool = textLong
		}
	case kDate, kDatetime:
		pool = dateVals
		if c.kind == kDatetime {
			pool = dtVals
		}
		if g.chance(3) {
			pool = dateNumbers
		}
		if bad {
			pool = badDates
		}
	}
	v := pickOf(g, pool)
	if v == "'2x'" && c.numeric() && allowBad {
		// Stored into a number, '2x' is an error in strict mode (1265): a fault.
		if g.faulted {
			return g.literal(c, false)
		}
		g.faulted = true
	}
	if v == "NULL" && !c.nullable {
		if !allowBad || g.faulted {
			return g.literal(c, false)
		}
		g.faulted = true // NULL into a NOT NULL column: 1048
	}
	return v
}

// decimalFor draws a value that fits DECIMAL(p,s), at its edges half of the time.
func (g *generator) decimalFor(c column) string {
	intDigits := c.p - c.s
	var ip string
	if g.chance(50) {
		ip = strings.Repeat("9", intDigits)
	} else {
		ip = fmt.Sprint(g.pick(10))
	}
	if intDigits == 0 {
		ip = "0"
	}
	v := ip
	if c.s > 0 {
		frac := make([]byte, c.s)
		for i := range frac {
			frac[i] = byte('0' + g.pick(10))
		}
		v += "." + string(frac)
	}
	if g.chance(30) {
		v = "-" + v
	}
	return v
}

// family is the comparison family of a column: numbers, text and temporal values. Values
// of the numeric and text families are compared across them (text as a number); temporal
// values meet temporal literals and columns only, where MariaDB and MySQL 8 each have rules
// of their own for other operands.
type family int

const (
	famNumber family = iota
	famText
	famTemporal
)

func (c column) family() family {
	switch {
	case c.numeric():
		return famNumber
	case c.text():
		return famText
	}
	return famTemporal
}

// mixable reports whether the generator compares or assigns a column of family a with one of b.
func mixable(a, b family) bool { return a == b || (a != famTemporal && b != famTemporal) }

// mixedLiteral draws a literal of another type of c's family, or of the other of number
// and text: a DECIMAL column meets doubles, integers and numeric strings, a text column
// numbers.
func (g *generator) mixedLiteral(c column) string {
	var pools [][]string
	switch c.family() {
	case famNumber:
		pools = [][]string{intVals, decVals, doubleVal, ubigVals, textVals}
	case famText:
		pools = [][]string{intVals, decVals, doubleVal}
	default:
		pools = [][]string{dateVals, dtVals}
	}
	for {
		if v := pickOf(g, pickOf(g, pools)); v != "NULL" {
			return v
		}
	}
}

// operand draws the value side of a comparison with column c: mostly of c's own kind.
func (g *generator) operand(c column) string {
	if g.chance(20) {
		return g.mixedLiteral(c)
	}
	v := g.literal(c, false)
	if v == "NULL" {
		return g.literal(c, false)
	}
	return v
}

// partner draws a column of t that may be compared with c.
func (g *generator) partner(t *table, c column) column {
	var ok []column
	for _, o := range t.cols {
		if mixable(c.family(), o.family()) && (c.family() == o.family() || g.chance(30)) {
			ok = append(ok, o)
		}
	}
	if len(ok) == 0 {
		return t.cols[0]
	}
	return pickOf(g, ok)
}

var comparisons = []string{"=", "<>", "<", "<=", ">", ">=", "!=", "<=>"}

// predicate draws a WHERE condition over the columns of t, qualified by alias when not empty.
func (g *generator) predicate(t *table, alias string, depth int) string {
	if depth < 2 && g.chance(35) {
		switch g.pick(3) {
		case 0:
			return "(" + g.predicate(t, alias, depth+1) + " AND " + g.predicate(t, alias, depth+1) + ")"
		case 1:
			return "(" + g.predicate(t, alias, depth+1) + " OR " + g.predicate(t, alias, depth+1) + ")"
		default:
			return "NOT (" + g.predicate(t, alias, depth+1) + ")"
		}
	}
	c := pickOf(g, t.cols)
	name := c.name
	if alias != "" {
		name = alias + "." + name
	}
	switch n := g.pick(100); {
	case n < 40:
		return fmt.Sprintf("%s %s %s", name, pickOf(g, comparisons), g.operand(c))
	case n < 50:
		other := g.partner(t, c)
		oname := other.name
		if alias != "" {
			oname = alias + "." + oname
		}
		return fmt.Sprintf("%s %s %s", name, pickOf(g, comparisons), oname)
	case n < 62:
		not := ""
		if g.chance(40) {
			not = "NOT "
		}
		k := 1 + g.pick(4)
		vals := make([]string, k)
		for i := range vals {
			vals[i] = g.operand(c)
		}
		if g.chance(10) {
			vals = append(vals, "NULL")
		}
		return fmt.Sprintf("%s %sIN (%s)", name, not, strings.Join(vals, ", "))
	case n < 72:
		not := ""
		if g.chance(25) {
			not = "NOT "
		}
		return fmt.Sprintf("%s %sBETWEEN %s AND %s", name, not, g.operand(c), g.operand(c))
	case n < 82:
		if g.chance(50) {
			return name + " IS NULL"
		}
		return name + " IS NOT NULL"
	case c.family() == famTemporal:
		return name + " IS NOT NULL"
	default:
		patterns := []string{"'a%'", "'%b'", "'_'", "'a_'", "'%'", "'A%'", "'%a%'", "'é'", "'e%'", "'1%'", "'x\\%'", "'a\\_b'", "''"}
		not := ""
		if g.chance(20) {
			not = "NOT "
		}
		return fmt.Sprintf("%s %sLIKE %s", name, not, pickOf(g, patterns))
	}
}

// where draws a WHERE clause, empty one time in ten.
func (g *generator) where(t *table, alias string) string {
	if g.chance(10) {
		return ""
	}
	return " WHERE " + g.predicate(t, alias, 0)
}

func (g *generator) next() statement {
	g.faulted = false
	// Keep tables between a few and about sixty rows: a full-table read follows every write.
	t := g.table()
	n := g.rows[t.name]
	switch x := g.pick(100); {
	case n < 5 && x < 60, x < 22:
		return g.insert(t)
	case n > 60 && x < 50, x < 32:
		return g.delete(t)
	case x < 47:
		return g.update(t)
	case x < 72:
		return g.selectRows(t)
	case x < 87:
		return g.aggregate(t)
	default:
		return g.join()
	}
}

func (g *generator) insert(t *table) statement {
	var cols []column
	for _, c := range t.cols[1:] {
		if !c.nullable || g.chance(75) {
			cols = append(cols, c)
		}
	}
	names := []string{"id"}
	for _, c := range cols {
		names = append(names, c.name)
	}
	k := 1 + g.pick(4)
	rows := make([]string, k)
	for i := range rows {
		id := t.nextID
		if t.pk && t.nextID > 1 && !g.faulted && g.chance(3) {
			id = 1 + g.pick(t.nextID-1) // a key in use: 1062 on both sides
			g.faulted = true
		} else {
			t.nextID++
		}
		vals := []string{fmt.Sprint(id)}
		for _, c := range cols {
			vals = append(vals, g.literal(c, true))
		}
		rows[i] = "(" + strings.Join(vals, ", ") + ")"
	}
	verb := "INSERT"
	if g.insertIgnore && g.chance(8) {
		verb = "INSERT IGNORE"
	}
	return statement{sql: fmt.Sprintf("%s INTO %s (%s) VALUES %s", verb, t.name, strings.Join(names, ", "), strings.Join(rows, ", ")), writes: t.name}
}

// assignment draws a new value for c: a literal, NULL, arithmetic on a numeric column, or
// another column of the row.
func (g *generator) assignment(t *table, c column) string {
	switch x := g.pick(100); {
	case x < 55:
		return g.literal(c, true)
	case x < 75 && c.numeric():
		operand := pickOf(g, []string{"1", "2", "0.5", "10", "1e0"})
		if !g.faulted && g.chance(10) {
			operand, g.faulted = "1000000000", true // may leave the column's range
		}
		return fmt.Sprintf("%s %s %s", c.name, pickOf(g, []string{"+", "-", "*"}), operand)
	case x < 90:
		return g.partner(t, c).name
	default:
		if c.nullable || g.chance(50) {
			return "NULL"
		}
		return g.literal(c, false)
	}
}

func (g *generator) update(t *table) statement {
	k := 1 + g.pick(min(2, len(t.cols)-1))
	seen := map[string]bool{}
	var sets []string
	for range k {
		c := t.cols[1+g.pick(len(t.cols)-1)]
		if seen[c.name] {
			continue
		}
		seen[c.name] = true
		sets = append(sets, c.name+" = "+g.assignment(t, c))
	}
	sql := fmt.Sprintf("UPDATE %s SET %s%s", t.name, strings.Join(sets, ", "), g.where(t, ""))
	if g.chance(15) {
		sql += fmt.Sprintf(" ORDER BY id LIMIT %d", 1+g.pick(3))
	}
	return statement{sql: sql, writes: t.name}
}

func (g *generator) delete(t *table) statement {
	sql := fmt.Sprintf("DELETE FROM %s%s", t.name, g.where(t, ""))
	if g.chance(15) {
		sql += fmt.Sprintf(" ORDER BY id DESC LIMIT %d", 1+g.pick(3))
	}
	return statement{sql: sql, writes: t.name}
}

// orderKeys draws ORDER BY keys of t ending in id, which orders fully.
func (g *generator) orderKeys(t *table, alias string) []string {
	var keys []string
	for range g.pick(3) {
		c := pickOf(g, t.cols[1:])
		k := c.name
		if alias != "" {
			k = alias + "." + k
		}
		if g.chance(40) {
			k += " DESC"
		}
		keys = append(keys, k)
	}
	id := "id"
	if alias != "" {
		id = alias + ".id"
	}
	if g.chance(30) {
		id += " DESC"
	}
	return append(keys, id)
}

func (g *generator) selectRows(t *table) statement {
	cols := "*"
	if g.chance(40) {
		var names []string
		for _, c := range t.cols {
			if g.chance(50) {
				names = append(names, c.name)
			}
		}
		if len(names) > 0 {
			cols = strings.Join(names, ", ")
		}
	}
	if cols != "*" && g.chance(20) {
		// DISTINCT of columns whose equal values may be spelled apart has no defined result.
		distinct := true
		for _, name := range strings.Split(cols, ", ") {
			if t.column(name).ambiguous() {
				distinct = false
			}
		}
		if distinct {
			return statement{sql: fmt.Sprintf("SELECT DISTINCT %s FROM %s%s", cols, t.name, g.where(t, ""))}
		}
	}
	sql := fmt.Sprintf("SELECT %s FROM %s%s", cols, t.name, g.where(t, ""))
	if g.chance(50) {
		sql += " ORDER BY " + strings.Join(g.orderKeys(t, ""), ", ")
		if g.chance(60) {
			sql += fmt.Sprintf(" LIMIT %d", 1+g.pick(5))
			if g.chance(30) {
				sql += fmt.Sprintf(" OFFSET %d", g.pick(4))
			}
		}
		return statement{sql: sql, ordered: true}
	}
	return statement{sql: sql}
}

// aggregate draws COUNT, SUM, AVG, MIN and MAX, with or without GROUP BY a column whose
// values are spelled one way (a case-insensitive column's group may show any of its
// spellings, so it is not grouped on, nor its MIN or MAX read).
func (g *generator) aggregate(t *table) statement {
	var aggs []string
	for range 1 + g.pick(3) {
		c := pickOf(g, t.cols)
		switch x := g.pick(6); {
		case x == 0:
			aggs = append(aggs, "COUNT(*)")
		case x == 1:
			aggs = append(aggs, "COUNT("+c.name+")")
		case x == 2 && c.numeric():
			aggs = append(aggs, "SUM("+c.name+")")
		case x == 3 && c.numeric():
			aggs = append(aggs, "AVG("+c.name+")")
		case !c.ambiguous():
			aggs = append(aggs, pickOf(g, []string{"MIN(", "MAX("})+c.name+")")
		default:
			aggs = append(aggs, "COUNT(DISTINCT "+c.name+")")
		}
	}
	where := g.where(t, "")
	if g.chance(50) {
		var groupable []column
		for _, c := range t.cols[1:] {
			if !c.ambiguous() {
				groupable = append(groupable, c)
			}
		}
		if len(groupable) > 0 {
			c := pickOf(g, groupable)
			return statement{sql: fmt.Sprintf("SELECT %s, %s FROM %s%s GROUP BY %s", c.name, strings.Join(aggs, ", "), t.name, where, c.name)}
		}
	}
	return statement{sql: fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(aggs, ", "), t.name, where)}
}

// join draws an inner or left join of two tables on a comparison of one column of each.
func (g *generator) join() statement {
	a, b := g.table(), g.table()
	ca := pickOf(g, a.cols)
	cb := g.partner(b, ca)
	if !mixable(ca.family(), cb.family()) {
		ca = a.cols[0]
	}
	op := "="
	if g.chance(20) {
		op = pickOf(g, comparisons)
	}
	kindOf := "JOIN"
	if g.chance(30) {
		kindOf = "LEFT JOIN"
	}
	cols := []string{"a.id", "b.id"}
	for range 1 + g.pick(3) {
		if g.chance(50) {
			cols = append(cols, "a."+pickOf(g, a.cols).name)
		} else {
			cols = append(cols, "b."+pickOf(g, b.cols).name)
		}
	}
	sql := fmt.Sprintf("SELECT %s FROM %s a %s %s b ON a.%s %s b.%s%s", strings.Join(cols, ", "), a.name, kindOf, b.name, ca.name, op, cb.name, g.where(a, "a"))
	tags := []string{fmt.Sprintf("join %s %s %s", ca.typeSQL(overload), op, cb.typeSQL(overload))}
	if g.chance(40) {
		sql += " ORDER BY a.id, b.id"
		if g.chance(50) {
			sql += fmt.Sprintf(" LIMIT %d", 1+g.pick(5))
		}
		return statement{sql: sql, ordered: true, tags: tags}
	}
	return statement{sql: sql, tags: tags}
}
