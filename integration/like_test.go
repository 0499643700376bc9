package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The engine matched LIKE by backtracking, in time proportional to the text's length times the
// pattern's, deaf to KILL QUERY and to the client leaving: this 70-byte statement of an
// ordinary user ran for minutes whatever was done. Now KILL QUERY stops it with 1317, a
// client that leaves stops it, and large matches without '_' take time proportional to the
// text, with the engine's answers.
func TestLongLikeMatchesStop(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	admin := s.db()
	const slow = "SELECT REPEAT('a', 200000) LIKE CONCAT('%', REPEAT('a', 100000), '_b%')"
	// JSON_SEARCH matches each string of the document with the same matcher.
	const slowSearch = "SELECT JSON_SEARCH(JSON_ARRAY(REPEAT('a', 200000)), 'one', CONCAT('%', REPEAT('a', 60000), '_b%')) IS NULL"
	running := func() string {
		return oneValue(t, admin, "SELECT COUNT(*) FROM information_schema.processlist WHERE user = 'app' AND command = 'Query'")
	}

	for name, query := range map[string]string{"LIKE": slow, "JSON_SEARCH": slowSearch} {
		t.Run("KILL QUERY of "+name, func(t *testing.T) { killRunningLike(t, s, admin, query, running) })
	}

	t.Run("the client leaves", func(t *testing.T) {
		app := s.open("app", "secret", s.addr)
		defer app.Close()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			var v sql.NullInt64
			done <- app.QueryRowContext(ctx, slow).Scan(&v)
		}()
		eventually(t, 30*time.Second, "the LIKE runs", func() (bool, string) {
			n := running()
			return n == "1", "running statements of app: " + n
		})
		cancel() // the driver closes the connection
		<-done
		eventually(t, 60*time.Second, "the LIKE stops", func() (bool, string) {
			n := running()
			return n == "0", "running statements of app: " + n
		})
	})

	t.Run("answers", func(t *testing.T) {
		app := s.open("app", "secret", s.addr)
		defer app.Close()
		for query, want := range map[string]string{
			"SELECT CONCAT(REPEAT('a', 80000), 'Xb') COLLATE utf8mb4_0900_ai_ci LIKE CONCAT('%', REPEAT('A', 40000), 'xB')":      "1",
			"SELECT CONCAT(REPEAT('a', 80000), 'Xb') LIKE CONCAT('%', REPEAT('A', 40000), 'xB')":                                 "0",
			"SELECT REPEAT('ab', 40000) LIKE CONCAT('ab%', REPEAT('ba', 30000), '%b')":                                           "1",
			"SELECT REPEAT('ab', 40000) LIKE CONCAT('ab%', REPEAT('b_', 30000), '%a')":                                           "0",
			"SELECT REPEAT('a', 200000) LIKE CONCAT('%', REPEAT('a', 100000), 'b%')":                                             "0",
			"SELECT JSON_SEARCH(JSON_ARRAY('x', CONCAT(REPEAT('a', 80000), 'b')), 'all', CONCAT('%', REPEAT('a', 40000), 'b%'))": `"$[1]"`,
		} {
			if got := oneValue(t, app, query); got != want {
				t.Errorf("%.80s: %s, want %s", query, got, want)
			}
		}
	})
}

// killRunningLike runs query as app and stops it with KILL QUERY once it runs.
func killRunningLike(t *testing.T, s *testServer, admin *sql.DB, query string, running func() string) {
	app := s.open("app", "secret", s.addr)
	defer app.Close()
	conn, err := app.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var v sql.NullInt64
		done <- conn.QueryRowContext(context.Background(), query).Scan(&v)
	}()
	eventually(t, 30*time.Second, "the LIKE runs", func() (bool, string) {
		n := running()
		return n == "1", "running statements of app: " + n
	})
	if _, err := admin.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1317 {
			t.Errorf("the LIKE after KILL QUERY: %v, want 1317", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the LIKE still runs after KILL QUERY")
	}
}
