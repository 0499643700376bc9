package statement

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// parserCheck says what the real parser must do with a case's input and output.
type parserCheck int

const (
	notChecked   parserCheck = iota // the parser is not the judge (several statements, /*! */ content)
	rewriteFixes                    // the input fails to parse, the output parses
	parsesSame                      // both parse to the same tree
	failsBoth                       // both fail: a keyword use the rewrite must leave alone
)

var rewriteCases = []struct {
	name   string
	in     string
	want   string
	parser parserCheck
}{
	{"table in system", "SELECT * FROM system.warnings", "SELECT * FROM `system`.warnings", rewriteFixes},
	{"use", "USE system", "USE `system`", rewriteFixes},
	{"quoted name right after", "SELECT system`x` FROM main.system", "SELECT `system` `x` FROM main.`system`", rewriteFixes},
	{"quoted name right before", "SELECT `x`system FROM t", "SELECT `x` `system` FROM t", rewriteFixes},
	{"use with semicolon", "use system;", "use `system`;", rewriteFixes},
	{"show tables", "SHOW TABLES FROM system", "SHOW TABLES FROM `system`", rewriteFixes},
	{"show tables in", "show tables in system like 'w%'", "show tables in `system` like 'w%'", rewriteFixes},
	{"describe", "DESC system.x", "DESC `system`.x", rewriteFixes},
	{"describe long", "DESCRIBE system.warnings", "DESCRIBE `system`.warnings", rewriteFixes},
	{"qualified column", "SELECT system.warnings.message FROM system.warnings",
		"SELECT `system`.warnings.message FROM `system`.warnings", rewriteFixes},
	{"mixed case", "SELECT * FROM SyStEm.warnings", "SELECT * FROM `SyStEm`.warnings", rewriteFixes},
	{"upper case", "select * from SYSTEM.events", "select * from `SYSTEM`.events", rewriteFixes},
	{"string in where", "SELECT * FROM system.warnings WHERE message LIKE '%system%'",
		"SELECT * FROM `system`.warnings WHERE message LIKE '%system%'", rewriteFixes},
	{"join", "select * from t join system.events e on t.a = e.event",
		"select * from t join `system`.events e on t.a = e.event", rewriteFixes},
	{"comma list", "select * from system.events,system.metrics", "select * from `system`.events,`system`.metrics", rewriteFixes},
	{"spaces around dot", "select * from system . events", "select * from `system` . events", rewriteFixes},
	{"comment between", "select * from /* c */ system/* d */.events", "select * from /* c */ `system`/* d */.events", rewriteFixes},
	{"newline", "select *\nfrom\tsystem.events", "select *\nfrom\t`system`.events", rewriteFixes},
	{"subquery", "select * from t where a in (select value from system.events)",
		"select * from t where a in (select value from `system`.events)", rewriteFixes},
	{"count", "SELECT count(*) FROM system.events", "SELECT count(*) FROM `system`.events", rewriteFixes},
	{"alias", "select 1 as system", "select 1 as `system`", rewriteFixes},
	{"hint kept", "SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 1.5) */ * FROM system.events",
		"SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 1.5) */ * FROM `system`.events", rewriteFixes},
	{"two statements", "use system; select * from system.events", "use `system`; select * from `system`.events", notChecked},
	{"truncate", "TRUNCATE system.warnings", "TRUNCATE `system`.warnings", rewriteFixes},
	{"truncate table", "TRUNCATE TABLE system.warnings", "TRUNCATE TABLE `system`.warnings", rewriteFixes},
	{"create user host", "create user 'u'@system", "create user 'u'@`system`", rewriteFixes},
	{"cte name", "with system as (select 1) select * from system", "with `system` as (select 1) select * from `system`", rewriteFixes},

	// Already identifiers: the parser reads them as names, backquotes change nothing.
	{"column after dot", "select a.system from t", "select a.`system` from t", parsesSame},
	{"qualifier of column", "select system.x from t", "select `system`.x from t", parsesSame},
	{"middle of three parts", "select t.system.x from t", "select t.`system`.x from t", parsesSame},

	// Left untouched.
	{"single-quoted string", "SELECT 'system.x'", "SELECT 'system.x'", parsesSame},
	{"double-quoted string", `SELECT "system"`, `SELECT "system"`, parsesSame},
	{"escaped quote", `SELECT 'it\'s system'`, `SELECT 'it\'s system'`, parsesSame},
	{"doubled quote", `SELECT 'it''s system' FROM t`, `SELECT 'it''s system' FROM t`, parsesSame},
	{"escaped backslash then word", `SELECT 'a\\', system.x FROM t`, "SELECT 'a\\\\', `system`.x FROM t", parsesSame},
	{"backquoted", "SELECT * FROM `system`.warnings", "SELECT * FROM `system`.warnings", parsesSame},
	{"backquoted longer", "SELECT `system_x` FROM t", "SELECT `system_x` FROM t", parsesSame},
	{"backquoted with doubled backquote", "SELECT `a``system` FROM t", "SELECT `a``system` FROM t", parsesSame},
	{"block comment", "SELECT /* system */ 1", "SELECT /* system */ 1", parsesSame},
	{"dash comment", "SELECT 1 -- system\n", "SELECT 1 -- system\n", parsesSame},
	{"dash comment at end", "SELECT 1 -- system", "SELECT 1 -- system", parsesSame},
	{"hash comment", "SELECT 1 # system", "SELECT 1 # system", parsesSame},
	{"slash comment", "SELECT 1 // system", "SELECT 1 // system", parsesSame},
	{"hint", "SELECT /*+ system */ 1", "SELECT /*+ system */ 1", parsesSame},
	{"version comment", "SELECT 1 /*! system */", "SELECT 1 /*! system */", notChecked},
	{"system_time keyword", "SELECT system_time FROM t", "SELECT system_time FROM t", failsBoth},
	{"system_time in name", "SELECT system_times FROM system_time_log", "SELECT system_times FROM system_time_log", parsesSame},
	{"plural", "SELECT SYSTEMS FROM t", "SELECT SYSTEMS FROM t", parsesSame},
	{"prefix", "SELECT mysystem FROM t", "SELECT mysystem FROM t", parsesSame},
	{"digits", "SELECT system2 FROM t", "SELECT system2 FROM t", parsesSame},
	{"number-led identifier", "SELECT 1e+system", "SELECT 1e+system", parsesSame},
	{"system variable", "SELECT @@system", "SELECT @@system", parsesSame},
	{"qualified system variable", "SELECT @@session.system", "SELECT @@session.system", parsesSame},
	{"user variable", "SELECT @system", "SELECT @system", parsesSame},
	{"bind variable", "SELECT :system", "SELECT :system", parsesSame},
	{"for system_time", "SELECT * FROM t FOR SYSTEM_TIME AS OF '2020-01-01'", "SELECT * FROM t FOR SYSTEM_TIME AS OF '2020-01-01'", parsesSame},
	{"spatial reference system", "CREATE SPATIAL REFERENCE SYSTEM 4326 NAME 'WGS 84' DEFINITION 'GEOGCS[]'",
		"CREATE SPATIAL REFERENCE SYSTEM 4326 NAME 'WGS 84' DEFINITION 'GEOGCS[]'", parsesSame},
	{"spatial reference system or replace", "create or replace spatial reference system 1 name 'x'",
		"create or replace spatial reference system 1 name 'x'", parsesSame},
	{"with system versioning", "CREATE TABLE t (a int) WITH SYSTEM VERSIONING", "CREATE TABLE t (a int) WITH SYSTEM VERSIONING", parsesSame},
	{"with comment system versioning", "CREATE TABLE t (a int) WITH /* x */ system /* y */ versioning",
		"CREATE TABLE t (a int) WITH /* x */ system /* y */ versioning", parsesSame},
	{"system reload config", "SYSTEM RELOAD CONFIG", "SYSTEM RELOAD CONFIG", failsBoth},
	{"system reload config after comment", "/* c */ system reload config;", "/* c */ system reload config;", failsBoth},
	{"no system at all", "SELECT 1", "SELECT 1", parsesSame},
}

