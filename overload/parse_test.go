package overload

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestParseSchedstat(t *testing.T) {
	tests := []struct {
		in      string
		want    threadTimes
		wantErr bool
	}{
		{in: "1000000000 20000000 50\n", want: threadTimes{busy: 1e9, wait: 2e7}},
		{in: "0 0 0", want: threadTimes{}},
		{in: "18446744073709551615 1 1\n", want: threadTimes{busy: 1<<64 - 1, wait: 1}},
		{in: "18446744073709551616 1 1\n", wantErr: true},
		{in: "busy wait\n", wantErr: true},
		{in: "12\n", wantErr: true},
		{in: "", wantErr: true},
		{in: "-5 3 1\n", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseSchedstat([]byte(tt.in))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseSchedstat(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseStat(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "proc", "stat"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		want    cpuTimes
		wantErr bool
	}{
		{name: "fixture", in: string(fixture), want: cpuTimes{user: 1000, nice: 100, system: 500, idle: 8000, iowait: 50, irq: 10, softirq: 20, cpus: 4}},
		{name: "old kernel without steal", in: "cpu 1 2 3 4\ncpu0 1 2 3 4\n", want: cpuTimes{user: 1, nice: 2, system: 3, idle: 4, cpus: 1}},
		{name: "too few fields", in: "cpu 1 2 3\ncpu0 1 2 3\n", wantErr: true},
		{name: "no cpu line", in: "intr 1 2 3\n", wantErr: true},
		{name: "no cpuN lines", in: "cpu 1 2 3 4\n", wantErr: true},
		{name: "garbage number", in: "cpu 1 x 3 4\ncpu0 1 2 3 4\n", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseStat([]byte(tt.in))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: parseStat = %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParsePSI(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    pressure
		wantErr bool
	}{
		{name: "memory", in: "some avg10=1.50 avg60=0.50 avg300=0.10 total=1234\nfull avg10=0.25 avg60=0.05 avg300=0.01 total=567\n", want: pressure{some: 1.5, full: 0.25}},
		{name: "cpu before 5.13", in: "some avg10=2.12 avg60=20.48 avg300=12.97 total=53401002\n", want: pressure{some: 2.12}},
		{name: "not a number", in: "some avg10=high\n", wantErr: true},
		{name: "no avg10", in: "some total=5\n", wantErr: true},
		{name: "no some line", in: "full avg10=1.00 avg60=0 avg300=0 total=0\n", wantErr: true},
		{name: "empty", in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parsePSI([]byte(tt.in))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: parsePSI = %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestProbability(t *testing.T) {
	tests := []struct {
		r, min, max, want float64
	}{
		{r: 4, min: 2, max: 6, want: 0.5},
		{r: 2, min: 2, max: 6, want: 0},
		{r: 1, min: 2, max: 6, want: 0},
		{r: 6, min: 2, max: 6, want: 1},
		{r: 100, min: 2, max: 6, want: 1},
		{r: 0.5, min: 0, max: 1, want: 0.5},
		{r: 0, min: 0, max: 1, want: 0},
		{r: -1, min: 0, max: 1, want: 0},
		{r: 5, min: 0, max: 0, want: 0},
		{r: 5, min: 3, max: 3, want: 0},
		{r: 5, min: 4, max: 3, want: 0},
		{r: 5, min: 0, max: -1, want: 0},
	}
	for _, tt := range tests {
		if got := Probability(tt.r, tt.min, tt.max); got != tt.want {
			t.Errorf("Probability(%g, %g, %g) = %g, want %g", tt.r, tt.min, tt.max, got, tt.want)
		}
	}
}

func TestCountersEvents(t *testing.T) {
	events := Counters{BusyMicros: 100, KernelWaitMicros: 30, GoWaitMicros: 12, QueueWaitMicros: 8}.Events()
	want := map[string]uint64{
		"OSCPUVirtualTimeMicroseconds":   100,
		"OSCPUWaitMicroseconds":          50,
		"KernelRunQueueWaitMicroseconds": 30,
		"GoRunQueueWaitMicroseconds":     12,
		"AdmissionQueueWaitMicroseconds": 8,
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for _, e := range events {
		if v, ok := want[e.Name]; !ok || v != e.Value || e.Description == "" {
			t.Errorf("event %+v, want value %d and a description", e, v)
		}
	}
}

func TestBucketValue(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct{ lo, hi, want float64 }{
		{lo: 1, hi: 3, want: 2},
		{lo: -inf, hi: 0, want: 0},
		{lo: 4, hi: inf, want: 4},
	}
	for _, tt := range tests {
		if got := bucketValue(tt.lo, tt.hi); got != tt.want {
			t.Errorf("bucketValue(%g, %g) = %g, want %g", tt.lo, tt.hi, got, tt.want)
		}
	}
}
