package overload

import (
	"math"
	"os"
	"testing"

	"github.com/prometheus/procfs"
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

// TestReadHostCPU checks what the sampler takes from procfs's reading of
// /proc/stat: the "cpu" line in seconds (100 ticks a second) and the number
// of "cpuN" lines, and that a file without cpuN lines is refused.
func TestReadHostCPU(t *testing.T) {
	tests := []struct {
		name    string
		in      string // "" keeps the fixture
		want    cpuTimes
		wantErr bool
	}{
		{name: "fixture", want: cpuTimes{CPUStat: procfs.CPUStat{User: 10, Nice: 1, System: 5, Idle: 80, Iowait: 0.5, IRQ: 0.1, SoftIRQ: 0.2}, cpus: 4}},
		{name: "old kernel without steal", in: "cpu 1 2 3 4\ncpu0 1 2 3 4\n", want: cpuTimes{CPUStat: procfs.CPUStat{User: 0.01, Nice: 0.02, System: 0.03, Idle: 0.04}, cpus: 1}},
		{name: "no cpu lines", in: "intr 1 2 3\n", wantErr: true},
		{name: "no cpuN lines", in: "cpu 1 2 3 4\n", wantErr: true},
		{name: "garbage number", in: "cpu 1 x 3 4\ncpu0 1 2 3 4\n", wantErr: true},
	}
	for _, tt := range tests {
		f := newFixture(t, "proc", "")
		if tt.in != "" {
			f.write("proc/stat", tt.in)
		}
		got, err := readHostCPU(newProcSource(f.path("proc")))
		if (err != nil) != tt.wantErr || !nearCPU(got, tt.want) {
			t.Errorf("%s: readHostCPU = %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func nearCPU(a, b cpuTimes) bool {
	return a.cpus == b.cpus && near(a.User, b.User) && near(a.Nice, b.Nice) && near(a.System, b.System) &&
		near(a.Idle, b.Idle) && near(a.Iowait, b.Iowait) && near(a.IRQ, b.IRQ) && near(a.SoftIRQ, b.SoftIRQ) && near(a.Steal, b.Steal)
}

func TestReadPressure(t *testing.T) {
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
		f := newFixture(t, "proc", "")
		f.write("proc/pressure/io", tt.in)
		got, err := readPressure(newProcSource(f.path("proc")), "io")
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: readPressure = %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestReadMemInfo(t *testing.T) {
	tests := []struct {
		name    string
		in      string // "" keeps the fixture
		want    memInfo
		wantErr bool
	}{
		{name: "fixture", want: memInfo{total: 16384000 * 1024, available: 12288000 * 1024}},
		{name: "before Linux 3.14", in: "MemTotal: 100 kB\nMemFree: 50 kB\n", wantErr: true},
		{name: "garbage number", in: "MemTotal: lots kB\n", wantErr: true},
	}
	for _, tt := range tests {
		f := newFixture(t, "proc", "")
		if tt.in != "" {
			f.write("proc/meminfo", tt.in)
		}
		got, err := readMemInfo(newProcSource(f.path("proc")))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: readMemInfo = %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestReadRSS checks the resident set from the fixture process's stat
// (4096 pages) and that a garbage stat is refused.
func TestReadRSS(t *testing.T) {
	f := newFixture(t, "proc", "")
	src := newProcSource(f.path("proc"))
	if got, err := readRSS(src); err != nil || got != 4096*uint64(os.Getpagesize()) {
		t.Errorf("readRSS = %d, %v; want %d", got, err, 4096*os.Getpagesize())
	}
	f.write("proc/self/stat", "4242 (overloadsql) S 1\n")
	if got, err := readRSS(src); err == nil {
		t.Errorf("truncated stat: readRSS = %d, want an error", got)
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
