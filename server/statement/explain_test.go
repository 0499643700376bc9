package statement

import "testing"

func TestIsExplain(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"EXPLAIN SELECT 1", true},
		{"explain plan select * from t where id = 1", true},
		{"  /* c */ DESCRIBE t", true},
		{"desc t", true},
		{"SELECT 'explain'", false},
		{"`explain`", false},
		{"", false},
		{"descx t", false},
	} {
		if s := Summarize(c.sql); s.IsExplain() != c.want {
			t.Errorf("Summarize(%q).IsExplain() = %v, want %v", c.sql, s.IsExplain(), c.want)
		}
	}
}
