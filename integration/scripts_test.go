package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"overloadsql/internal/serverproc"
	"overloadsql/internal/syncbuf"
)

// Script tests state a behaviour as statements and their answers, in the shape of
// go-mysql-server's enginetest ScriptTest: setup statements, then queries, each with the rows
// it must return or the error it must fail with. They run on one server shared by every script
// test of the process (started on first use, stopped by TestMain), each script on one
// connection of its own, in a database of its own. A test that needs its own server settings,
// several sessions, timing, cancellation or a memory limit stays a Go test with startServer.

// scriptTest is one script.
type scriptTest struct {
	// name names the subtest and the script's database (s_ and the name, lower case).
	name string
	// app runs the script as the non-admin account app, in main (where app may create
	// tables); otherwise the admin runs it.
	app bool
	// main runs the script in main, for statements that name it; the runner drops what the
	// script created there. Otherwise (and not app) the script runs in its own database.
	main bool
	// adminListener runs the script on the admin listener instead of the main one.
	adminListener bool
	// setup runs first, each statement required to succeed.
	setup []string
	// assertions run in order on the same connection.
	assertions []assertion
	// then, when not nil, runs after the assertions on the same connection, for a check the
	// assertions cannot state (a statement built from an answer).
	then func(t *testing.T, c *sql.Conn)
}

// assertion is one statement and what it must answer. With err 0 the statement succeeds and
// returns exactly rows, in order (nil: no row), unless contains is set.
type assertion struct {
	query string
	// args, when not nil, are the parameters of a server-side prepared statement.
	args []any
	// rows are the rows as text, sqlNull for NULL.
	rows [][]string
	// columns, when not nil, are the names of the result's columns.
	columns []string
	// contains, when not empty, replaces rows: one row of the answer (its fields joined by
	// tabs), such as a line of an EXPLAIN, contains it.
	contains string
	// err is the MySQL error number the statement must fail with.
	err uint16
	// fails, without err, asks only that the statement fail, with any error: for a statement
	// whose failure is the point and whose error number is the engine's, not MySQL's.
	fails bool
	// state, with err, is the SQLSTATE it must carry, when not empty.
	state string
	// message, with err, is the message: exact, or a pattern where * stands for any text.
	message string
	// maxMessage, with err, bounds the message's length in bytes, when not 0.
	maxMessage int
}

// sqlNull is how an expected row spells SQL NULL, distinct from the text "NULL".
const sqlNull = "\x00NULL"

// tsv returns rows written as lines of tab-separated fields; a field NULL is SQL NULL (write
// the row as a slice for the text "NULL").
func tsv(lines ...string) [][]string {
	rows := make([][]string, len(lines))
	for i, line := range lines {
		rows[i] = strings.Split(line, "\t")
		for j, f := range rows[i] {
			if f == "NULL" {
				rows[i][j] = sqlNull
			}
		}
	}
	return rows
}

// column returns rows of one column, one value each.
func column(values ...string) [][]string {
	rows := make([][]string, len(values))
	for i, v := range values {
		rows[i] = []string{v}
		if v == "NULL" {
			rows[i][0] = sqlNull
		}
	}
	return rows
}

// statementBound is how long any statement of a script may take: the bounds the scripts check
// are that an answer comes within it.
const statementBound = answerBound

// runScripts runs each script as a subtest on the shared server.
func runScripts(t *testing.T, scripts []scriptTest) {
	t.Helper()
	names := map[string]bool{}
	for _, sc := range scripts {
		if names[sc.name] {
			t.Fatalf("two scripts named %s", sc.name)
		}
		names[sc.name] = true
		t.Run(sc.name, func(t *testing.T) { runScriptTest(t, sc) })
	}
}

func runScriptTest(t *testing.T, sc scriptTest) {
	s := sharedServer(t)
	admin := s.pool(t, "default", "")
	logStart := len(s.log.String())
	t.Cleanup(func() {
		select {
		case <-s.proc.Exited():
			t.Errorf("the shared server died during the script: %v", s.proc.ExitErr())
		default:
		}
		if t.Failed() {
			t.Logf("server log during the script:\n%s", s.log.String()[logStart:])
		}
	})

	pool, database := admin, "s_"+strings.ToLower(sc.name)
	if sc.app {
		pool = s.pool(t, "app", "secret")
	}
	if sc.adminListener {
		if sc.app {
			t.Fatalf("script %s: app has no access to the admin listener", sc.name)
		}
		pool = s.poolOn(t, s.adminAddr, "default", "")
	}
	if sc.app || sc.main {
		database = "main"
		before := mainTables(t, admin)
		t.Cleanup(func() { dropNewTables(t, admin, before) })
	} else {
		if len(database) > 64 {
			t.Fatalf("script name %s makes a database name longer than 64 characters", sc.name)
		}
		mustExec(t, admin, "CREATE DATABASE `"+database+"`")
		t.Cleanup(func() { mustExec(t, admin, "DROP DATABASE `"+database+"`") })
	}
	conn, err := pool.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := withBound(func(ctx context.Context) error {
		_, err := conn.ExecContext(ctx, "USE `"+database+"`")
		return err
	}); err != nil {
		t.Fatalf("USE %s: %v", database, err)
	}

	for _, q := range sc.setup {
		if err := withBound(func(ctx context.Context) error { _, err := conn.ExecContext(ctx, q); return err }); err != nil {
			t.Fatalf("setup %s: %v", clip(q), err)
		}
	}
	for _, a := range sc.assertions {
		checkAssertion(t, conn, a)
	}
	if sc.then != nil {
		sc.then(t, conn)
	}
}

