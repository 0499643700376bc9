package warnings

import (
	"testing"
	"time"
)

func TestRoundedPercent(t *testing.T) {
	tests := []struct {
		ratio float64
		want  string
	}{
		{0.95, "95"}, {0.954, "95"}, {0.955, "96"}, {0.9, "90"}, {1, "100"}, {1.234, "123"}, {0, "0"}, {0.004, "0"},
	}
	for _, tt := range tests {
		if got := roundedPercent(tt.ratio); got != tt.want {
			t.Errorf("roundedPercent(%v) = %q, want %q", tt.ratio, got, tt.want)
		}
	}
}

func TestExactPercent(t *testing.T) {
	tests := []struct {
		ratio float64
		want  string
	}{
		{0.9, "90"}, {0.925, "92.5"}, {0.29, "29"}, {0.07, "7"}, {0.001, "0.1"}, {0.00005, "0.005"},
		{0, "0"}, {1, "100"}, {1.5, "150"}, {12.3456, "1234.56"}, {-0.25, "-25"},
	}
	for _, tt := range tests {
		if got := exactPercent(tt.ratio); got != tt.want {
			t.Errorf("exactPercent(%v) = %q, want %q", tt.ratio, got, tt.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{600 * time.Second, "600"}, {2 * time.Second, "2"}, {500 * time.Millisecond, "0.5"},
		{1500 * time.Millisecond, "1.5"}, {0, "0"}, {100 * time.Millisecond, "0.1"},
	}
	for _, tt := range tests {
		if got := seconds(tt.d); got != tt.want {
			t.Errorf("seconds(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestDecimalSize(t *testing.T) {
	tests := []struct {
		bytes uint64
		want  string
	}{
		{0, "0.00 B"},
		{999, "999.00 B"},
		{1000, "1.00 kB"},
		{1536, "1.54 kB"},
		{999_994, "999.99 kB"},
		{999_999, "1.00 MB"},
		{8_589_934_592, "8.59 GB"}, // 8 GiB
		{9_123_456_789, "9.12 GB"},
		{2_500_000_000_000, "2.50 TB"},
		{5_000_000_000_000_000, "5000.00 TB"}, // TB is the largest unit
	}
	for _, tt := range tests {
		if got := decimalSize(tt.bytes); got != tt.want {
			t.Errorf("decimalSize(%d) = %q, want %q", tt.bytes, got, tt.want)
		}
	}
}

func TestFill(t *testing.T) {
	tests := []struct {
		format string
		args   []string
		want   string
	}{
		{CPUMessageFormat, []string{"95", "90", "2"}, "High CPU usage: 95% busy (>= 90%) for at least 2 second(s)"},
		{MemoryMessageFormat, []string{"9.12 GB", "10.00 GB", "91", "600"},
			"High server memory usage: 9.12 GB of 10.00 GB used (91%) for at least 600 second(s)"},
		{"no placeholders", []string{"x"}, "no placeholders"},
		{"{} and {}", []string{"one"}, "one and {}"},
	}
	for _, tt := range tests {
		if got := fill(tt.format, tt.args...); got != tt.want {
			t.Errorf("fill(%q, %q) = %q, want %q", tt.format, tt.args, got, tt.want)
		}
	}
}
