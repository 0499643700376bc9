package history

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sec(n int) time.Time { return epoch.Add(time.Duration(n) * time.Second) }

func TestMetricsRingKeepsTheNewestFrames(t *testing.T) {
	m := NewMetrics(3 * time.Second) // 3 frames
	for i := range 5 {
		m.Record(sec(i), []Value{{Name: "OSCPUOverload", Value: float64(i)}})
	}
	got := m.Points(sec(4), func(string) bool { return true })
	want := []Point{{sec(2), "OSCPUOverload", 2}, {sec(3), "OSCPUOverload", 3}, {sec(4), "OSCPUOverload", 4}}
	if !slices.Equal(got, want) {
		t.Errorf("Points = %v, want %v", got, want)
	}
	// Reads leave out frames older than the retention, also when the ring is not full.
	if got := m.Points(sec(6), func(string) bool { return true }); len(got) != 1 || got[0].Value != 4 {
		t.Errorf("Points at 6 s = %v, want only the frame of 4 s", got)
	}
}

func TestMetricsAbsentRowsAndCounters(t *testing.T) {
	m := NewMetrics(time.Hour)
	m.Record(sec(0), []Value{{Name: "Query", Value: 10, Counter: true}, {Name: "PSI", Value: 1}})
	m.Record(sec(1), []Value{{Name: "Query", Value: 15, Counter: true}})
	m.Record(sec(2), []Value{{Name: "Query", Value: 15, Counter: true}, {Name: "PSI", Value: 3}})
	type row struct {
		at   time.Time
		name string
		v    float64
	}
	var got []row
	m.Range(sec(2), time.Hour, func(at time.Time, f FrameReader) {
		f.Each(func(name string, v float64) { got = append(got, row{at, name, v}) })
	})
	want := []row{
		// The first counter value has no previous frame: no increment to show.
		{sec(0), "PSI", 1},
		{sec(1), "Query", 5},
		{sec(2), "Query", 0},
		{sec(2), "PSI", 3},
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
	m.Range(sec(2), time.Second, func(at time.Time, f FrameReader) {
		if _, ok := f.Get("nope"); ok {
			t.Error("Get of an unknown name reported ok")
		}
		if v, ok := f.Get("Query"); at == sec(2) && (!ok || v != 0) {
			t.Errorf("Get(Query) at 2 s = %v %v", v, ok)
		}
	})
}

func TestMetricsNamesAreBounded(t *testing.T) {
	m := NewMetrics(time.Second)
	values := make([]Value, MaxNames+2)
	for i := range values {
		values[i] = Value{Name: fmt.Sprint("m", i), Value: 1}
	}
	if refused := m.Record(sec(0), values); !slices.Equal(refused, []string{fmt.Sprint("m", MaxNames), fmt.Sprint("m", MaxNames+1)}) {
		t.Errorf("refused = %v", refused)
	}
	if refused := m.Record(sec(1), values); len(refused) != 0 {
		t.Errorf("a refused name is reported once; got %v", refused)
	}
	if n := len(m.Points(sec(1), func(string) bool { return true })); n != MaxNames {
		t.Errorf("%d points, want %d", n, MaxNames)
	}
}

func TestWarningsLog(t *testing.T) {
	w := NewWarnings(2 * time.Second) // 8 events
	value := 0.0
	add := func(ms int, key string, e Event) {
		value++
		w.Add(WarningEvent{At: epoch.Add(time.Duration(ms) * time.Millisecond), Key: key, Resource: key, Event: e, Value: value})
	}
	add(0, "cpu", Raised)
	add(100, "cpu", Updated) // within UpdateGap of the raise: left out
	add(900, "cpu", Updated) // left out
	add(1000, "cpu", Updated)
	value--
	add(2100, "cpu", Updated) // the same value and message as the last kept one: left out
	add(1500, "memory", Raised)
	add(1600, "cpu", Cleared)
	add(1700, "cpu", Raised)
	add(1800, "cpu", Updated) // left out: 100 ms after the new raise
	type row struct {
		key string
		e   Event
	}
	var got []row
	for _, e := range w.Events(epoch.Add(1900*time.Millisecond), time.Hour) {
		got = append(got, row{e.Key, e.Event})
	}
	want := []row{{"cpu", Raised}, {"cpu", Updated}, {"memory", Raised}, {"cpu", Cleared}, {"cpu", Raised}}
	if !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if got := w.Events(epoch.Add(3*time.Second), time.Hour); len(got) != 3 {
		t.Errorf("%d events within the 2 s retention at 3 s, want 3", len(got))
	}
	for i := range 20 {
		add(2000+i*1000, "x", Raised)
	}
	if w.n != len(w.entries) || len(w.entries) != 2*WarningsPerSecond {
		t.Errorf("ring: %d of %d entries, want full at %d", w.n, len(w.entries), 2*WarningsPerSecond)
	}
}

// BenchmarkRecord is one history sample: a frame of 40 figures, as the server records every
// asynchronous_metrics_update_period_s.
func BenchmarkRecord(b *testing.B) {
	m := NewMetrics(time.Hour)
	values := make([]Value, 40)
	for i := range values {
		values[i] = Value{Name: fmt.Sprint("Metric", i), Value: float64(i), Counter: i%2 == 0}
	}
	b.ReportAllocs()
	at := epoch
	for b.Loop() {
		at = at.Add(time.Second)
		m.Record(at, values)
	}
}

// BenchmarkHourOfHistory measures the memory of a full hour: 3600 frames of 40 figures and a
// warning event every second.
func BenchmarkHourOfHistory(b *testing.B) {
	values := make([]Value, 40)
	for i := range values {
		values[i] = Value{Name: fmt.Sprint("Metric", i), Value: float64(i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		m := NewMetrics(time.Hour)
		w := NewWarnings(time.Hour)
		for s := range 3600 {
			m.Record(sec(s), values)
			w.Add(WarningEvent{At: sec(s), Key: "cpu", Resource: "cpu", Event: Updated,
				Message: fmt.Sprintf("High CPU usage: %d%% busy (>= 90%%) for at least 600 second(s)", 90+s%10), Value: 0.95})
		}
	}
}

// TestConcurrentRecordAndRead is for the race detector: the sampler records while tables and
// the dashboard read.
func TestConcurrentRecordAndRead(t *testing.T) {
	m := NewMetrics(10 * time.Second)
	w := NewWarnings(10 * time.Second)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			m.Record(sec(i), []Value{{Name: "A", Value: float64(i)}, {Name: fmt.Sprint("B", i%3), Value: 1, Counter: true}})
			w.Add(WarningEvent{At: sec(i), Key: "cpu", Event: Updated, Value: float64(i)})
		}
	}()
	for i := range 200 {
		_ = m.Points(sec(i), func(string) bool { return true })
		m.Range(sec(i), time.Minute, func(_ time.Time, f FrameReader) { _, _ = f.Get("B1") })
		_ = w.Events(sec(i), time.Minute)
	}
	<-done
	if got := len(m.Points(sec(199), func(n string) bool { return n == "A" })); got != 10 {
		t.Errorf("%d frames of A kept, want the last 10", got)
	}
}
