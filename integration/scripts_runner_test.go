package integration

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestScriptAssertionsCompareExactly: the script runner's comparison tells NULL from the text
// NULL, order and column names matter, and an error must carry the number, SQLSTATE and
// message asked for.
func TestScriptAssertionsCompareExactly(t *testing.T) {
	duplicate := &mysql.MySQLError{Number: 1060, SQLState: [5]byte{'4', '2', 'S', '2', '1'}, Message: "Duplicate column name 'a'"}
	for _, c := range []struct {
		name  string
		a     assertion
		cols  []string
		rows  [][]string
		err   error
		match bool
	}{
		{"same rows", assertion{rows: tsv("1\tNULL", "2\tx")}, nil, [][]string{{"1", sqlNull}, {"2", "x"}}, nil, true},
		{"NULL is not the text NULL", assertion{rows: tsv("NULL")}, nil, [][]string{{"NULL"}}, nil, false},
		{"the text NULL is not NULL", assertion{rows: [][]string{{"NULL"}}}, nil, [][]string{{sqlNull}}, nil, false},
		{"order", assertion{rows: column("1", "2")}, nil, column("2", "1"), nil, false},
		{"no rows wanted", assertion{}, nil, column("1"), nil, false},
		{"no rows", assertion{}, []string{"id"}, nil, nil, true},
		{"a row too few", assertion{rows: column("1", "2")}, nil, column("1"), nil, false},
		{"columns", assertion{columns: []string{"a", "a"}}, []string{"a", "b"}, nil, nil, false},
		{"plan line", assertion{plan: "IndexedTableAccess"}, nil, column(" └─ IndexedTableAccess(t)"), nil, true},
		{"plan line missing", assertion{plan: "IndexedTableAccess"}, nil, column(" └─ Table(t)"), nil, false},
		{"an error where rows are wanted", assertion{rows: column("1")}, nil, nil, duplicate, false},
		{"rows where an error is wanted", assertion{err: 1060}, nil, column("1"), nil, false},
		{"error number", assertion{err: 1060, state: "42S21", message: "Duplicate column name 'a'"}, nil, nil, duplicate, true},
		{"another number", assertion{err: 1061}, nil, nil, duplicate, false},
		{"another state", assertion{err: 1060, state: "42000"}, nil, nil, duplicate, false},
		{"another message", assertion{err: 1060, message: "Duplicate column name 'b'"}, nil, nil, duplicate, false},
		{"a message pattern", assertion{err: 1060, message: "Duplicate * name '*'"}, nil, nil, duplicate, true},
		{"a pattern is anchored", assertion{err: 1060, message: "column name"}, nil, nil, duplicate, false},
		{"a message too long", assertion{err: 1060, maxMessage: 10}, nil, nil, duplicate, false},
		{"not a server error", assertion{err: 1060}, nil, nil, errors.New("connection refused"), false},
	} {
		if got := mismatch(c.a, c.cols, c.rows, c.err); (got == "") != c.match {
			t.Errorf("%s: mismatch %q, want a match: %v", c.name, got, c.match)
		}
	}
}
