package warnings

import (
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"
)

// Keys (and resources) of the warnings the Monitor raises.
const (
	KeyCPU    = "cpu"
	KeyMemory = "memory"
)

// Message formats (message_format_string) of the Monitor's warnings.
const (
	CPUMessageFormat    = "High CPU usage: {}% busy (>= {}%) for at least {} second(s)"
	MemoryMessageFormat = "High server memory usage: {} of {} used ({}%) for at least {} second(s)"
)

// Observation is one sample of the resources the Monitor watches.
type Observation struct {
	CPUBusy     float64 // fraction 0..1 of CPU capacity busy
	CPUKnown    bool
	Memory      float64 // memory ratio 0..1+
	MemoryUsed  uint64  // bytes (numerator), for the message
	MemoryLimit uint64  // bytes (denominator), for the message
	MemoryKnown bool
}

// Monitor owns the CPU and memory hysteresis trackers and writes their
// warnings into a Registry. It is safe for concurrent use.
type Monitor struct {
	reg    *Registry
	logger *slog.Logger

	mu     sync.Mutex
	cfg    Config
	cpu    tracker
	memory tracker
}

// NewMonitor returns a Monitor with idle trackers that raises into reg and logs
// raises and clears to logger (nil discards them). cfg is trusted: validate it first.
func NewMonitor(reg *Registry, cfg Config, logger *slog.Logger) *Monitor {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Monitor{reg: reg, logger: logger, cfg: cfg}
}

// SetConfig replaces the thresholds; the next sample is evaluated with them
// (see the package comment for what that means for pending and raised
// warnings). cfg is trusted: validate it first.
func (m *Monitor) SetConfig(cfg Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cfg = cfg
}

// Config returns the thresholds in use.
func (m *Monitor) Config() Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// Observe evaluates one sample, taken at now, and raises, refreshes or clears
// the CPU and memory warnings accordingly.
func (m *Monitor) Observe(now time.Time, o Observation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.evaluate(now, &m.cpu, cpuReading(o, m.cfg.CPU), m.cfg.CPU)
	m.evaluate(now, &m.memory, memoryReading(o, m.cfg.Memory), m.cfg.Memory)
}

// reading is one resource's sample, ready to become a warning.
type reading struct {
	key     string
	known   bool
	value   float64
	message func() string // built only when a warning is raised or refreshed
	format  string
}

func cpuReading(o Observation, th Thresholds) reading {
	return reading{
		key:   KeyCPU,
		known: o.CPUKnown && !math.IsNaN(o.CPUBusy),
		value: o.CPUBusy,
		message: func() string {
			return fill(CPUMessageFormat, roundedPercent(o.CPUBusy), exactPercent(th.Warn), seconds(th.Duration))
		},
		format: CPUMessageFormat,
	}
}

func memoryReading(o Observation, th Thresholds) reading {
	return reading{
		key:   KeyMemory,
		known: o.MemoryKnown && !math.IsNaN(o.Memory),
		value: o.Memory,
		message: func() string {
			return fill(MemoryMessageFormat, decimalSize(o.MemoryUsed), decimalSize(o.MemoryLimit),
				roundedPercent(o.Memory), seconds(th.Duration))
		},
		format: MemoryMessageFormat,
	}
}

// fill replaces the {} placeholders of format, in order, with args.
func fill(format string, args ...string) string {
	var b strings.Builder
	for _, arg := range args {
		before, after, found := strings.Cut(format, "{}")
		if !found {
			break
		}
		b.WriteString(before)
		b.WriteString(arg)
		format = after
	}
	b.WriteString(format)
	return b.String()
}

func (r reading) warning() Warning {
	return Warning{Key: r.key, Resource: r.key, Message: r.message(), MessageFormat: r.format, Value: r.value}
}

// evaluate runs one tracker on one reading and applies the outcome to the
// registry. It must be called with m.mu held.
func (m *Monitor) evaluate(now time.Time, t *tracker, r reading, th Thresholds) {
	if t.phase == raised && !m.reg.Has(r.key) {
		t.reset()
		m.logger.Info("overload warning was truncated; its hold time starts again", "resource", r.key)
	}
	if !r.known {
		t.unknown()
		return
	}
	switch t.step(now, r.value, th) {
	case raiseNow:
		w := r.warning()
		m.reg.Raise(now, w)
		m.logger.Warn("overload warning raised", "resource", r.key, "value", r.value, "message", w.Message)
	case stillRaised:
		if !m.reg.refresh(now, r.warning()) {
			// Truncated since the check above: start over on the next sample.
			t.reset()
		}
	case clearNow:
		if w, ok := m.reg.remove(r.key); ok {
			m.logger.Info("overload warning cleared", "resource", r.key, "value", r.value,
				"peak", w.Peak, "raised_for", now.Sub(w.RaisedAt))
		}
	}
}