// checkAssertion runs one assertion's statement on conn and compares its answer.
func checkAssertion(t *testing.T, conn *sql.Conn, a assertion) {
	t.Helper()
	var cols []string
	var got [][]string
	err := withBound(func(ctx context.Context) error {
		var err error
		cols, got, err = queryRows(ctx, conn, a.query, a.args...)
		return err
	})
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%s: no answer within %v", clip(a.query), statementBound)
	}
	if m := mismatch(a, cols, got, err); m != "" {
		t.Errorf("%s: %s", clip(a.query), m)
	}
}

// mismatch says how an answer (its columns, rows and error) differs from the assertion's, or
// is empty when it does not.
func mismatch(a assertion, cols []string, got [][]string, err error) string {
	if a.fails && a.err == 0 {
		if err == nil {
			return "succeeded, want an error"
		}
		return ""
	}
	if a.err != 0 {
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			return fmt.Sprintf("%v, want error %d", err, a.err)
		}
		state := string(me.SQLState[:])
		if me.Number != a.err || (a.state != "" && state != a.state) ||
			(a.message != "" && !messageMatches(a.message, me.Message)) || (a.maxMessage != 0 && len(me.Message) > a.maxMessage) {
			return fmt.Sprintf("error %d (%s) %q (%d bytes), want %d (%s) %q (at most %d bytes)",
				me.Number, state, clip(me.Message), len(me.Message), a.err, a.state, a.message, a.maxMessage)
		}
		return ""
	}
	if err != nil {
		return err.Error()
	}
	if a.columns != nil && !slices.Equal(cols, a.columns) {
		return fmt.Sprintf("columns %q, want %q", cols, a.columns)
	}
	if a.contains != "" {
		if !slices.ContainsFunc(got, func(r []string) bool { return strings.Contains(strings.Join(r, "\t"), a.contains) }) {
			return fmt.Sprintf("no row holds %q:\n%s", a.contains, showRows(got))
		}
		return ""
	}
	if !slices.EqualFunc(got, a.rows, slices.Equal[[]string]) {
		return fmt.Sprintf("\ngot  %s\nwant %s", showRows(got), showRows(a.rows))
	}
	return ""
}

// messageMatches tells whether message matches pattern, whose * stand for any text (none:
// equal).
func messageMatches(pattern, message string) bool {
	parts := strings.Split(pattern, "*")
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(quoted, ".*") + `\z`).MatchString(message)
}

// queryRows runs query and returns its columns and rows, a NULL as sqlNull.
func queryRows(ctx context.Context, conn *sql.Conn, query string, args ...any) ([]string, [][]string, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
			if !v.Valid {
				row[i] = sqlNull
			}
		}
		out = append(out, row)
	}
	return cols, out, rows.Err()
}

// withBound runs f with a context that ends after statementBound.
func withBound(f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), statementBound)
	defer cancel()
	err := f(ctx)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w (%v)", context.DeadlineExceeded, err)
	}
	return err
}

// showRows prints rows one a line, each field quoted, NULL as NULL.
func showRows(rows [][]string) string {
	if len(rows) == 0 {
		return "(no rows)"
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		fields := make([]string, len(r))
		for j, f := range r {
			fields[j] = fmt.Sprintf("%q", clip(f))
			if f == sqlNull {
				fields[j] = "NULL"
			}
		}
		lines[i] = "[" + strings.Join(fields, " ") + "]"
	}
	return strings.Join(lines, "\n     ")
}

// clip shortens a long statement or value for a message.
func clip(s string) string {
	if len(s) <= 160 {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:160], len(s))
}

// mainTables lists the tables and views of main.
func mainTables(t *testing.T, admin *sql.DB) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, n := range queryStrings(t, admin, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'") {
		names[n] = true
	}
	return names
}

