package serverproc

import (
	"os"
	"strings"
	"testing"
	"time"
)

// A real /proc/<pid>/stat line (Linux 6.x, 52 fields) whose command name holds spaces and
// parentheses: utime (field 14) = 1234 ticks, stime (field 15) = 567 ticks.
const statFixture = "4242 (over (load) sql) S 1 4242 4242 0 -1 4194560 12345 0 0 0 1234 567 0 0 20 0 " +
	"12 0 98765 1634234368 23456 18446744073709551615 4194304 12345678 140736 0 0 0 0 0 " +
	"2143420159 0 0 0 17 1 0 0 0 0 0 14000000 14100000 15000000 140737 140738 140738 140739 0\n"

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    time.Duration
		wantErr string
	}{
		{"fixture", statFixture, (1234 + 567) * 10 * time.Millisecond, ""},
		{"plain name", "1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 100 50 0 0 20 0 1 0 1 0 0", 1500 * time.Millisecond, ""},
		{"no closing parenthesis", "1 (init S 0 1", 0, "no ')'"},
		{"cut short", "1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 100", 0, "fields after the command name"},
		{"not a number", "1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 x 50 0 0", 0, "field 14"},
		{"negative", "1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 100 -5 0 0", 0, "field 15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStat(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("= %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestProcessCPUOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no procfs")
	}
	if _, err := CPUTime(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := CPUTime(-1); err == nil || !strings.Contains(err.Error(), "/proc/-1/stat") {
		t.Errorf("missing process: err = %v, want one naming the file", err)
	}
}
