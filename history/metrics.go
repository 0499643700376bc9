package history

import (
	"math/bits"
	"sync"
	"time"
)

// MaxNames is the number of distinct names a Metrics log can hold.
const MaxNames = 128

// Value is one named figure of a frame.
type Value struct {
	Name    string
	Value   float64
	Counter bool // cumulative: readers see the increment since the previous frame
}

// Point is one row read back: the figure Name at At.
type Point struct {
	At    time.Time
	Name  string
	Value float64
}

type frame struct {
	at      int64 // Unix nanoseconds
	present [MaxNames / 64]uint64
	values  [MaxNames]float64
}

func (f *frame) has(slot int) bool { return f.present[slot/64]&(1<<(slot%64)) != 0 }

// Metrics is a bounded ring of frames. It is safe for concurrent use.
type Metrics struct {
	retention time.Duration

	mu       sync.RWMutex
	frames   []frame
	head, n  int // oldest frame, number of frames
	names    []string
	counter  []bool
	slots    map[string]int
	overflow map[string]bool // names refused because every slot was taken
}

// NewMetrics returns a log that keeps retention of history, one frame per second at most.
func NewMetrics(retention time.Duration) *Metrics {
	capacity := max(int(retention/time.Second), 1)
	return &Metrics{
		retention: retention,
		frames:    make([]frame, capacity),
		names:     make([]string, 0, MaxNames),
		counter:   make([]bool, 0, MaxNames),
		slots:     make(map[string]int, MaxNames),
		overflow:  make(map[string]bool),
	}
}

// Record appends a frame taken at at, overwriting the oldest when the ring is full. It returns
// the names it could not record because MaxNames names are already known (each name once).
func (m *Metrics) Record(at time.Time, values []Value) (refused []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var f *frame
	if m.n < len(m.frames) {
		f = &m.frames[(m.head+m.n)%len(m.frames)]
		m.n++
	} else {
		f = &m.frames[m.head]
		m.head = (m.head + 1) % len(m.frames)
	}
	f.at = at.UnixNano()
	f.present = [MaxNames / 64]uint64{}
	for _, v := range values {
		slot, ok := m.slot(v)
		if !ok {
			if !m.overflow[v.Name] {
				m.overflow[v.Name] = true
				refused = append(refused, v.Name)
			}
			continue
		}
		f.present[slot/64] |= 1 << (slot % 64)
		f.values[slot] = v.Value
	}
	return refused
}

// slot interns v's name; must be called with m.mu held.
func (m *Metrics) slot(v Value) (int, bool) {
	if s, ok := m.slots[v.Name]; ok {
		return s, true
	}
	if len(m.names) == MaxNames {
		return 0, false
	}
	s := len(m.names)
	m.names = append(m.names, v.Name)
	m.counter = append(m.counter, v.Counter)
	m.slots[v.Name] = s
	return s, true
}

// Range calls fn for every frame newer than now - window (and within the retention), oldest
// first, with a reader of that frame's values. The reader is valid only during the call; Range
// holds the read lock meanwhile, so fn must not call m.
func (m *Metrics) Range(now time.Time, window time.Duration, fn func(at time.Time, frame FrameReader)) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	since := now.Add(-min(window, m.retention)).UnixNano()
	for i := range m.n {
		idx := (m.head + i) % len(m.frames)
		f := &m.frames[idx]
		if f.at <= since {
			continue
		}
		var prev *frame
		if i > 0 {
			prev = &m.frames[(m.head+i-1)%len(m.frames)]
		}
		fn(time.Unix(0, f.at).UTC(), FrameReader{m: m, f: f, prev: prev})
	}
}

// FrameReader reads one frame during Range.
type FrameReader struct {
	m       *Metrics
	f, prev *frame
}

// Get returns the value of name in the frame: for a counter, the increment since the previous
// frame. ok is false when the frame lacks the name (or, for a counter, the previous one does).
func (r FrameReader) Get(name string) (v float64, ok bool) {
	slot, known := r.m.slots[name]
	if !known {
		return 0, false
	}
	return r.value(slot)
}

func (r FrameReader) value(slot int) (float64, bool) {
	if !r.f.has(slot) {
		return 0, false
	}
	if !r.m.counter[slot] {
		return r.f.values[slot], true
	}
	if r.prev == nil || !r.prev.has(slot) {
		return 0, false
	}
	return r.f.values[slot] - r.prev.values[slot], true
}

// Each calls fn for every value of the frame, in slot order.
func (r FrameReader) Each(fn func(name string, v float64)) {
	for w, word := range r.f.present {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			slot := w*64 + b
			if v, ok := r.value(slot); ok {
				fn(r.m.names[slot], v)
			}
		}
	}
}

// Points returns every value newer than now - retention whose name passes keep, oldest first.
func (m *Metrics) Points(now time.Time, keep func(name string) bool) []Point {
	var out []Point
	m.Range(now, m.retention, func(at time.Time, f FrameReader) {
		f.Each(func(name string, v float64) {
			if keep(name) {
				out = append(out, Point{At: at, Name: name, Value: v})
			}
		})
	})
	return out
}
