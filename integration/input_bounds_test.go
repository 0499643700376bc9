package integration

import (
	"context"
	"strings"
	"testing"
)

// TestLockNames holds LockNamesAreBounded: GET_LOCK and the other lock functions take names of
// at most 64 characters, as MySQL 8: a longer one is error 3057 (42000), quoting the name
// clipped, and takes no lock. Before, a client could hold any number of locks of a megabyte
// each.
func TestLockNames(t *testing.T) {
	name64 := strings.Repeat("n", 64)
	assertions := []assertion{
		{query: "SELECT GET_LOCK(?, 0)", args: []any{name64}, rows: column("1")},
		// 64 characters of two bytes each are 64 characters.
		{query: "SELECT GET_LOCK(?, 0)", args: []any{strings.Repeat("é", 64)}, rows: column("1")},
	}
	for _, q := range []string{
		"SELECT GET_LOCK(REPEAT('n', 65), 0)",
		"SELECT GET_LOCK(REPEAT('m', 1000000), 0)",
		"SELECT RELEASE_LOCK(REPEAT('n', 65))",
		"SELECT IS_FREE_LOCK(REPEAT('n', 65))",
		"SELECT IS_USED_LOCK(REPEAT('n', 65))",
		"SELECT GET_LOCK(CONCAT(REPEAT('n', 64), 'x'), 0)",
	} {
		assertions = append(assertions, assertion{query: q, err: 3057, state: "42000",
			message: "Incorrect user-level lock name '*at most 64 characters*", maxMessage: 400})
	}
	assertions = append(assertions,
		// The 64-character lock is held.
		assertion{query: "SELECT RELEASE_LOCK(?)", args: []any{name64}, rows: column("1")},
		assertion{query: "SELECT GET_LOCK(NULL, 0)", rows: column("NULL")})
	runScripts(t, []scriptTest{{name: "LockNamesAreBounded", assertions: assertions}})
}

// Errors that quote what a client sent quote it clipped, as MySQL's do: a value of a megabyte
// comes back as its first 200 bytes (1231), the text near a syntax error as its first 80
// (1064), and no message is longer than 4096 bytes plus a note of its length. Before, error
// 1231 echoed the whole value, and a client with a smaller packet limit lost its connection.
func TestErrorsQuoteClientInputClipped(t *testing.T) {
	s := startServer(t, serverOptions{sections: workloadsConfig})
	c := session(t, s.db())
	big := strings.Repeat("w", 1000000)
	for _, q := range []struct {
		query  string
		num    uint16
		quoted string
		limit  int
	}{
		{"SET workload = REPEAT('w', 1000000)", 1231, "'" + big[:200] + "...'", 600},
		{"SELECT /*+ SET_VAR(workload = '" + big[:100000] + "') */ 1", 1231, "'" + big[:200] + "...' (SET_VAR hint)", 600},
		{"SET queue_max_wait_ms = REPEAT('9x', 500000)", 1231, "'" + strings.Repeat("9x", 100) + "...'", 600},
		{"SELECT * FROM '" + big[:200000] + "'", 1064, "near '" + big[:80] + "...'", 400},
		{"SET sql_mode = REPEAT('m', 1000000)", 0, "", 4200},
		{"ROLLBACK TO SAVEPOINT `" + big[:100000] + "`", 1305, "SAVEPOINT " + big[:200] + "... does not exist", 400},
	} {
		_, err := c.ExecContext(context.Background(), q.query)
		me := mysqlError(t, err)
		if q.num != 0 && me.Number != q.num || !strings.Contains(me.Message, q.quoted) || len(me.Message) > q.limit {
			t.Errorf("%.60s: %d %.300s (%d bytes); want %d quoting %.60s, at most %d bytes", q.query, me.Number, me.Message, len(me.Message), q.num, q.quoted, q.limit)
		}
	}
	// The user name of a handshake, before authentication (the handshake may be 64 KiB).
	db := s.open(big[:30000], "x", s.addr)
	defer db.Close()
	err := db.PingContext(context.Background())
	if me := mysqlError(t, err); me.Number != 1045 || !strings.Contains(me.Message, "'"+big[:48]+"...'") || len(me.Message) > 200 {
		t.Errorf("a 30 KB user name: %d %.300s (%d bytes); want 1045 quoting its first 48 bytes", me.Number, me.Message, len(me.Message))
	}
	// The session goes on.
	var one int
	if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("SELECT 1 after the errors: %d, %v", one, err)
	}
}
