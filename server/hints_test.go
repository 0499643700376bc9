package server

import (
	"errors"
	"testing"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/statement"

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
			if access.IgnoredHint(tt.constraints, h) != nil {
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
	e := mysqlerr.ForClient(unknown("Access denied for user 'app'@'%' to database 'mysql'"))
	if e == nil || e.State != "42000" {
		t.Errorf("%v: SQLSTATE is not 42000", e)
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
