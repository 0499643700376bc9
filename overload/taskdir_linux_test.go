package overload

import "testing"

func TestDirentTid(t *testing.T) {
	tests := []struct {
		name   string
		want   int
		wantOK bool
	}{
		{"101\x00\x00\x00", 101, true},
		{"7", 7, true},
		{".\x00", 0, false},
		{"..\x00", 0, false},
		{"\x00", 0, false},
		{"12345678901\x00", 0, false},
		{"1a\x00", 0, false},
	}
	for _, tt := range tests {
		got, ok := direntTid([]byte(tt.name))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("direntTid(%q) = %d, %v; want %d, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
}
