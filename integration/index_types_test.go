package integration

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"overloadsql/internal/wheregen"
)

// typedColumn is one column of TestIndexMatchesScanOverTypes: its name (one letter), its
// definition, the literals its rows hold and more literals a condition may compare it with.
type typedColumn struct {
	name   byte
	def    string
	stored []string
	bounds []string
}

// typedColumns are the columns of TestIndexMatchesScanOverTypes: the types whose keys convert,
// pad or collate a bound (FLOAT, DATE, TIME, TIMESTAMP, YEAR, BIT, ENUM, SET, CHAR, BINARY,
// VARBINARY, text in binary, accent-sensitive and latin1 collations, BOOLEAN), each with bounds
// its type holds, rounds or refuses. A DATE, TIME or TIMESTAMP column compared with text that is
// not a time fails on the rows it meets, so which path reads a row would decide the error: their
// bounds are all times.
var typedColumns = []typedColumn{
	{'a', "a INT", []string{"-1", "0", "1", "2", "3"}, []string{"1.5", "-0.5e0", "'1'", "2147483648"}},
	{'f', "f FLOAT", []string{"-0.0", "0.1", "1.5", "-1.25", "2.5", "3.4e38", "1e-30"},
		[]string{"0.1e0", "0.25", "1.5e0", "'1.5'", "1e39", "-1e-300", "0", "TRUE"}},
	{'d', "d DATE", []string{"'2026-01-01'", "'2026-01-02'", "'2025-12-31'", "'2026-02-28'"},
		[]string{"'2026-01-01 10:00:00'", "'2026-01-02 00:00:00'", "TIMESTAMP'2026-01-01 00:00:00.5'", "DATE'2026-01-02'", "'2026-01-01 23:59:59.999999'"}},
	{'t', "t TIME", []string{"'10:00:00'", "'-01:00:00'", "'00:00:00'", "'838:59:59'", "'00:00:01'"},
		[]string{"'00:00:00.5'", "'10:00'", "'-00:00:01'", "'09:59:59.9'"}},
	{'y', "y YEAR", []string{"1999", "2000", "2026", "1901", "2155"}, []string{"1999.5", "2000.0", "2155.5", "1900", "2156", "99"}},
	{'p', "p TIMESTAMP NULL", []string{"'2026-01-01 00:00:00'", "'2026-01-01 10:00:00'", "'1970-01-02 00:00:00'", "'2038-01-01 00:00:00'"},
		[]string{"'1970-01-01 00:00:00'", "'2026-01-01'", "'2026-01-01 00:00:00.5'", "'2040-01-01 00:00:00'", "DATE'2026-01-01'"}},
	{'e', "e ENUM('b', 'a', 'c')", []string{"'a'", "'b'", "'c'"}, []string{"'d'", "''", "1", "2", "'bb'", "1.5", "0"}},
	{'q', "q SET('x', 'y', 'z')", []string{"'x'", "'y,z'", "''", "'x,y,z'", "'z'"}, []string{"'z,y'", "1", "6", "8", "2.5", "'w'"}},
	{'k', "k BIT(4)", []string{"0", "1", "5", "8", "15"}, []string{"16", "4.5", "b'101'", "-1", "x'0f'", "'5'"}},
	{'c', "c CHAR(4)", []string{"'a'", "'a '", "'A'", "'ab'", "''", "'b'"}, []string{"' '", "'a  '", "'abcde'", "x'61'", "'A' COLLATE utf8mb4_0900_ai_ci"}},
	{'n', "n BINARY(3)", []string{"'a'", "'ab'", "'abc'", "''", "x'610000'"}, []string{"'a\\0'", "'abcd'", "x'6100'", "'A'"}},
	{'v', "v VARBINARY(4)", []string{"'a'", "'a\\0'", "'ab'", "''", "'b'"}, []string{"'a '", "x'6100'", "'abcde'", "_binary'A'"}},
	{'u', "u VARCHAR(6) COLLATE utf8mb4_bin", []string{"'a'", "'A'", "'a '", "'é'", "'e'", "'ab'"}, []string{"'b'", "'A' COLLATE utf8mb4_0900_ai_ci", "_binary'a'", "'E'"}},
	{'w', "w VARCHAR(6) COLLATE utf8mb4_0900_as_cs", []string{"'a'", "'A'", "'á'", "'e'", "'é'", "'ab'"}, []string{"'b'", "'É'", "'A' COLLATE utf8mb4_0900_ai_ci", "_binary'a'"}},
	{'l', "l VARCHAR(6) CHARACTER SET latin1", []string{"'a'", "'A'", "'a '", "'b'", "'ab'", "'é'"}, []string{"'B'", "_binary'a'", "'E'", "'A' COLLATE utf8mb4_bin"}},
	{'o', "o BOOLEAN", []string{"TRUE", "FALSE", "2", "-1"}, []string{"0.5", "1e0", "'1'", "128"}},
}