func TestRewriteSystem(t *testing.T) {
	for _, tc := range rewriteCases {
		t.Run(tc.name, func(t *testing.T) {
			got := RewriteSystem(tc.in)
			if got != tc.want {
				t.Fatalf("RewriteSystem(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if got == tc.in && unsafe.StringData(got) != unsafe.StringData(tc.in) {
				t.Errorf("unchanged text was copied")
			}
			before, errBefore := parse(tc.in)
			after, errAfter := parse(got)
			switch tc.parser {
			case rewriteFixes:
				if errBefore == nil {
					t.Errorf("input parses already (%s); the case does not show a fix", before)
				}
				if errAfter != nil {
					t.Errorf("rewritten text does not parse: %v", errAfter)
				}
			case parsesSame:
				if errBefore != nil || errAfter != nil {
					t.Fatalf("parse errors: before %v, after %v", errBefore, errAfter)
				}
				if before != after {
					t.Errorf("tree changed:\nbefore %s\n after %s", before, after)
				}
			case failsBoth:
				if errBefore == nil || errAfter == nil {
					t.Errorf("expected both to fail: before %v, after %v", errBefore, errAfter)
				}
			}
		})
	}
}

// parse parses sql with the engine's parser and prints the tree. Printing some trees panics in
// the parser package (CREATE SPATIAL REFERENCE SYSTEM); the panic text then stands for the tree.
func parse(sql string) (tree string, err error) {
	defer func() {
		if r := recover(); r != nil {
			tree = fmt.Sprintf("panic: %v", r)
		}
	}()
	st, err := sqlparser.Parse(sql)
	if err != nil {
		return "", err
	}
	return sqlparser.String(st), nil
}

func TestPlainMariaDBComments(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`/*M!999999\- enable the sandbox mode */`, `/*M 999999\- enable the sandbox mode */`},
		{"/*M!100100 SET x = 1 */ SELECT 1", "/*M 100100 SET x = 1 */ SELECT 1"},
		{"SELECT '/*M!1*/', `/*M!2*/` /*!40101 x */", "SELECT '/*M!1*/', `/*M!2*/` /*!40101 x */"},
		{"SELECT 1 -- /*M! x */", "SELECT 1 -- /*M! x */"},
		{"SELECT 1", "SELECT 1"},
	} {
		if got := PlainMariaDBComments(c.in); got != c.want {
			t.Errorf("PlainMariaDBComments(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, q := range []string{`/*M!999999\- enable the sandbox mode */`, "/*M!100100 enable */ SELECT 1"} {
		if _, err := sqlparser.Parse(PlainMariaDBComments(q)); err != nil && err != sqlparser.ErrEmpty {
			t.Errorf("%q does not parse once plain: %v", q, err)
		}
	}
}
