package server

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/server/config"
	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/vitess/go/mysql"
)

// sqlErrorNum is the MySQL error number of err, 0 for nil, -1 for another error.
func sqlErrorNum(err error) int {
	if err == nil {
		return 0
	}
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return se.Num
	}
	return -1
}

// secureFixture builds root/files (the secure directory) with a file, a subdirectory, a link to
// a file outside, a link to a directory outside, and a secret beside it.
func secureFixture(t *testing.T) (root, files string) {
	t.Helper()
	root = t.TempDir()
	files = filepath.Join(root, "files")
	for _, d := range []string{files, filepath.Join(files, "sub"), filepath.Join(root, "other")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(files, "in.txt"), filepath.Join(files, "sub", "deep.txt"), filepath.Join(root, "secret.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(files, "link.txt"):    filepath.Join(root, "secret.txt"),
		filepath.Join(files, "outdir"):      filepath.Join(root, "other"),
		filepath.Join(files, "inlink.txt"):  filepath.Join(files, "in.txt"),
		filepath.Join(files, "dangling"):    filepath.Join(root, "nowhere"),
		filepath.Join(root, "alias-of-dir"): files,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, files
}

func TestSecureFilesReadable(t *testing.T) {
	root, files := secureFixture(t)
	f := secureFiles{dir: files}
	tests := []struct {
		path string
		want int // MySQL error number, 0 = allowed
	}{
		{filepath.Join(files, "in.txt"), 0},
		{filepath.Join(files, "sub", "deep.txt"), 0},
		{filepath.Join(files, "inlink.txt"), 0},
		{filepath.Join(root, "alias-of-dir", "in.txt"), 0},
		{filepath.Join(files, "missing.txt"), mysql.ERTextFileNotReadable},
		{filepath.Join(files, "link.txt"), mysql.EROptionPreventsStatement},
		{filepath.Join(files, "outdir", "x"), mysql.EROptionPreventsStatement},
		{filepath.Join(files, "..", "secret.txt"), mysql.EROptionPreventsStatement},
		{filepath.Join(root, "secret.txt"), mysql.EROptionPreventsStatement},
		{"/etc/hostname", mysql.EROptionPreventsStatement},
		{"in.txt", mysql.EROptionPreventsStatement},
		{filepath.Join(root, "nowhere"), mysql.EROptionPreventsStatement},
	}
	for _, tt := range tests {
		if _, err := f.readable(tt.path); sqlErrorNum(err) != tt.want {
			t.Errorf("readable(%s) = %v, want error %d", tt.path, err, tt.want)
		}
	}
}

func TestSecureFilesWritable(t *testing.T) {
	root, files := secureFixture(t)
	f := secureFiles{dir: files}
	tests := []struct {
		path string
		want int
	}{
		{filepath.Join(files, "new.txt"), 0},
		{filepath.Join(files, "sub", "new.txt"), 0},
		{filepath.Join(root, "alias-of-dir", "new.txt"), 0},
		{filepath.Join(files, "in.txt"), mysql.ERFileExists},
		{filepath.Join(files, "dangling"), mysql.ERFileExists},
		{filepath.Join(files, "outdir", "new.txt"), mysql.EROptionPreventsStatement},
		{filepath.Join(files, "..", "persisted_settings.toml"), mysql.EROptionPreventsStatement},
		{filepath.Join(root, "persisted_settings.toml"), mysql.EROptionPreventsStatement},
		{filepath.Join(files, "nodir", "new.txt"), mysql.ERTextFileNotReadable},
		{"new.txt", mysql.EROptionPreventsStatement},
	}
	for _, tt := range tests {
		if _, err := f.writable(tt.path); sqlErrorNum(err) != tt.want {
			t.Errorf("writable(%s) = %v, want error %d", tt.path, err, tt.want)
		}
	}
}

func TestSecureFilesMissingDirectory(t *testing.T) {
	f := secureFiles{dir: filepath.Join(t.TempDir(), "gone")}
	if _, err := f.readable("/etc/hostname"); sqlErrorNum(err) != mysql.EROptionPreventsStatement {
		t.Errorf("readable with a missing secure_file_priv = %v, want 1290", err)
	}
}

func TestSetsGlobal(t *testing.T) {
	set := func(scope sql.MysqlSVScopeType) sql.Expression {
		return expression.NewSetField(expression.NewSystemVar("sql_mode", sql.GetMysqlScope(scope), ""), expression.NewLiteral("", nil))
	}
	tests := []struct {
		name string
		e    sql.Expression
		want bool
	}{
		{"session", set(sql.SystemVariableScope_Session), false},
		{"global", set(sql.SystemVariableScope_Global), true},
		{"persist", set(sql.SystemVariableScope_Persist), true},
		{"persist only", set(sql.SystemVariableScope_PersistOnly), true},
		{"both (a global-only variable named without GLOBAL resolves to it)", set(sql.SystemVariableScope_Both), true},
		{"user variable", expression.NewSetField(expression.NewUserVar("a"), expression.NewLiteral(1, nil)), false},
	}
	for _, tt := range tests {
		if _, got := setsGlobal(tt.e); got != tt.want {
			t.Errorf("%s: setsGlobal = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestHintedUnderConstraints(t *testing.T) {
	two, ten := 2.0, 10.0
	constraints := map[string]config.Constraint{
		maxThrowSetting: {Readonly: true},
		minThrowSetting: {Min: &two, Max: &ten},
	}
	tests := []struct {
		name        string
		query       string
		constraints map[string]config.Constraint
		lo, hi      float64
		ignored     int
	}{
		{"admin: hints apply", "SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 0) SET_VAR(min_os_cpu_wait_time_ratio_to_throw = 1) */ 1", nil, 1, 0, 0},
		{"readonly: ignored", "SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 0) */ 1", constraints, 3, 5, 1},
		{"below min: ignored", "SELECT /*+ SET_VAR(min_os_cpu_wait_time_ratio_to_throw = 1) */ 1", constraints, 3, 5, 1},
		{"within range: applies", "SELECT /*+ SET_VAR(min_os_cpu_wait_time_ratio_to_throw = 4) */ 1", constraints, 4, 5, 0},
		{"other variables: not ours", "SELECT /*+ SET_VAR(sort_buffer_size = 1) */ 1", constraints, 3, 5, 0},
		{"malformed: ignored without a constraint warning", "SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = x) */ 1", constraints, 3, 5, 0},
	}
	for _, tt := range tests {
		lo, hi := hinted(summaryOf(tt.query).Hints(), 3, 5, tt.constraints)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("%s: hinted = %v, %v, want %v, %v", tt.name, lo, hi, tt.lo, tt.hi)
		}
		ignored := 0
		for _, h := range statement.Hints(tt.query) {
			if ignoredHint(tt.constraints, h) != nil {
				ignored++
			}
		}
		if ignored != tt.ignored {
			t.Errorf("%s: %d hints ignored for a constraint, want %d", tt.name, ignored, tt.ignored)
		}
	}
}

func TestMySQLErrorNumbers(t *testing.T) {
	unknown := func(msg string) error {
		return mysqlerr.New(mysql.ERUnknownError, "%s", msg)
	}
	tests := []struct {
		err  error
		want int
	}{
		{unknown("Access denied for user 'app'@'%' to database 'mysql'"), mysql.ERDBAccessDenied},
		{unknown("Access denied for user 'app'@'%' to table 'user'"), mysqlerr.ERTableAccessDenied},
		{unknown("command denied to user 'app'@'%'"), mysql.ERSpecifiedAccessDenied},
		{unknown("Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL"), mysql.ERGlobalVariable},
		{unknown("table not found: t"), mysql.ERNoSuchTable},
		{unknown("something else"), mysql.ERUnknownError},
		{mysqlerr.New(mysql.ERDupEntry, "Access denied for user x to database y"), mysql.ERDupEntry},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := sqlErrorNum(errorOrNil(mysqlerr.ForClient(tt.err))); got != tt.want {
			t.Errorf("mysqlerr.ForClient(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
	for _, e := range []error{
		mysqlerr.ForClient(unknown("Access denied for user 'app'@'%' to database 'mysql'")),
		mysqlPrivilegeError(sql.ErrDatabaseAccessDeniedForUser.New("'app'@'%'", "mysql")),
		mysqlPrivilegeError(sql.ErrTableAccessDeniedForUser.New("'app'@'%'", "user")),
		mysqlPrivilegeError(sql.ErrPrivilegeCheckFailed.New("'app'@'%'")),
	} {
		var se *mysql.SQLError
		if !errors.As(e, &se) || se.State != "42000" {
			t.Errorf("%v: SQLSTATE is not 42000", e)
		}
	}
}

func TestPanicBecomesTheStatementsError(t *testing.T) {
	var log bytes.Buffer
	i := &interceptor{s: &Server{logger: slog.New(slog.NewTextHandler(&log, nil))}}
	c := &mysql.Conn{ConnectionID: 7, User: "default"}
	err := func() (err error) {
		defer i.recovered(c, &err)
		var m map[string]int
		//lint:ignore SA5000 the panic is the point: a nil-map write, as the engine's user statements did
		m["x"] = 1
		return nil
	}()
	if sqlErrorNum(err) != mysql.ERUnknownError {
		t.Fatalf("err = %v, want 1105", err)
	}
	if n := strings.Count(log.String(), "statement panicked"); n != 1 || !strings.Contains(log.String(), "privileges_test.go") {
		t.Errorf("log = %q, want one line with the stack", log.String())
	}
}

func TestQueueMaxWaitHintUnderConstraints(t *testing.T) {
	const q = "SELECT /*+ SET_VAR(queue_max_wait_ms = 500) */ 1"
	readonly := map[string]config.Constraint{config.QueueMaxWaitSetting: {Readonly: true}}
	c := &mysql.Conn{}
	if got := queueMaxWait(c, summaryOf(q), nil); got != 500*time.Millisecond {
		t.Errorf("admin: queueMaxWait = %v, want 500ms", got)
	}
	if got := queueMaxWait(c, summaryOf(q), readonly); got == 500*time.Millisecond {
		t.Errorf("non-admin under readonly: the hint applied (%v)", got)
	}
}
