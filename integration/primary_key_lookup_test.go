package integration

import (
	"context"
	"database/sql"
	"slices"
	"testing"
)

// TestPrimaryKeyLookupThroughPreparedStatements checks lookups by primary key through
// server-side prepared statements (whose plans the engine keeps between executions, as
// sysbench uses them) against the rows as changed by UPDATE, DELETE and INSERT, inside a
// transaction and after its ROLLBACK.
func TestPrimaryKeyLookupThroughPreparedStatements(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	ctx := context.Background()
	const rows = 500
	loadKeyedTable(t, db, "pk", rows, 10)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	point, err := conn.PrepareContext(ctx, "SELECT c FROM pk WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer point.Close()
	between, err := conn.PrepareContext(ctx, "SELECT id FROM pk WHERE id BETWEEN ? AND ? ORDER BY id DESC")
	if err != nil {
		t.Fatal(err)
	}
	defer between.Close()
	lookup := func(stage string, id int, want ...string) {
		t.Helper()
		if got := stmtStrings(t, point, id); !slices.Equal(got, want) {
			t.Errorf("%s: id %d is %q, want %q", stage, id, got, want)
		}
	}
	exec := func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	lookup("loaded", 250, "c250")
	lookup("loaded", rows+1)
	if got := stmtStrings(t, between, 10, 13); !slices.Equal(got, []string{"13", "12", "11", "10"}) {
		t.Errorf("BETWEEN 10 AND 13 ORDER BY id DESC: %q", got)
	}
	exec("UPDATE pk SET c = 'updated', k = k + 1 WHERE id = 250")
	exec("DELETE FROM pk WHERE id = 12")
	exec("INSERT INTO pk VALUES (1000, 0, 'inserted')")
	lookup("after UPDATE", 250, "updated")
	lookup("after DELETE", 12)
	lookup("after INSERT", 1000, "inserted")
	if got := stmtStrings(t, between, 10, 13); !slices.Equal(got, []string{"13", "11", "10"}) {
		t.Errorf("after DELETE, BETWEEN 10 AND 13: %q", got)
	}
	exec("START TRANSACTION")
	exec("UPDATE pk SET c = 'in transaction' WHERE id = 250")
	exec("DELETE FROM pk WHERE id = 1000")
	lookup("inside the transaction", 250, "in transaction")
	lookup("inside the transaction", 1000)
	exec("ROLLBACK")
	lookup("after ROLLBACK", 250, "updated")
	lookup("after ROLLBACK", 1000, "inserted")
}

// stmtStrings runs a prepared statement and returns its first column, one string a row.
func stmtStrings(t testing.TB, stmt *sql.Stmt, args ...any) []string {
	t.Helper()
	rows, err := stmt.QueryContext(context.Background(), args...)
	if err != nil {
		t.Fatalf("prepared statement %v: %v", args, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
