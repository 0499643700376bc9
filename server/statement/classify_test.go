package statement

import "testing"

var classifyCases = []struct {
	sql       string
	currentDB string
	want      Class
}{
	// First keyword exempt.
	{"SET max_os_cpu_wait_time_ratio_to_throw = 0", "main", Class{true, "SET"}},
	{"set @@max_os_cpu_wait_time_ratio_to_throw=1", "main", Class{true, "SET"}},
	{"SET GLOBAL max_connections = 10;", "main", Class{true, "SET"}},
	{"  /* c */ show processlist", "main", Class{true, "SHOW"}},
	{"SHOW TABLES FROM system", "main", Class{true, "SHOW"}},
	{"sHoW variables like 'max%'", "main", Class{true, "SHOW"}},
	{"KILL 5", "main", Class{true, "KILL"}},
	{"kill query 5;", "main", Class{true, "KILL"}},
	{"USE main", "main", Class{true, "USE"}},
	{"use `system`", "main", Class{true, "USE"}},
	{"COMMIT", "main", Class{true, "COMMIT"}},
	{"ROLLBACK", "main", Class{true, "ROLLBACK"}},
	{"-- why\n\t# more\nrollback;", "main", Class{true, "ROLLBACK"}},
	{"SYSTEM RELOAD CONFIG", "main", Class{true, "SYSTEM RELOAD CONFIG"}},
	{"system /* now */ reload\nconfig ;", "main", Class{true, "SYSTEM RELOAD CONFIG"}},
	{"TRUNCATE system.warnings", "main", Class{true, "TRUNCATE system.warnings"}},
	{"truncate table `system`.`warnings`;", "main", Class{true, "TRUNCATE system.warnings"}},
	{"TRUNCATE warnings", "system", Class{true, "TRUNCATE system.warnings"}},

	// Exempt first keyword hiding real work.
	{"SET @a = (SELECT COUNT(*) FROM t)", "main", Class{}},
	{"SHOW TABLES WHERE Tables_in_main IN (SELECT name FROM t)", "main", Class{}},
	{"SET /*!40101 @a = (SELECT 1) */", "main", Class{}},
	{"SET /*!40101 NAMES utf8 */", "main", Class{true, "SET"}},
	{"SET /*!40101 /*!40101 NAMES utf8 */", "main", Class{}},
	{"SET x = 1; SELECT * FROM t", "main", Class{}},
	{"SET @a = (TABLE t)", "main", Class{}},
	{"SET @a = ( /* c */ table t)", "main", Class{}},
	{"SET @a = 1 IN (SELECT 1 UNION TABLE t)", "main", Class{}},
	{"SET @a = (WITH c AS (SELECT 1) SELECT * FROM c)", "main", Class{}},
	{"SET @a = 1 IN (VALUES ROW(1))", "main", Class{}},
	{"SET @s = SLEEP(1)", "main", Class{}},
	{"SET @b = REPEAT('x', 1e8)", "main", Class{}},
	{"SET @a = REGEXP_LIKE(REPEAT('a', 34), '(a+)+b')", "main", Class{}},
	{"SET @a = 'aaa' REGEXP '(a+)+b'", "main", Class{}},
	{"SET @a = BENCHMARK(1000000, 1)", "main", Class{}},
	{"SET @a = GET_LOCK('x', 100)", "main", Class{}},
	{"SET @a = main.f()", "main", Class{}},
	{"SET /*!40101 @a = SLEEP(1) */", "main", Class{}},
	{"SET @a = (1", "main", Class{}},
	{"SET @a = CAST(NOW() AS CHAR(20)), @b = IFNULL(@@x, DEFAULT(y))", "main", Class{true, "SET"}},
	{"SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci", "main", Class{true, "SET"}},
	{"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "main", Class{true, "SET"}},
	{"SHOW TABLES WHERE SLEEP(1) = 1", "main", Class{}},
	{"SHOW VARIABLES WHERE Variable_name REGEXP 'x'", "main", Class{}},
	{"SHOW VARIABLES WHERE Variable_name IN ('a', 'b') OR (Value = 1)", "main", Class{true, "SHOW"}},
	{"SHOW CREATE TABLE t", "main", Class{true, "SHOW"}},
	{"SHOW TABLE STATUS", "main", Class{true, "SHOW"}},
	{"SHOW STATUS LIKE 'Ssl_cipher'", "main", Class{true, "SHOW"}},
	{"USE main; DELETE FROM t", "main", Class{}},

	// System variables.
	{"SELECT @@x", "main", Class{true, "reads only system variables"}},
	{"SELECT @@session.x, @@global.y AS z", "main", Class{true, "reads only system variables"}},
	{"select @@max_os_cpu_wait_time_ratio_to_throw `m`, @@version;", "main", Class{true, "reads only system variables"}},
	{"SELECT @x", "main", Class{}},
	{"SELECT @@x + 1", "main", Class{}},
	{"SELECT @@x, NOW()", "main", Class{}},
	{"SELECT @@x, DATABASE()", "main", Class{true, "reads only session state"}},
	{"SELECT @@x FROM t", "main", Class{}},
	{"SELECT @@x FROM system.events", "main", Class{true, "reads only system tables"}},

	// Only system tables.
	{"SELECT 1 FROM system.warnings", "main", Class{true, "reads only system tables"}},
	{"select * from SYSTEM.events", "main", Class{true, "reads only system tables"}},
	{"SELECT * FROM `system`.warnings", "main", Class{true, "reads only system tables"}},
	{"SELECT * FROM `System`.`warnings` AS w", "main", Class{true, "reads only system tables"}},
	{"SELECT * FROM information_schema.processlist", "main", Class{true, "reads only system tables"}},
	{"  \n/* check */ SeLeCt /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 0) */ * FROM system.events;",
		"main", Class{true, "reads only system tables"}},
	{"SELECT * FROM warnings", "system", Class{true, "reads only system tables"}},
	{"SELECT * FROM warnings", "SYSTEM", Class{true, "reads only system tables"}},
	{"SELECT * FROM warnings", "main", Class{}},
	{"SELECT * FROM tables", "information_schema", Class{true, "reads only system tables"}},
	{"select event, count(*) from system.events group by event, value order by 1, 2 limit 1, 2", "main",
		Class{true, "reads only system tables"}},
	{"select * from system.events use index (a, b) where 1", "main", Class{true, "reads only system tables"}},
	{"select system.warnings.message from system.warnings", "main", Class{true, "reads only system tables"}},

	// Several system tables, a subquery or a derived table: not cheap by construction.
	{"SELECT * FROM INFORMATION_SCHEMA.TABLES t, system.events", "main", Class{}},
	{"select e.event from system.events e join system.metrics m on e.event = m.metric", "main", Class{}},
	{"select * from system.events where value > (select max(value) from system.metrics)", "main", Class{}},
	{"select * from (select * from system.events) d", "main", Class{}},
	{"select * from (system.events, system.metrics)", "main", Class{}},
	{"select * from system.events union select * from information_schema.tables", "main", Class{}},
	{"SELECT COUNT(*) FROM information_schema.collations a, information_schema.keywords b, system.metrics c", "main", Class{}},
	{"SELECT * FROM system.events STRAIGHT_JOIN system.metrics", "main", Class{}},
	{"SELECT * FROM system.events FROM system.metrics", "main", Class{}},
	{"SELECT COUNT(*) OVER () FROM system.events", "main", Class{}},

	// Cheap functions only.
	{"SELECT SLEEP(1) FROM system.metrics", "main", Class{}},
	{"SELECT sleep (1) FROM system.metrics", "main", Class{}},
	{"SELECT /* x */ BENCHMARK(1e9, 1) FROM system.metrics", "main", Class{}},
	{"SELECT * FROM system.metrics WHERE REGEXP_LIKE(metric, '(a+)+b')", "main", Class{}},
	{"SELECT * FROM system.metrics WHERE metric REGEXP '(a+)+b'", "main", Class{}},
	{"SELECT * FROM system.metrics WHERE metric rlike 'x'", "main", Class{}},
	{"SELECT REPEAT('x', 1e8) FROM system.metrics", "main", Class{}},
	{"SELECT LPAD('x', 1e8, 'y'), RPAD('', 9, 'z') FROM system.metrics", "main", Class{}},
	{"SELECT SPACE(1e8) FROM system.metrics", "main", Class{}},
	{"SELECT GET_LOCK('a', 10) FROM system.metrics", "main", Class{}},
	{"SELECT main.f(1) FROM system.metrics", "main", Class{}},
	{"SELECT `count`(1) FROM system.metrics", "main", Class{}},
	{"SELECT COUNT(*), MAX(value), LOWER(metric) FROM system.metrics WHERE metric LIKE 'Q%' AND value IN (1, 2)",
		"main", Class{true, "reads only system tables"}},
	{"SELECT CAST(value AS CHAR(10)) FROM system.metrics WHERE time > NOW() - INTERVAL 1 MINUTE",
		"main", Class{true, "reads only system tables"}},
	{"SELECT * FROM system.events e USE INDEX (a, b) WHERE (e.value > 1) ORDER BY 1 LIMIT 1, 2",
		"main", Class{true, "reads only system tables"}},

	// Session introspection without FROM (what a connection pool asks a new connection).
	{"SELECT DATABASE()", "main", Class{true, "reads only session state"}},
	{"select schema(), user(), current_user(), session_user(), system_user()", "main", Class{true, "reads only session state"}},
	{"SELECT VERSION() AS v, CONNECTION_ID() `id`, LAST_INSERT_ID(), FOUND_ROWS(), ROW_COUNT();", "main",
		Class{true, "reads only session state"}},
	{"SELECT DATABASE ( /* c */ )", "main", Class{true, "reads only session state"}},
	{"SELECT LAST_INSERT_ID(5)", "main", Class{}},
	{"SELECT DATABASE(), SLEEP(1)", "main", Class{}},
	{"SELECT DATABASE() FROM t", "main", Class{}},
	{"SELECT DATABASE", "main", Class{}},
	{"SELECT main.database()", "main", Class{}},
	{"SELECT DATABASE(); SELECT 1", "main", Class{}},

	// Reads a user table somewhere, or nothing at all.
	{"SELECT 1", "main", Class{}},
	{"SELECT NOW()", "main", Class{}},
	{"SELECT 1 FROM dual", "main", Class{}},
	{"SELECT * FROM t", "main", Class{}},
	{"SELECT * FROM main.t", "system", Class{}},
	{"SELECT * FROM system.events JOIN t ON 1", "main", Class{}},
	{"SELECT * FROM system.events, t", "main", Class{}},
	{"SELECT * FROM system.events e LEFT OUTER JOIN main.t ON t.a = e.event", "main", Class{}},
	{"SELECT * FROM system.events JOIN system.metrics ON 1, t", "main", Class{}},
	{"SELECT * FROM system.events WHERE value IN (SELECT a FROM t)", "main", Class{}},
	{"SELECT (SELECT COUNT(*) FROM t) FROM system.events", "main", Class{}},
	{"SELECT * FROM (SELECT * FROM t) d", "main", Class{}},
	{"SELECT * FROM system.events UNION SELECT * FROM t", "main", Class{}},
	{"SELECT * FROM (system.events, t)", "main", Class{}},
	{"SELECT * FROM system.events, LATERAL (SELECT * FROM t) x", "main", Class{}},
	{"SELECT * FROM system.events FOR UPDATE OF events, t", "main", Class{}},
	{"SELECT * FROM JSON_TABLE('[]', '$[*]' COLUMNS (a INT PATH '$')) j", "main", Class{}},
	{"SELECT * FROM system.x.y", "main", Class{}},
	{"SELECT * FROM system.events INTO OUTFILE '/tmp/x'", "main", Class{}},
	{"WITH c AS (SELECT * FROM system.events) SELECT * FROM c", "main", Class{}},
	{"SELECT * FROM system.events WHERE EXISTS (TABLE t)", "main", Class{}},
	{"SELECT * FROM system.events /*!, t */", "main", Class{}},
	{"SELECT * FROM system.events; SELECT * FROM t", "main", Class{}},
	{"SELECT * FROM system.events WHERE (1", "main", Class{}},
	{"SELECT * FROM system.events WHERE 1)", "main", Class{}},
	{"SELECT * FROM", "main", Class{}},
	{"SELECT * FROM 'system'.events", "main", Class{}},
	{"SELECT * FROM mysystem.events", "main", Class{}},

	// DESCRIBE and EXPLAIN.
	{"DESC system.warnings", "main", Class{true, "describes a system table"}},
	{"describe `system`.events event", "main", Class{true, "describes a system table"}},
	{"EXPLAIN information_schema.tables", "main", Class{true, "describes a system table"}},
	{"DESC warnings", "system", Class{true, "describes a system table"}},
	{"DESC t", "main", Class{}},
	{"EXPLAIN SELECT * FROM system.events", "main", Class{true, "reads only system tables"}},
	{"EXPLAIN FORMAT = TREE SELECT * FROM system.events", "main", Class{true, "reads only system tables"}},
	{"EXPLAIN SELECT * FROM t", "main", Class{}},
	{"EXPLAIN ANALYZE SELECT * FROM system.events, t", "main", Class{}},

	// Everything else is ordinary work.
	{"INSERT INTO t SELECT * FROM system.events", "main", Class{}},
	{"UPDATE t SET a = 1", "main", Class{}},
	{"DELETE FROM system.warnings", "main", Class{}},
	{"CREATE TABLE t (a INT)", "main", Class{}},
	{"TRUNCATE t", "main", Class{}},
	{"TRUNCATE system.events", "main", Class{}},
	{"SYSTEM RELOAD CONFIG; DROP TABLE t", "main", Class{}},
	{"SYSTEM FLUSH LOGS", "main", Class{}},
	{"/*!40101 SET NAMES utf8 */", "main", Class{}},
	{"(SELECT * FROM system.events)", "main", Class{}},
	{"BEGIN", "main", Class{}},
	{"settings", "main", Class{}},
	{"", "main", Class{}},
	{"   ", "main", Class{}},
	{"/* only a comment */", "main", Class{}},
}

// summarize is Summarize for the tests: a summary to call methods on.
func summarize(sql string) *Summary {
	s := Summarize(sql)
	return &s
}

func TestExempt(t *testing.T) {
	for _, tc := range classifyCases {
		if got := summarize(tc.sql).Exempt(tc.currentDB); got != tc.want {
			t.Errorf("Exempt(%q, %q) = %+v, want %+v", tc.sql, tc.currentDB, got, tc.want)
		}
	}
}

func TestSummaryDoesNotAllocate(t *testing.T) {
	for _, tc := range classifyCases {
		if n := testing.AllocsPerRun(10, func() {
			s := Summarize(tc.sql)
			s.Exempt(tc.currentDB)
			s.NamesThresholds()
		}); n != 0 {
			t.Errorf("Summarize(%q) and its questions allocate %v times", tc.sql, n)
		}
	}
}

func TestIsSystemReloadConfig(t *testing.T) {
	cases := []struct {
		sql  string
		want bool
	}{
		{"SYSTEM RELOAD CONFIG", true},
		{"system reload config;", true},
		{"  /* a */ SyStEm\n\tRELOAD -- b\n CONFIG ; # c", true},
		{"SYSTEM RELOAD CONFIG;;", false},
		{"SYSTEM RELOAD CONFIG; SELECT 1", false},
		{"SYSTEM RELOAD", false},
		{"SYSTEM RELOAD CONFIGS", false},
		{"SYSTEM RELOAD CONFIG x", false},
		{"`SYSTEM` RELOAD CONFIG", false},
		{"SYSTEM RELOAD CONFIG /*! , 1 */", false},
		{"SELECT 'SYSTEM RELOAD CONFIG'", false},
		{"", false},
	}
	for _, tc := range cases {
		if got := summarize(tc.sql).IsSystemReloadConfig(); got != tc.want {
			t.Errorf("IsSystemReloadConfig(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

func TestIsTruncateWarnings(t *testing.T) {
	for q, want := range map[string]bool{
		"TRUNCATE system.warnings":               true,
		"truncate table `system`.`warnings`;":    true,
		"  Truncate SYSTEM.WARNINGS":             true,
		"/* clean */ TRUNCATE system.warnings":   true,
		"TRUNCATE system.events":                 false,
		"TRUNCATE warnings":                      false,
		"SELECT 'TRUNCATE system.warnings'":      false,
		"TRUNCATE system.warnings; DROP TABLE t": false,
	} {
		if got := summarize(q).IsTruncateWarnings("main"); got != want {
			t.Errorf("IsTruncateWarnings(%q, main) = %v, want %v", q, got, want)
		}
	}
	if !summarize("TRUNCATE warnings").IsTruncateWarnings("system") {
		t.Error("TRUNCATE warnings after USE system is not recognised")
	}
}

func TestSystemBackup(t *testing.T) {
	cases := []struct {
		sql  string
		dir  string
		want bool
	}{
		{"SYSTEM BACKUP TO '/srv/b1'", "/srv/b1", true},
		{"system /* x */ backup\nto \"/srv/b 2\" ;", "/srv/b 2", true},
		{`SYSTEM BACKUP TO '/srv/it''s'`, "/srv/it's", true},
		{`SYSTEM BACKUP TO '/srv/a\\b\'c'`, `/srv/a\b'c`, true},
		{`SYSTEM BACKUP TO '/srv/50\%'`, `/srv/50\%`, true},
		{"SYSTEM BACKUP TO '/srv/b1'; DROP TABLE t", "", false},
		{"SYSTEM BACKUP TO x'2f'", "", false},
		{"SYSTEM BACKUP TO /srv/b1", "", false},
		{"SYSTEM BACKUP '/srv/b1'", "", false},
		{"SYSTEM BACKUP TO '/a' '/b'", "", false},
		{"SYSTEM RELOAD CONFIG", "", false},
		{"SELECT 'SYSTEM BACKUP TO ''/x'''", "", false},
	}
	for _, tc := range cases {
		s := summarize(tc.sql)
		dir, ok := s.SystemBackup()
		if ok != tc.want || dir != tc.dir {
			t.Errorf("SystemBackup(%q) = %q, %v, want %q, %v", tc.sql, dir, ok, tc.dir, tc.want)
		}
	}
}
