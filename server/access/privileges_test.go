package access

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"overloadsql/mysqlerr"
	"overloadsql/server/config"
	"overloadsql/server/statement"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/vitess/go/mysql"
)

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
	f := SecureFiles{Dir: files}
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
		if _, err := f.Readable(tt.path); mysqlerr.Number(err) != tt.want {
			t.Errorf("Readable(%s) = %v, want error %d", tt.path, err, tt.want)
		}
	}
}

func TestSecureFilesWritable(t *testing.T) {
	root, files := secureFixture(t)
	f := SecureFiles{Dir: files}
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
		if _, err := f.Writable(tt.path); mysqlerr.Number(err) != tt.want {
			t.Errorf("Writable(%s) = %v, want error %d", tt.path, err, tt.want)
		}
	}
}

func TestSecureFilesMissingDirectory(t *testing.T) {
	f := SecureFiles{Dir: filepath.Join(t.TempDir(), "gone")}
	if _, err := f.Readable("/etc/hostname"); mysqlerr.Number(err) != mysql.EROptionPreventsStatement {
		t.Errorf("Readable with a missing secure_file_priv = %v, want 1290", err)
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

func TestPrivilegeErrorNumbers(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{mysqlPrivilegeError(sql.ErrDatabaseAccessDeniedForUser.New("'app'@'%'", "mysql")), mysql.ERDBAccessDenied},
		{mysqlPrivilegeError(sql.ErrTableAccessDeniedForUser.New("'app'@'%'", "user")), mysqlerr.ERTableAccessDenied},
		{mysqlPrivilegeError(sql.ErrPrivilegeCheckFailed.New("'app'@'%'")), mysql.ERSpecifiedAccessDenied},
		{mysqlPrivilegeError(nil), 0},
	}
	for _, tt := range tests {
		if got := mysqlerr.Number(tt.err); got != tt.want {
			t.Errorf("mysqlPrivilegeError: %v = %d, want %d", tt.err, got, tt.want)
		}
		var se *mysql.SQLError
		if tt.err != nil && (!errors.As(tt.err, &se) || se.State != "42000") {
			t.Errorf("%v: SQLSTATE is not 42000", tt.err)
		}
	}
}

// An ignored hint is one whose value breaks the session setting's constraint.
func TestIgnoredHint(t *testing.T) {
	two, ten := 2.0, 10.0
	constraints := map[string]config.Constraint{
		"max_os_cpu_wait_time_ratio_to_throw": {Readonly: true},
		"min_os_cpu_wait_time_ratio_to_throw": {Min: &two, Max: &ten},
	}
	tests := []struct {
		hint    statement.Hint
		ignored bool
	}{
		{statement.Hint{Name: "max_os_cpu_wait_time_ratio_to_throw", Value: "0"}, true},
		{statement.Hint{Name: "min_os_cpu_wait_time_ratio_to_throw", Value: "1"}, true},
		{statement.Hint{Name: "min_os_cpu_wait_time_ratio_to_throw", Value: "4"}, false},
		{statement.Hint{Name: "sort_buffer_size", Value: "1"}, false},
		{statement.Hint{Name: "min_os_cpu_wait_time_ratio_to_throw", Value: "x"}, false},
	}
	for _, tt := range tests {
		if got := IgnoredHint(constraints, tt.hint) != nil; got != tt.ignored {
			t.Errorf("IgnoredHint(%v) ignored = %v, want %v", tt.hint, got, tt.ignored)
		}
		if got := IgnoredHint(nil, tt.hint); got != nil {
			t.Errorf("IgnoredHint(no constraints, %v) = %v, want nil", tt.hint, got)
		}
	}
}
