// Package wheregen writes random WHERE clauses for the index-versus-scan differentials: the
// same clause asked of a table with indexes and of one without must give the same rows.
//
// A clause is conditions on single columns (IS [NOT] NULL, IN, NOT IN, BETWEEN, a comparison,
// LIKE) joined by AND and OR, each condition wrapped in parentheses as the clause grows. The
// caller gives the columns and the literals each may be compared with; the randomness is the
// caller's, so a seed gives the same clauses every run.
package wheregen

import (
	"fmt"
	"math/rand"
)

// Gen writes clauses over Columns, one byte per column name.
type Gen struct {
	Rand    *rand.Rand
	Columns string
	// Value is a literal to compare column col with.
	Value func(col byte) string
	// NotIn adds NOT IN lists to the conditions.
	NotIn bool
	// Like, when set, is a LIKE pattern for col, or false for a column LIKE does not test.
	Like func(col byte) (string, bool)
}

// operators are the comparisons a condition may use.
var operators = []string{"=", "<", "<=", ">", ">=", "<>", "<=>"}

// Condition is one condition on a random column.
func (g Gen) Condition() string {
	col := g.Columns[g.Rand.Intn(len(g.Columns))]
	name := string(col)
	if g.Like != nil && g.Rand.Intn(5) == 0 {
		if pattern, ok := g.Like(col); ok {
			return fmt.Sprintf("%s LIKE '%s'", name, pattern)
		}
	}
	kinds := 5
	if g.NotIn {
		kinds++
	}
	switch k := g.Rand.Intn(kinds + 1); k {
	case 0:
		return name + " IS NULL"
	case 1:
		return name + " IS NOT NULL"
	case 2:
		return fmt.Sprintf("%s IN (%s, %s, %s)", name, g.Value(col), g.Value(col), g.Value(col))
	case 3:
		return fmt.Sprintf("%s BETWEEN %s AND %s", name, g.Value(col), g.Value(col))
	case 4:
		if g.NotIn {
			return fmt.Sprintf("%s NOT IN (%s, %s)", name, g.Value(col), g.Value(col))
		}
	}
	return name + " " + operators[g.Rand.Intn(len(operators))] + " " + g.Value(col)
}

// Where is a clause of one or more conditions joined by AND and OR.
func (g Gen) Where() string {
	where := g.Condition()
	for g.Rand.Intn(2) == 0 {
		where = "(" + where + ") " + []string{"AND", "OR"}[g.Rand.Intn(2)] + " " + g.Condition()
	}
	return where
}
