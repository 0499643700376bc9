package statement

import "testing"

func TestSummarySettings(t *testing.T) {
	for _, c := range []struct {
		sql                               string
		mayChange, persists, namesSetting bool
	}{
		{"SET max_os_cpu_wait_time_ratio_to_throw = 2", true, false, true},
		{"/* pool */ set @@SESSION.MIN_OS_CPU_WAIT_TIME_RATIO_TO_THROW = DEFAULT", true, false, true},
		{"SET PERSIST max_concurrent_statements = 4", true, true, false},
		{"CALL p()", true, false, false},
		{"SELECT 'SET x = 1'", false, false, false},
		{"SELECT @@max_os_cpu_wait_time_ratio_to_throw", false, false, true},
		{"settings", false, false, false},
		{"", false, false, false},
	} {
		s := summarize(c.sql)
		if got := s.MayChangeSettings(); got != c.mayChange {
			t.Errorf("MayChangeSettings(%q) = %v, want %v", c.sql, got, c.mayChange)
		}
		if got := s.Persists(); got != c.persists {
			t.Errorf("Persists(%q) = %v, want %v", c.sql, got, c.persists)
		}
		for range 2 {
			if got := s.NamesThresholds(); got != c.namesSetting {
				t.Errorf("NamesThresholds(%q) = %v, want %v", c.sql, got, c.namesSetting)
			}
		}
	}
}

// The exemption depends on the current database: a summary asked again for another database
// answers for that one, not from its memory of the first.
func TestSummaryExemptFollowsDatabase(t *testing.T) {
	s := summarize("SELECT * FROM warnings")
	for _, c := range []struct {
		db     string
		exempt bool
	}{{"system", true}, {"system", true}, {"main", false}, {"information_schema", true}} {
		if got := s.Exempt(c.db).Exempt; got != c.exempt {
			t.Errorf("Exempt(%q) = %v, want %v", c.db, got, c.exempt)
		}
	}
}

func TestSummaryText(t *testing.T) {
	const sql = "SELECT 1"
	if got := summarize(sql).Text(); got != sql {
		t.Errorf("Text() = %q, want %q", got, sql)
	}
}