// TestIndexMatchesScanOverTypes is the index-versus-scan differential of
// TestIndexMatchesScanThroughServer over more column types, composite indexes that mix them,
// a primary key of two columns and a UNIQUE index, NULL-heavy rows, and more statement shapes:
// ORDER BY an indexed column DESC with LIMIT (reverse lookups), lookup joins, IN subqueries, and
// UPDATE and DELETE (their affected rows and the table after). OVERLOADSQL_DIFF_SEED runs another
// seed.
func TestIndexMatchesScanOverTypes(t *testing.T) {
	ctx := context.Background()
	conn := scratchDatabase(t, "s_indextypes")

	seed := int64(41)
	if env := os.Getenv("OVERLOADSQL_DIFF_SEED"); env != "" {
		var err error
		if seed, err = strconv.ParseInt(env, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	byName := map[byte]typedColumn{}
	var defs []string
	names := ""
	for _, c := range typedColumns {
		byName[c.name] = c
		defs = append(defs, c.def)
		names += string(c.name)
	}
	// id2 makes a primary key of two columns; m is written by the UPDATEs.
	cols := "id INT, id2 INT, m INT, " + strings.Join(defs, ", ")
	keys := ", PRIMARY KEY (id2, id), UNIQUE KEY ku (id), KEY kf (f), KEY kd (d), KEY kt (t), KEY ky (y), KEY kp (p), " +
		"KEY ke (e), KEY kq (q), KEY kk (k), KEY kc (c), KEY kn (n), KEY kv (v), KEY ku2 (u), KEY kw (w), KEY kl (l), " +
		"KEY ko (o), KEY kca (c, a), KEY kad (a, d), KEY kdf (d, f), KEY kle (l, e), KEY kyk (y, k), KEY kua (u, a), " +
		"KEY kpt (p, t), KEY kwn (w, n)"
	mustExec(t, conn, "CREATE TABLE ix ("+cols+keys+")", "CREATE TABLE sc ("+cols+", PRIMARY KEY (id2, id))")

	stored := func(col byte) string {
		if rng.Intn(4) == 0 {
			return "NULL"
		}
		v := byName[col].stored
		return v[rng.Intn(len(v))]
	}
	bound := func(col byte) string {
		switch n := rng.Intn(10); {
		case n == 0:
			return "NULL"
		case n < 4:
			v := byName[col].bounds
			return v[rng.Intn(len(v))]
		}
		v := byName[col].stored
		return v[rng.Intn(len(v))]
	}
	for id := 1; id <= 200; id++ {
		vals := []string{fmt.Sprint(id), fmt.Sprint(id % 3), "0"}
		for _, c := range typedColumns {
			vals = append(vals, stored(c.name))
		}
		row := "(" + strings.Join(vals, ", ") + ")"
		mustExec(t, conn, "INSERT INTO ix VALUES "+row, "INSERT INTO sc VALUES "+row)
	}

	gen := wheregen.Gen{Rand: rng, Columns: names, Value: bound, NotIn: true,
		Like: func(col byte) (string, bool) {
			return []string{"a", "A", "é", "", "a_", "%b", "a "}[rng.Intn(7)] + "%", strings.IndexByte("cnvuwl", col) >= 0
		}}
	// same runs a query on ix and on sc (the table's name written as @T@) and fails when they differ.
	same := func(query string) bool {
		a, errA := rowsOf(ctx, conn, strings.ReplaceAll(query, "@T@", "ix"))
		b, errB := rowsOf(ctx, conn, strings.ReplaceAll(query, "@T@", "sc"))
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: with indexes %v, without %v", query, errA, errB)
		}
		if errA == nil && a != b {
			t.Fatalf("%s:\nwith indexes %s\nwithout      %s", query, a, b)
		}
		return errA == nil
	}
	const queries = 1200
	compared, indexed := 0, 0
	for i := range queries {
		where := gen.Where()
		col := string(names[rng.Intn(len(names))])
		var q string
		switch i % 6 {
		case 0, 1:
			q = "SELECT id FROM @T@ WHERE " + where + " ORDER BY id"
		case 2:
			// a reverse read of an index when the condition is on col
			q = fmt.Sprintf("SELECT id FROM @T@ WHERE %s ORDER BY %s DESC, id DESC LIMIT %d", where, col, 1+rng.Intn(20))
		case 3:
			// a lookup join: the indexed table looked up by the other's column, the same one or
			// one of another type
			q = fmt.Sprintf("SELECT s.id, @T@.id FROM sc s JOIN @T@ ON @T@.%s = s.%s WHERE %s ORDER BY s.id, @T@.id",
				col, []string{col, string(names[rng.Intn(len(names))])}[rng.Intn(2)], gen.Where())
			q = qualify(q, names)
		case 4:
			// DISTINCT: the engine's semi join by a hash join repeats a row whose text matches
			// values that differ in bytes but are equal in the collation (its DISTINCT keeps
			// both), without an index as with one; the differential compares the rows found
			q = fmt.Sprintf("SELECT DISTINCT id FROM sc WHERE %s IN (SELECT %s FROM @T@ WHERE %s) ORDER BY id", col, col, where)
		case 5:
			// an UPDATE through the condition; the affected rows and the table after must agree
			a, errA := affected(ctx, conn, "UPDATE ix SET m = m + 1 WHERE "+where)
			b, errB := affected(ctx, conn, "UPDATE sc SET m = m + 1 WHERE "+where)
			if (errA == nil) != (errB == nil) || a != b {
				t.Fatalf("UPDATE ... WHERE %s: with indexes %d rows (%v), without %d (%v)", where, a, errA, b, errB)
			}
			q = "SELECT id, m FROM @T@ ORDER BY id"
		}
		if strings.HasPrefix(q, "SELECT id FROM @T@") {
			plan := strings.Join(queryStrings(t, conn, "EXPLAIN PLAN "+strings.ReplaceAll(q, "@T@", "ix")), " ")
			if strings.Count(plan, "index: [ix.id2") < strings.Count(plan, "index: [ix.") {
				indexed++
			}
		}
		if same(q) {
			compared++
		}
	}
	for range 20 {
		where := gen.Where()
		a, errA := affected(ctx, conn, "DELETE FROM ix WHERE "+where)
		b, errB := affected(ctx, conn, "DELETE FROM sc WHERE "+where)
		if (errA == nil) != (errB == nil) || a != b {
			t.Fatalf("DELETE ... WHERE %s: with indexes %d rows (%v), without %d (%v)", where, a, errA, b, errB)
		}
		same("SELECT id FROM @T@ ORDER BY id")
	}
	if compared < queries*8/10 || indexed < queries/6 {
		t.Fatalf("%d of %d queries gave rows, %d read a secondary index; want eight in ten and a sixth", compared, queries, indexed)
	}
	t.Logf("seed %d: %d of %d queries compared, %d read a secondary index", seed, compared, queries, indexed)
}

// qualify writes the bare column names of a join's WHERE clause (one letter, after "WHERE ") as
// the looked-up table's (T.x).
func qualify(q string, names string) string {
	head, where, ok := strings.Cut(q, " WHERE ")
	if !ok {
		return q
	}
	where, tail, _ := strings.Cut(where, " ORDER BY ")
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(where); i++ {
		ch := where[i]
		if ch == '\'' {
			inQuote = !inQuote
		}
		word := !inQuote && strings.IndexByte(names, ch) >= 0 &&
			(i == 0 || !isWordByte(where[i-1])) && (i+1 == len(where) || !isWordByte(where[i+1]))
		if word {
			b.WriteString("@T@.")
		}
		b.WriteByte(ch)
	}
	return head + " WHERE " + b.String() + " ORDER BY " + tail
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// affected runs a statement and returns the rows it changed.
func affected(ctx context.Context, conn *sql.Conn, stmt string) (int64, error) {
	res, err := conn.ExecContext(ctx, stmt)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
