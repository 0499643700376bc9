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
	{"SET x = 1; SELECT * FROM t", "main", Class{}},
	{"USE main; DELETE FROM t", "main", Class{}},

	// System variables.
	{"SELECT @@x", "main", Class{true, "reads only system variables"}},
	{"SELECT @@session.x, @@global.y AS z", "main", Class{true, "reads only system variables"}},
	{"select @@max_os_cpu_wait_time_ratio_to_throw `m`, @@version;", "main", Class{true, "reads only system variables"}},
	{"SELECT @x", "main", Class{}},
	{"SELECT @@x + 1", "main", Class{}},
	{"SELECT @@x, NOW()", "main", Class{}},
	{"SELECT @@x FROM t", "main", Class{}},
	{"SELECT @@x FROM system.events", "main", Class{true, "reads only system tables"}},

	// Only system tables.
	{"SELECT 1 FROM system.warnings", "main", Class{true, "reads only system tables"}},
	{"select * from SYSTEM.events", "main", Class{true, "reads only system tables"}},
	{"SELECT * FROM `system`.warnings", "main", Class{true, "reads only system tables"}},
	{"SELECT * FROM `System`.`warnings` AS w", "main", Class{true, "reads only system tables"}},
	{"SELECT * FROM information_schema.processlist", "main", Class{true, "reads only system tables"}},
	{"SELECT * FROM INFORMATION_SCHEMA.TABLES t, system.events", "main", Class{true, "reads only system tables"}},
	{"  \n/* check */ SeLeCt /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 0) */ * FROM system.events;",
		"main", Class{true, "reads only system tables"}},
	{"SELECT * FROM warnings", "system", Class{true, "reads only system tables"}},
	{"SELECT * FROM warnings", "SYSTEM", Class{true, "reads only system tables"}},
	{"SELECT * FROM warnings", "main", Class{}},
	{"SELECT * FROM tables", "information_schema", Class{true, "reads only system tables"}},
	{"select e.event from system.events e join system.metrics m on e.event = m.metric", "main",
		Class{true, "reads only system tables"}},
	{"select * from system.events where value > (select max(value) from system.metrics)", "main",
		Class{true, "reads only system tables"}},
	{"select * from (select * from system.events) d", "main", Class{true, "reads only system tables"}},
	{"select * from (system.events, system.metrics)", "main", Class{true, "reads only system tables"}},
	{"select * from system.events union select * from information_schema.tables", "main",
		Class{true, "reads only system tables"}},
	{"select event, count(*) from system.events group by event, value order by 1, 2 limit 1, 2", "main",
		Class{true, "reads only system tables"}},
	{"select * from system.events use index (a, b) where 1", "main", Class{true, "reads only system tables"}},
	{"select system.warnings.message from system.warnings", "main", Class{true, "reads only system tables"}},

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

func TestClassify(t *testing.T) {
	for _, tc := range classifyCases {
		if got := Classify(tc.sql, tc.currentDB); got != tc.want {
			t.Errorf("Classify(%q, %q) = %+v, want %+v", tc.sql, tc.currentDB, got, tc.want)
		}
	}
}

func TestClassifyDoesNotAllocate(t *testing.T) {
	for _, tc := range classifyCases {
		if n := testing.AllocsPerRun(10, func() { Classify(tc.sql, tc.currentDB) }); n != 0 {
			t.Errorf("Classify(%q) allocates %v times", tc.sql, n)
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
		if got := IsSystemReloadConfig(tc.sql); got != tc.want {
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
		if got := IsTruncateWarnings(q, "main"); got != want {
			t.Errorf("IsTruncateWarnings(%q, main) = %v, want %v", q, got, want)
		}
	}
	if !IsTruncateWarnings("TRUNCATE warnings", "system") {
		t.Error("TRUNCATE warnings after USE system is not recognised")
	}
}
