package integration

import (
	"context"
	"testing"
)

// TestExemptionsAreCheapByConstruction: under overload, only statements that cannot do heavy
// work are exempt. Each attack below got through as exempt before, and is now rejected like
// ordinary work, while what a connection pool asks a new connection is served.
func TestExemptionsAreCheapByConstruction(t *testing.T) {
	s := startServer(t, serverOptions{})
	mustExec(t, s.adminDB(), "SET GLOBAL simulated_os_cpu_overload = 7")
	c := session(t, s.db(), "SET min_os_cpu_wait_time_ratio_to_throw = 2", "SET max_os_cpu_wait_time_ratio_to_throw = 6")

	for _, q := range []string{
		"SELECT SLEEP(1) FROM system.metrics",
		"SELECT COUNT(*) FROM information_schema.collations a, information_schema.keywords b, system.metrics c",
		"SELECT * FROM system.events e JOIN system.metrics m ON 1",
		"SELECT * FROM system.events WHERE value > (SELECT MAX(value) FROM system.metrics)",
		"SET @s = SLEEP(1)",
		"SET @b = REPEAT('x', 1e8)",
		"SET @r = REGEXP_LIKE(REPEAT('a', 34), '(a+)+b')",
		"SET @a = (TABLE t)",
		"SHOW TABLES WHERE SLEEP(1) = 1",
		"SELECT 1",
		"SELECT NOW()",
	} {
		rows, err := c.QueryContext(context.Background(), q)
		if err == nil {
			rows.Close()
			t.Errorf("%s: served as exempt at overload 7 (>= max 6), want 745", q)
			continue
		}
		if me := mysqlError(t, err); me.Number != 745 {
			t.Errorf("%s: error %d %s, want 745", q, me.Number, me.Message)
		}
	}

	for _, q := range []string{
		"SELECT DATABASE()",
		"SELECT SCHEMA(), USER(), CURRENT_USER()",
		"SELECT VERSION(), CONNECTION_ID(), LAST_INSERT_ID(), FOUND_ROWS(), ROW_COUNT()",
		"SELECT @@version_comment, DATABASE() AS db",
		"SELECT COUNT(*) FROM system.metrics WHERE metric LIKE 'Overload%'",
		"SHOW VARIABLES LIKE 'max_os%'",
		"SET @x = IFNULL(@@max_os_cpu_wait_time_ratio_to_throw, 0)",
	} {
		rows, err := c.QueryContext(context.Background(), q)
		if err != nil {
			t.Errorf("%s under overload: %v", q, err)
			continue
		}
		rows.Close()
	}
}
