package statement

import "testing"

func TestKilledConnection(t *testing.T) {
	for _, c := range []struct {
		sql  string
		id   uint32
		want bool
	}{
		{"KILL 12", 12, true},
		{"kill query 7;", 7, true},
		{"KILL /* x */ CONNECTION 4294967295", 4294967295, true},
		{"KILL 4294967296", 0, false},
		{"KILL 0x10", 0, false},
		{"KILL QUERY 5; KILL 6", 0, false},
		{"KILL @id", 0, false},
		{"SELECT 12", 0, false},
		{"KILL", 0, false},
	} {
		s := summarize(c.sql)
		if id, ok := s.KilledConnection(); id != c.id || ok != c.want {
			t.Errorf("KilledConnection(%q) = %d, %v; want %d, %v", c.sql, id, ok, c.id, c.want)
		}
	}
}
