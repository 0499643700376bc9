package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// The protocol layer counted a prepared statement's placeholders in 16 bits: from 65529 on,
// every execution panicked and dropped the connection (the NULL bitmap's size wrapped), and past
// 65535 the count wrapped, so its parameters could not be bound. Such a statement is refused with
// MySQL's 1390; 65528 placeholders still work.
func TestTooManyPlaceholdersAreRefused(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app := s.open("app", "secret", s.addr)
	defer app.Close()
	app.SetMaxOpenConns(1)
	selectOf := func(n int) string { return "SELECT " + strings.TrimSuffix(strings.Repeat("?,", n), ",") }
	args := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	for _, n := range []int{65529, 65535, 65537} {
		_, err := app.Prepare(selectOf(n))
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1390 {
			t.Errorf("PREPARE of %d placeholders: %v, want 1390", n, err)
		}
	}
	const most = 65528
	stmt, err := app.Prepare(selectOf(most))
	if err != nil {
		t.Fatalf("PREPARE of %d placeholders: %v", most, err)
	}
	defer stmt.Close()
	rows, err := stmt.Query(args(most)...)
	if err != nil {
		t.Fatalf("EXECUTE of %d placeholders: %v", most, err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if len(cols) != most {
		t.Errorf("EXECUTE of %d placeholders: %d columns", most, len(cols))
	}
	if got := oneValue(t, app, "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 after: %s", got)
	}
}