// dropNewTables drops the views and tables of main that are not in before.
func dropNewTables(t *testing.T, admin *sql.DB, before map[string]bool) {
	t.Helper()
	conn, err := admin.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "SET foreign_key_checks = 0")
	for _, kind := range []string{"VIEW", "BASE TABLE"} {
		for _, n := range queryStrings(t, conn, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = ?", kind) {
			if before[n] {
				continue
			}
			what := "TABLE"
			if kind == "VIEW" {
				what = "VIEW"
			}
			mustExec(t, conn, "DROP "+what+" main.`"+n+"`")
		}
	}
}

// scriptServer is the server the script tests share.
type scriptServer struct {
	proc      *serverproc.Process
	addr      string
	adminAddr string
	log       *syncbuf.Buffer
	dir       string
}

var shared struct {
	once sync.Once
	s    *scriptServer
	err  error
}

// sharedServer returns the shared server, starting it on first use, with the accounts of
// appUsers and the default settings.
func sharedServer(t *testing.T) *scriptServer {
	t.Helper()
	shared.once.Do(func() { shared.s, shared.err = startScriptServer() })
	if shared.err != nil {
		t.Fatalf("the shared server: %v", shared.err)
	}
	select {
	case <-shared.s.proc.Exited():
		t.Fatalf("the shared server has exited (%v); an earlier script ended it", shared.s.proc.ExitErr())
	default:
	}
	return shared.s
}

func startScriptServer() (*scriptServer, error) {
	dir, err := os.MkdirTemp("", "overloadsql-scripts-")
	if err != nil {
		return nil, err
	}
	path, addr, admin, err := serverproc.WriteConfig(dir, "", appUsers)
	if err != nil {
		return nil, err
	}
	s := &scriptServer{addr: addr, adminAddr: admin, log: &syncbuf.Buffer{}, dir: dir}
	s.proc, err = serverproc.Start(serverproc.Options{Binary: binary, ConfigPath: path, Log: s.log})
	if err != nil {
		return nil, err
	}
	err = s.proc.WaitReady(context.Background(), 60*time.Second, func() error {
		db, err := openPool("default", "", admin)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.Ping()
	})
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%w\n%s", err, s.log.String())
	}
	return s, nil
}

// stopSharedServer stops the shared server if it was started, and reports a data race it
// logged (OVERLOADSQL_RACE=1).
func stopSharedServer() error {
	if shared.s == nil {
		return nil
	}
	shared.s.stop()
	if strings.Contains(shared.s.log.String(), "WARNING: DATA RACE") {
		return fmt.Errorf("the shared server reported a data race (OVERLOADSQL_RACE=1):\n%s", shared.s.log.String())
	}
	return nil
}

func (s *scriptServer) stop() {
	s.proc.Stop(15 * time.Second)
	os.RemoveAll(s.dir)
}

// pool opens a connection pool to the main listener for user, closed with the test.
func (s *scriptServer) pool(t *testing.T, user, password string) *sql.DB {
	t.Helper()
	return s.poolOn(t, s.addr, user, password)
}

// poolOn opens a connection pool to addr for user, closed with the test.
func (s *scriptServer) poolOn(t *testing.T, addr, user, password string) *sql.DB {
	t.Helper()
	db, err := openPool(user, password, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openPool is a pool of real MySQL connections to addr, configured as testServer.open's.
func openPool(user, password, addr string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, password, "tcp", addr
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, 60*time.Second, 10*time.Second
	cfg.AllowNativePasswords = true
	cfg.InterpolateParams = false
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

// whereCase is a WHERE condition and the ids of the rows it selects, in order.
type whereCase struct {
	where string
	want  []string
}

// whereIDs returns, for each case and each table, the assertion that SELECT id FROM table
// WHERE where ORDER BY id returns the case's ids.
func whereIDs(cases []whereCase, tables ...string) []assertion {
	var out []assertion
	for _, c := range cases {
		for _, table := range tables {
			out = append(out, assertion{query: "SELECT id FROM " + table + " WHERE " + c.where + " ORDER BY id", rows: column(c.want...)})
		}
	}
	return out
}

// indexedAndPlain returns the statements that create two tables of the same columns and rows,
// indexed with keys (", KEY (a), ...") and without them, so that a query gives its answer by
// both paths.
func indexedAndPlain(indexed, plain, columns, keys, rows string) []string {
	var out []string
	for _, table := range []struct{ name, keys string }{{indexed, keys}, {plain, ""}} {
		out = append(out, "CREATE TABLE "+table.name+" ("+columns+table.keys+")", "INSERT INTO "+table.name+" VALUES "+rows)
	}
	return out
}

// concat joins lists of setup statements or assertions.
func concat[T any](lists ...[]T) []T {
	var out []T
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
