package statement

import (
	"reflect"
	"testing"
)

func TestHints(t *testing.T) {
	cases := []struct {
		sql  string
		want []Hint
	}{
		{"SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 1.5) */ 1",
			[]Hint{{"max_os_cpu_wait_time_ratio_to_throw", "1.5"}}},
		{"select /*+set_var(MAX_OS_CPU_WAIT_TIME_RATIO_TO_THROW=2)*/ 1",
			[]Hint{{"max_os_cpu_wait_time_ratio_to_throw", "2"}}},
		{"SELECT /*+ MAX_EXECUTION_TIME(1000) SET_VAR(a = 1) SET_VAR(b=-0.5) NO_INDEX_MERGE(t i, j) */ * FROM t",
			[]Hint{{"a", "1"}, {"b", "-0.5"}}},
		{"SELECT /*+ SET_VAR(a = 1e3) */ /*+ SET_VAR(b = 'x y') */ 1",
			[]Hint{{"a", "1e3"}, {"b", "x y"}}},
		{`UPDATE /*+ SET_VAR(sql_mode = "ANSI") */ t SET a = 1`, []Hint{{"sql_mode", "ANSI"}}},
		{"INSERT /*+ SET_VAR(foreign_key_checks = OFF) */ INTO t VALUES (1)", []Hint{{"foreign_key_checks", "OFF"}}},
		{"  /* lead */ DELETE /* note */ /*+ SET_VAR(a=.5) */ FROM t", []Hint{{"a", ".5"}}},
		{"replace /*+ SET_VAR(a=+3) */ into t values (1)", []Hint{{"a", "+3"}}},
		{"SELECT /*+ SET_VAR(a = 1) SET_VAR(broken) SET_VAR(c = (1)) SET_VAR(d = 4) */ 1", []Hint{{"a", "1"}, {"d", "4"}}},
		{"SELECT /*+ SET_VAR(a = 1", nil},

		// Not hints of this statement.
		{"SELECT 1", nil},
		{"SELECT /* SET_VAR(a = 1) */ 1", nil},
		{"/*+ SET_VAR(a = 1) */ SELECT 1", nil},
		{"SELECT 1 /*+ SET_VAR(a = 1) */", nil},
		{"SELECT 'SET_VAR(a = 1)'", nil},
		{"SET /*+ SET_VAR(a = 1) */ b = 2", nil},
		{"SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1", nil},
		{"SELECT /*+ SET_VAR(a 1) */ 1", nil},
		{"", nil},
	}
	for _, tc := range cases {
		if got := Hints(tc.sql); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Hints(%q) = %#v, want %#v", tc.sql, got, tc.want)
		}
		if got := summarize(tc.sql).Hints(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Summary(%q).Hints() = %#v, want %#v", tc.sql, got, tc.want)
		}
	}
}

func TestHintsWithoutHintsDoesNotAllocate(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM t WHERE a = 1",
		"SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1",
		"SET_VAR(a = 1)",
		"SELECT /* SET_VAR(a = 1) */ 1",
	} {
		if n := testing.AllocsPerRun(10, func() { Hints(sql); summarize(sql).Hints() }); n != 0 {
			t.Errorf("Hints(%q) allocates %v times", sql, n)
		}
	}
}
