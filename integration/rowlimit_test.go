package integration

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A row equality is planned as the AND of its pairs, in time that grew with the square of its
// length, deaf to KILL QUERY and to the client leaving: (a, a, ...) = (1, 1, ...) of 40 000
// columns (160 KB, no operator for the expression limits to count) planned for about two
// minutes. A statement's row equalities now hold at most 1000 pairs in all (1105, expression
// too complex).
func TestLongRowComparisonsAreRefused(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	mustExec(t, s.db(), "CREATE TABLE main.r (id INT PRIMARY KEY, a INT)")
	mustExec(t, s.db(), "INSERT INTO main.r VALUES (1, 1), (2, 2)")
	app := s.open("app", "secret", s.addr)
	defer app.Close()
	row := func(n int, v string) string { return "(" + strings.TrimSuffix(strings.Repeat(v+",", n), ",") + ")" }
	for _, where := range []string{
		row(40000, "a") + " = " + row(40000, "1"),
		row(600, "a") + " = " + row(600, "1") + " AND " + row(600, "id") + " <> " + row(600, "2"),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), answerBound)
		var n int64
		err := app.QueryRowContext(ctx, "SELECT COUNT(*) FROM main.r WHERE "+where).Scan(&n)
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		var me *mysql.MySQLError
		switch {
		case timedOut:
			t.Errorf("a row comparison of %d bytes: no answer within %v", len(where), answerBound)
		case !errors.As(err, &me) || me.Number != 1105 || !strings.Contains(me.Message, "expression too complex"):
			t.Errorf("a row comparison of %d bytes: %v, want 1105 expression too complex", len(where), err)
		}
	}
	if got := oneValue(t, app, "SELECT COUNT(*) FROM main.r WHERE "+row(1000, "a")+" = "+row(1000, "1")); got != "1" {
		t.Errorf("a row comparison of 1000 pairs: %s rows, want 1", got)
	}
}
