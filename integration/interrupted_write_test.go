package integration

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// A writing statement interrupted after it built a row stores none of its rows, and an
// interrupted CREATE TABLE ... AS SELECT leaves no table. A GET_LOCK on a held lock in the
// statement's rows holds it in the middle of its rows until KILL QUERY ends the wait (a long
// lock timeout, never reached, keeps a slow machine from building the row first); the
// interrupted GET_LOCK takes no lock.
func TestInterruptedWriteStoresNoRows(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	holder, victim := session(t, db), session(t, db)
	victimID := intOn(t, victim, "SELECT CONNECTION_ID()")
	holderID := intOn(t, holder, "SELECT CONNECTION_ID()")
	mustExec(t, db, "CREATE TABLE main.existing (v INT)")
	for _, c := range []struct{ name, query, table string }{
		{"CREATE TABLE ... AS SELECT", "CREATE TABLE main.created AS SELECT GET_LOCK('held', 120) AS v", "main.created"},
		{"INSERT ... SELECT", "INSERT INTO main.existing SELECT GET_LOCK('held', 120)", "main.existing"},
		{"INSERT ... VALUES", "INSERT INTO main.existing VALUES (1), (2), (GET_LOCK('held', 120)), (4)", "main.existing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := intOn(t, holder, "SELECT GET_LOCK('held', 0)"); got != 1 {
				t.Fatalf("GET_LOCK('held', 0) = %d, want 1", got)
			}
			done := make(chan error, 1)
			go func() {
				_, err := victim.ExecContext(context.Background(), c.query)
				done <- err
			}()
			// A second into the statement, its planning is long over: it waits in GET_LOCK.
			eventually(t, 15*time.Second, "the statement waits in GET_LOCK", func() (bool, string) {
				rows := queryStrings(t, db, fmt.Sprintf("SELECT CONCAT(time, ' ', info) FROM information_schema.processlist WHERE id = %d", victimID))
				return len(rows) == 1 && !strings.HasPrefix(rows[0], "0 ") && strings.Contains(rows[0], "GET_LOCK"), strings.Join(rows, "; ")
			})
			mustExec(t, db, "KILL QUERY "+strconv.Itoa(victimID))
			var me *mysql.MySQLError
			if err := <-done; !errors.As(err, &me) || me.Number != 1317 {
				t.Errorf("%s after KILL QUERY: %v, want 1317", c.query, err)
			}
			if got := intOn(t, victim, "SELECT IS_USED_LOCK('held')"); got != holderID {
				t.Errorf("IS_USED_LOCK('held') after the interrupted wait: %d, want the holder %d", got, holderID)
			}
			intOn(t, holder, "SELECT RELEASE_LOCK('held')")
			if c.table == "main.created" {
				// As in MySQL, the failed CREATE TABLE leaves no table at all.
				if got := queryStrings(t, db, "SHOW TABLES LIKE 'created'"); len(got) != 0 {
					t.Errorf("the interrupted %s left table %s behind", c.name, c.table)
				}
				return
			}
			if got := oneValue(t, db, "SELECT COUNT(*) FROM "+c.table); got != "0" {
				t.Errorf("%s holds %s rows after the interrupted %s, want 0", c.table, got, c.name)
			}
		})
	}
}
