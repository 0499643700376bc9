package integration

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"overloadsql/internal/wheregen"
)

// TestIndexMatchesScanThroughServer is the index-versus-scan differential through the server and
// its analyzer rules: the same rows in a table with indexes and in one without return the same
// rows for random WHERE clauses, over integer (signed, unsigned, narrow), DOUBLE, DECIMAL,
// DATETIME and text columns (accent- and case-insensitive, and a prefix index), with bounds of
// every kind on every column: integers in and out of the column's range, decimals, floating
// point, text that reads as a number and text that does not.
func TestIndexMatchesScanThroughServer(t *testing.T) {
	ctx := context.Background()
	conn := scratchDatabase(t, "s_indexscan")

	cols := "id INT PRIMARY KEY, a INT, g BIGINT UNSIGNED, h TINYINT, c DOUBLE, d DECIMAL(6,2), " +
		"b VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, e DATETIME, f VARCHAR(20)"
	mustExec(t, conn,
		"CREATE TABLE ix ("+cols+", KEY ka (a), KEY kag (a, g), KEY kg (g), KEY kha (h, a), KEY kc (c), "+
			"KEY kd (d), KEY kb (b), KEY kba (b, a), KEY ke (e), KEY kf (f(3)))",
		"CREATE TABLE sc ("+cols+")")

	rng := rand.New(rand.NewSource(23))
	strs := []string{"''", "'a'", "'A'", "'b'", "'B '", "'ab'", "'aB'", "'ß'", "'ss'", "'é'", "'E'", "'z'", "'2'", "'-1'", "'1x'", "'3.5'"}
	numbers := []string{"2.5", "-1.5", "0.0", "3.000", "1e0", "-0.5e0", "-1e-300", "0.25e0", "127.5"}
	wide := []string{"-9223372036854775808", "18446744073709551615", "128", "-129", "255", "1e300"}
	stored := func(col byte) string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		switch col {
		case 'a', 'g', 'h':
			n := rng.Intn(7) - 3
			if col == 'g' {
				n += 3
			}
			return fmt.Sprint(n)
		case 'c':
			return []string{"-0.0e0", "0.0e0", "0.25e0", "-1.5e0", "1e300", "-1e-300", "3e0", "2.5e0"}[rng.Intn(8)]
		case 'd':
			return fmt.Sprintf("%d.%02d", rng.Intn(7)-3, []int{0, 50, 25}[rng.Intn(3)])
		case 'e':
			return fmt.Sprintf("'2026-0%d-1%d 0%d:00:00'", 1+rng.Intn(3), rng.Intn(3), rng.Intn(3))
		}
		return strs[rng.Intn(len(strs))]
	}
	bound := func(col byte) string {
		if col == 'e' {
			// a DATETIME compared with text that is not a date fails on the rows it meets
			// (1292 in MySQL is a warning), so which path reads a row would decide the error
			return stored(col)
		}
		switch n := rng.Intn(10); {
		case n == 0:
			return "NULL"
		case n == 1:
			return numbers[rng.Intn(len(numbers))]
		case n == 2:
			return strs[rng.Intn(len(strs))]
		case n == 3:
			return wide[rng.Intn(len(wide))]
		}
		return stored(col)
	}
	for id := 1; id <= 300; id++ {
		vals := []string{fmt.Sprint(id)}
		for _, col := range []byte("aghcdbef") {
			vals = append(vals, stored(col))
		}
		row := "(" + strings.Join(vals, ", ") + ")"
		mustExec(t, conn, "INSERT INTO ix VALUES "+row, "INSERT INTO sc VALUES "+row)
	}

	gen := wheregen.Gen{Rand: rng, Columns: "aghcdbef", Value: bound, NotIn: true,
		Like: func(col byte) (string, bool) {
			return []string{"a", "A", "ß", "s", "", "é", "e_", "%b"}[rng.Intn(8)] + "%", col == 'b' || col == 'f'
		}}
	const queries = 1500
	indexed, compared := 0, 0
	for range queries {
		q := " WHERE " + gen.Where() + " ORDER BY id"
		// a read of a secondary index (the primary key serves ORDER BY id on both tables)
		if plan := strings.Join(queryStrings(t, conn, "EXPLAIN PLAN SELECT id FROM ix"+q), " "); strings.Contains(plan, "index: [ix.") &&
			strings.Count(plan, "index: [ix.id]") < strings.Count(plan, "index: [ix.") {
			indexed++
		}
		a, errA := rowsOf(ctx, conn, "SELECT id FROM ix"+q)
		b, errB := rowsOf(ctx, conn, "SELECT id FROM sc"+q)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: with indexes %v, without %v", q, errA, errB)
		}
		if errA != nil {
			continue
		}
		compared++
		if a != b {
			t.Fatalf("%s:\nwith indexes %s\nwithout      %s\nthe rows that differ: %v", q, a, b,
				queryStrings(t, conn, "SELECT * FROM sc WHERE id IN ("+symmetricDifference(a, b)+") ORDER BY id LIMIT 10"))
		}
	}
	if indexed < queries/3 || compared < queries*9/10 {
		t.Fatalf("%d of %d queries read an index and %d gave rows; want a third and nine in ten", indexed, queries, compared)
	}
	t.Logf("%d of %d queries read an index; %d compared", indexed, queries, compared)
}

// rowsOf runs a query and returns its rows, their fields joined by commas and the rows by
// spaces, a NULL as NULL.
func rowsOf(ctx context.Context, conn *sql.Conn, query string) (string, error) {
	_, rows, err := queryRows(ctx, conn, query)
	if err != nil {
		return "", err
	}
	out := make([]string, len(rows))
	for i, row := range rows {
		for j, v := range row {
			if v == sqlNull {
				row[j] = "NULL"
			}
		}
		out[i] = strings.Join(row, ",")
	}
	return strings.Join(out, " "), nil
}

// symmetricDifference is the ids in exactly one of two lists of ids, comma-separated.
func symmetricDifference(a, b string) string {
	count := map[string]int{}
	for _, id := range strings.Fields(a) {
		count[id]++
	}
	for _, id := range strings.Fields(b) {
		count[id]--
	}
	out := []string{"0"}
	for id, n := range count {
		if n != 0 {
			out = append(out, id)
		}
	}
	return strings.Join(out, ", ")
}

// scratchDatabase is a connection of the shared server's admin to a new database of that name,
// dropped when the test ends.
func scratchDatabase(t *testing.T, name string) *sql.Conn {
	t.Helper()
	db := sharedServer(t).pool(t, "default", "")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		mustExec(t, db, "DROP DATABASE IF EXISTS "+name)
	})
	mustExec(t, conn, "DROP DATABASE IF EXISTS "+name, "CREATE DATABASE "+name, "USE "+name)
	return conn
}
