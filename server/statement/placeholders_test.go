package statement

import "testing"

func TestPlaceholders(t *testing.T) {
	for sql, want := range map[string]int{
		"SELECT 1":                            0,
		"SELECT ?, ?":                         2,
		"SELECT '?', `?`, \"?\" -- ?\n, ?":    1,
		"SELECT /* ? */ ? /*!50000 , ?, ? */": 3,
		"SELECT :v1, ?":                       1,
	} {
		if got := Placeholders(sql); got != want {
			t.Errorf("Placeholders(%q) = %d, want %d", sql, got, want)
		}
	}
}
