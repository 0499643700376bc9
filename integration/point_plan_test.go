package integration

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestPointPlansMatchTheEngine: SELECTs of one table by integer keys of an index, with sorts,
// DISTINCT and aggregations above, are planned from learned plans (package engine/pointplan).
// Each statement runs three ways: prepared
// (the planner's), as text with its constants inline (the planner's too), and with a
// condition the planner does not take (the engine's own plan); the rows must agree. The
// constants include values the columns cannot hold, negative keys of unsigned columns and
// reversed BETWEEN bounds. More than 1024 statements of one shape make the server compare a
// learned plan with the engine's at least once, and it must never have found a difference.
func TestPointPlansMatchTheEngine(t *testing.T) {
	ctx := context.Background()
	conn := scratchDatabase(t, "s_pointplans")
	mustExec(t, conn,
		"CREATE TABLE sb (id INT NOT NULL PRIMARY KEY, k INT NOT NULL, c CHAR(20) NOT NULL, KEY k_1 (k))",
		"CREATE TABLE u (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, t TINYINT, v SMALLINT UNSIGNED, UNIQUE KEY tv (t, v))",
		"CREATE TABLE two (a SMALLINT NOT NULL, b INT NOT NULL, n VARCHAR(10), PRIMARY KEY (a, b))")
	rng := rand.New(rand.NewSource(53))
	for i := 1; i <= 300; i++ {
		mustExec(t, conn,
			fmt.Sprintf("INSERT INTO sb VALUES (%d, %d, 'c%d')", i*3, rng.Intn(40), i),
			fmt.Sprintf("INSERT IGNORE INTO u VALUES (%d, %d, %d)", uint64(i)*1e16, rng.Intn(256)-128, rng.Intn(300)),
			fmt.Sprintf("INSERT INTO two VALUES (%d, %d, 'n%d')", rng.Intn(20)-10, i, i))
	}
	// Rows at the columns' bounds, where a key the column cannot hold would land if it were
	// clamped.
	mustExec(t, conn, "INSERT INTO u VALUES (18446744073709551615, NULL, NULL), (0, 127, 65535), (1, -128, 0)",
		"INSERT INTO sb VALUES (2147483647, 2147483647, 'max'), (-2147483648, -2147483648, 'min')",
		"INSERT INTO two VALUES (32767, 2147483647, 'max'), (-32768, -2147483648, 'min')")

	key := func() int64 {
		switch rng.Intn(4) {
		case 0:
			bounds := []int64{-1, 0, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
				2147483647, 2147483648, -2147483648, -2147483649, math.MaxInt64, math.MinInt64}
			return bounds[rng.Intn(len(bounds))]
		case 1:
			return rng.Int63()
		default:
			return int64(rng.Intn(1000) - 50)
		}
	}
	type shape struct {
		table, columns, where string
		args                  int
		tail                  string // after the WHERE clause; rows are compared in order when it sorts
	}
	shapes := []shape{
		{"sb", "c", "id = ?", 1, ""},
		{"sb", "id, c", "k = ?", 1, ""},
		{"sb", "c", "id BETWEEN ? AND ?", 2, ""},
		{"sb", "*", "id = ?", 1, ""},
		{"sb", "SUM(k)", "id BETWEEN ? AND ?", 2, ""},
		{"sb", "c", "id BETWEEN ? AND ?", 2, " ORDER BY c"},
		{"sb", "DISTINCT k", "id BETWEEN ? AND ?", 2, " ORDER BY k DESC"},
		{"sb", "k, COUNT(c), MIN(c), MAX(id), AVG(id)", "id BETWEEN ? AND ?", 2, " GROUP BY k ORDER BY k"},
		{"sb", "id AS i, c", "id BETWEEN ? AND ?", 2, " ORDER BY id DESC"},
		{"u", "id", "t = ? AND v = ?", 2, ""},
		{"u", "id, v", "v = ? AND t = ?", 2, ""},
		{"two", "n", "a = ? AND b = ?", 2, ""},
		{"two", "b, n", "a = ? AND b BETWEEN ? AND ?", 3, ""},
		{"two", "n", "a = ?", 1, ""},
		{"two", "SUM(b), COUNT(n)", "a = ?", 1, ""},
	}
	for round := 0; round < 600; round++ {
		s := shapes[rng.Intn(len(shapes))]
		args := make([]any, s.args)
		for j := range args {
			args[j] = key()
		}
		if s.where == "id BETWEEN ? AND ?" && rng.Intn(2) == 0 {
			args[0], args[1] = int64(rng.Intn(900)), int64(rng.Intn(900))
		}
		query := fmt.Sprintf("SELECT %s FROM %s WHERE %s", s.columns, s.table, s.where)
		ordered := strings.Contains(s.tail, "ORDER BY")
		prepared := printedRows(t, ctx, conn, ordered, query+s.tail, args...)
		text := printedRows(t, ctx, conn, ordered, inline(query+s.tail, args))
		engine := printedRows(t, ctx, conn, ordered, inline(query+" AND 1 = 1"+s.tail, args))
		if !slices.Equal(prepared, engine) || !slices.Equal(text, engine) {
			t.Fatalf("%s%s %v:\nprepared %v\ntext     %v\nengine   %v", query, s.tail, args, prepared, text, engine)
		}
	}
	// One shape past the verification period.
	for i := 0; i < 1100; i++ {
		if got := printedRows(t, ctx, conn, false, "SELECT c FROM sb WHERE id = ?", (i%300+1)*3); len(got) != 1 {
			t.Fatalf("id %d: %v", (i%300+1)*3, got)
		}
	}
	if planned := event(t, conn, "PointPlannedQueries"); planned < 1000 {
		t.Errorf("PointPlannedQueries = %d: the statements were not planned from learned plans", planned)
	}
	if differed := event(t, conn, "PointPlanDifferences"); differed != 0 {
		t.Errorf("PointPlanDifferences = %d: a learned plan differed from the engine's (see the server log)", differed)
	}
}

