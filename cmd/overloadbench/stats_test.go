package main

import (
	"math"
	"slices"
	"testing"
	"time"
)

func ms(values ...int) []time.Duration {
	out := make([]time.Duration, len(values))
	for i, v := range values {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

func oneToHundred() []time.Duration {
	values := make([]int, 100)
	for i := range values {
		values[i] = 100 - i // descending: summarize must sort
	}
	return ms(values...)
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name    string
		samples []time.Duration
		want    summary
	}{
		{"none", nil, summary{}},
		{"one", ms(7), summary{Count: 1, P50: 7, P99: 7, Max: 7}},
		{"two: p50 is the lower, p99 the upper", ms(20, 10), summary{Count: 2, P50: 10, P99: 20, Max: 20}},
		{"1..100 ms", oneToHundred(), summary{Count: 100, P50: 50, P99: 99, Max: 100}},
		{"one slow outlier in 200 stays out of p99", append(ms(make([]int, 199)...), 5*time.Second),
			summary{Count: 200, P50: 0, P99: 0, Max: 5000}},
		{"two slow in 100 reach p99", append(ms(make([]int, 98)...), ms(300, 400)...),
			summary{Count: 100, P50: 0, P99: 300, Max: 400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize(tt.samples); got != tt.want {
				t.Errorf("summarize = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPercentileBounds(t *testing.T) {
	sorted := ms(1, 2, 3, 4)
	tests := []struct {
		p    float64
		want time.Duration
	}{
		{0, time.Millisecond}, // rank 0 is clamped to the first sample
		{25, time.Millisecond},
		{26, 2 * time.Millisecond},
		{50, 2 * time.Millisecond},
		{75, 3 * time.Millisecond},
		{100, 4 * time.Millisecond},
		{150, 4 * time.Millisecond}, // clamped to the last sample
	}
	for _, tt := range tests {
		if got := percentile(sorted, tt.p); got != tt.want {
			t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile of nothing = %v, want 0", got)
	}
}

func TestMedianAndRatio(t *testing.T) {
	tests := []struct {
		name string
		got  measure
		want float64 // NaN: unknown
	}{
		{"median of none", median(nil), math.NaN()},
		{"median of odd count", median([]float64{3, 1, 2}), 2},
		{"median of even count", median([]float64{4, 1, 3, 2}), 2.5},
		{"ratio", ratio(3, 4), 0.75},
		{"ratio over zero", ratio(3, 0), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if math.IsNaN(tt.want) {
				if tt.got.known() {
					t.Errorf("= %v, want unknown", float64(tt.got))
				}
				return
			}
			if float64(tt.got) != tt.want {
				t.Errorf("= %v, want %v", float64(tt.got), tt.want)
			}
		})
	}
}

func TestMeasureFormats(t *testing.T) {
	tests := []struct {
		m        measure
		json, tb string
	}{
		{measure(0.98765), "0.98765", "0.988"},
		{measure(math.NaN()), "null", "n/a"},
		{measure(math.Inf(1)), "null", "n/a"},
	}
	for _, tt := range tests {
		b, err := tt.m.MarshalJSON()
		if err != nil || string(b) != tt.json {
			t.Errorf("MarshalJSON(%v) = %s, %v; want %s", float64(tt.m), b, err, tt.json)
		}
		if got := tt.m.format(3); got != tt.tb {
			t.Errorf("format(%v) = %s, want %s", float64(tt.m), got, tt.tb)
		}
	}
}

// The recorder keeps a bounded, unbiased sample: past its capacity the median of a uniform
// stream must stay near the stream's median, not near its beginning.
func TestLatencyRecorderIsBoundedAndUnbiased(t *testing.T) {
	const capacity, total = 1000, 100000
	r := newLatencyRecorder(capacity, 1)
	for i := range total {
		r.add(time.Duration(i))
	}
	if len(r.samples) != capacity || cap(r.samples) != capacity {
		t.Fatalf("len %d cap %d, want both %d", len(r.samples), cap(r.samples), capacity)
	}
	if r.seen != total {
		t.Errorf("seen %d, want %d", r.seen, total)
	}
	got := percentile(sortedCopy(r.samples), 50)
	if got < total*4/10 || got > total*6/10 {
		t.Errorf("median of the sample %d, want near %d", got, total/2)
	}
}

func sortedCopy(d []time.Duration) []time.Duration {
	c := slices.Clone(d)
	slices.Sort(c)
	return c
}

func TestMergedKeepsEverySample(t *testing.T) {
	recs := newRecorders(3, 4)
	for i, r := range recs {
		for j := 0; j <= i; j++ {
			r.add(time.Duration(10*i + j))
		}
	}
	if got := summarize(merged(recs...)); got.Count != 6 || got.Max != millis(22) {
		t.Errorf("merged summary %+v, want 6 samples, max 22 ns", got)
	}
}
