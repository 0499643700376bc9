package server

import (
	"testing"
	"time"

	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/statement"

	"github.com/dolthub/vitess/go/mysql"
)

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