// TestPointPlansFollowTheTable: a learned plan is never used for another definition of its
// table, in the same session and statement text: after ALTER TABLE changes a column's type
// and after the table is dropped and created again, the prepared statement reads the new
// definition. Within a transaction it reads the transaction's own writes.
func TestPointPlansFollowTheTable(t *testing.T) {
	ctx := context.Background()
	conn := scratchDatabase(t, "s_pointplans_ddl")
	mustExec(t, conn, "CREATE TABLE p (id INT NOT NULL PRIMARY KEY, c CHAR(10), d INT)",
		"INSERT INTO p VALUES (1, 'one', 10), (2, 'two', 20)")
	stmt, err := conn.PrepareContext(ctx, "SELECT * FROM p WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	read := func(id int) string {
		t.Helper()
		rows, err := stmt.QueryContext(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		out := fmt.Sprint(cols)
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(vals))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				out += " " + v.String
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	steps := []struct {
		sql  string
		id   int
		want string
	}{
		{"", 1, "[id c d] 1 one 10"},
		{"", 2, "[id c d] 2 two 20"},
		{"ALTER TABLE p DROP COLUMN c", 2, "[id d] 2 20"},
		{"ALTER TABLE p ADD COLUMN e VARCHAR(5) DEFAULT 'x' FIRST", 1, "[e id d] x 1 10"},
		{"DROP TABLE p", 0, ""},
		{"CREATE TABLE p (id BIGINT NOT NULL PRIMARY KEY, z INT)", 0, ""},
		{"INSERT INTO p VALUES (2, 7)", 2, "[id z] 2 7"},
		{"BEGIN", 0, ""},
		{"UPDATE p SET z = 8 WHERE id = 2", 2, "[id z] 2 8"},
		{"ROLLBACK", 2, "[id z] 2 7"},
	}
	for _, s := range steps {
		if s.sql != "" {
			mustExec(t, conn, s.sql)
		}
		if s.want == "" {
			continue
		}
		for range 3 {
			if got := read(s.id); got != s.want {
				t.Fatalf("after %q: SELECT * FROM p WHERE id = %d read %q, want %q", s.sql, s.id, got, s.want)
			}
		}
	}
}

// inline writes query with its ? replaced by args.
func inline(query string, args []any) string {
	out := ""
	n := 0
	for _, r := range query {
		if r == '?' {
			out += fmt.Sprint(args[n])
			n++
			continue
		}
		out += string(r)
	}
	return out
}

// printedRows is query's rows printed, in the order read if ordered, else sorted.
func printedRows(t *testing.T, ctx context.Context, conn *sql.Conn, ordered bool, query string, args ...any) []string {
	t.Helper()
	_, rows, err := queryRows(ctx, conn, query, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", query, args, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r)
	}
	if !ordered {
		slices.Sort(out)
	}
	return out
}
