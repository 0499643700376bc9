package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// latencyRecorder keeps the latencies one worker observed. Its slice is allocated once; when it
// is full the recorder keeps a uniform random sample of everything seen (reservoir sampling), so
// memory stays bounded and the percentiles stay unbiased however long a phase runs.
type latencyRecorder struct {
	samples []time.Duration
	seen    int
	rng     *rand.Rand
}

func newLatencyRecorder(capacity int, seed uint64) *latencyRecorder {
	return &latencyRecorder{
		samples: make([]time.Duration, 0, capacity),
		rng:     rand.New(rand.NewPCG(seed, 0x6f766572)),
	}
}

func (r *latencyRecorder) add(d time.Duration) {
	r.seen++
	if len(r.samples) < cap(r.samples) {
		r.samples = append(r.samples, d)
		return
	}
	if j := r.rng.IntN(r.seen); j < len(r.samples) {
		r.samples[j] = d
	}
}

// newRecorders returns n recorders with distinct seeds, one per worker.
func newRecorders(n, capacity int) []*latencyRecorder {
	recs := make([]*latencyRecorder, n)
	for i := range recs {
		recs[i] = newLatencyRecorder(capacity, uint64(i+1))
	}
	return recs
}

// merged returns all samples of the recorders in one new slice.
func merged(recs ...*latencyRecorder) []time.Duration {
	n := 0
	for _, r := range recs {
		n += len(r.samples)
	}
	all := make([]time.Duration, 0, n)
	for _, r := range recs {
		all = append(all, r.samples...)
	}
	return all
}

// summary describes a latency distribution in milliseconds.
type summary struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// summarize sorts samples in place and returns their summary; no samples give a zero summary.
func summarize(samples []time.Duration) summary {
	if len(samples) == 0 {
		return summary{}
	}
	slices.Sort(samples)
	return summary{
		Count: len(samples),
		P50:   millis(percentile(samples, 50)),
		P99:   millis(percentile(samples, 99)),
		Max:   millis(samples[len(samples)-1]),
	}
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of sorted samples: the
// smallest sample that at least p percent of the samples are less than or equal to.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median returns the median of values (the mean of the middle two for an even count), unknown
// when there are none. values is sorted in place.
func median(values []float64) measure {
	if len(values) == 0 {
		return measure(math.NaN())
	}
	slices.Sort(values)
	mid := len(values) / 2
	if len(values)%2 == 1 {
		return measure(values[mid])
	}
	return measure((values[mid-1] + values[mid]) / 2)
}

// ratio returns a/b, unknown when b is 0 (a ratio that cannot be measured, never a fake 0 or Inf).
func ratio(a, b float64) measure {
	if b == 0 {
		return measure(math.NaN())
	}
	return measure(a / b)
}
