package warnings

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const sec = time.Second

// A story is a Monitor fed samples on a fake clock; after every sample the
// shown system.warnings rows are compared with the expectation.
type story struct {
	name  string
	cfg   Config
	steps []step
}

type step struct {
	at   time.Duration // since the story's epoch
	do   func(*Monitor, *Registry)
	obs  Observation
	want []string // rows, as row() renders them; nil means the table is empty
}

// row renders a warning as "key raised=… updated=… value=… peak=…: message",
// times relative to the epoch, value and peak to four significant digits.
func row(w Warning) string {
	return fmt.Sprintf("%s raised=%v updated=%v value=%.4g peak=%.4g: %s",
		w.Key, w.RaisedAt.Sub(epoch), w.UpdatedAt.Sub(epoch), w.Value, w.Peak, w.Message)
}

func busy(v float64) Observation { return Observation{CPUBusy: v, CPUKnown: true} }

func memory(used, limit uint64) Observation {
	return Observation{Memory: float64(used) / float64(limit), MemoryUsed: used, MemoryLimit: limit, MemoryKnown: true}
}

func cpuOnly(warn, clear float64, d time.Duration) Config {
	cfg := DefaultConfig()
	cfg.CPU = Thresholds{Warn: warn, Clear: clear, Duration: d}
	return cfg
}

func reconfigure(cfg Config) func(*Monitor, *Registry) {
	return func(m *Monitor, _ *Registry) { m.SetConfig(cfg) }
}

func truncate(_ *Monitor, reg *Registry) { reg.Truncate() }

func suppress(expr string) func(*Monitor, *Registry) {
	return func(_ *Monitor, reg *Registry) {
		if expr == "" {
			reg.SetSuppress(nil)
			return
		}
		reg.SetSuppress(regexp.MustCompile(expr))
	}
}

var stories = []story{
	{
		name: "raises exactly when the hold time is complete",
		cfg:  cpuOnly(0.9, 0.8, 2*sec),
		steps: []step{
			{at: 0, obs: busy(0.5)},
			{at: 1 * sec, obs: busy(0.95)}, // t0
			{at: 1500 * time.Millisecond, obs: busy(0.93)},
			{at: 2999 * time.Millisecond, obs: busy(0.97)},
			{at: 3 * sec, obs: busy(0.95), want: []string{
				"cpu raised=3s updated=3s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
		},
	},
	{
		name: "samples that straddle the hold time raise on the first one past it",
		cfg:  cpuOnly(0.9, 0.8, 2*sec),
		steps: []step{
			{at: 0, obs: busy(0.95)},
			{at: 1900 * time.Millisecond, obs: busy(0.95)},
			{at: 2100 * time.Millisecond, obs: busy(0.95), want: []string{
				"cpu raised=2.1s updated=2.1s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
		},
	},
	{
		name: "duration zero raises on the first sample at warn",
		cfg:  cpuOnly(0.9, 0.8, 0),
		steps: []step{
			{at: 0, obs: busy(0.89)},
			{at: 1 * sec, obs: busy(0.9), want: []string{
				"cpu raised=1s updated=1s value=0.9 peak=0.9: High CPU usage: 90% busy (>= 90%) for at least 0 second(s)",
			}},
		},
	},
	{
		name: "a value equal to warn counts and a value equal to clear clears",
		cfg:  cpuOnly(0.9, 0.8, 1*sec),
		steps: []step{
			{at: 0, obs: busy(0.9)},
			{at: 1 * sec, obs: busy(0.9), want: []string{
				"cpu raised=1s updated=1s value=0.9 peak=0.9: High CPU usage: 90% busy (>= 90%) for at least 1 second(s)",
			}},
			{at: 2 * sec, obs: busy(0.8)},
		},
	},
	{
		name: "a dip between clear and warn leaves a raised warning alone",
		cfg:  cpuOnly(0.9, 0.8, 1*sec),
		steps: []step{
			{at: 0, obs: busy(0.95)},
			{at: 1 * sec, obs: busy(0.97), want: []string{
				"cpu raised=1s updated=1s value=0.97 peak=0.97: High CPU usage: 97% busy (>= 90%) for at least 1 second(s)",
			}},
			{at: 2 * sec, obs: busy(0.85), want: []string{
				"cpu raised=1s updated=2s value=0.85 peak=0.97: High CPU usage: 85% busy (>= 90%) for at least 1 second(s)",
			}},
			{at: 3 * sec, obs: busy(0.81), want: []string{
				"cpu raised=1s updated=3s value=0.81 peak=0.97: High CPU usage: 81% busy (>= 90%) for at least 1 second(s)",
			}},
			{at: 4 * sec, obs: busy(0.93), want: []string{
				"cpu raised=1s updated=4s value=0.93 peak=0.97: High CPU usage: 93% busy (>= 90%) for at least 1 second(s)",
			}},
		},
	},
	{
		name: "a dip while pending restarts the hold time",
		cfg:  cpuOnly(0.9, 0.8, 2*sec),
		steps: []step{
			{at: 0, obs: busy(0.95)},
			{at: 1 * sec, obs: busy(0.85)}, // between clear and warn: the run is broken
			{at: 2 * sec, obs: busy(0.95)}, // would have raised without the dip; a new run starts
			{at: 3 * sec, obs: busy(0.95)},
			{at: 4 * sec, obs: busy(0.95), want: []string{
				"cpu raised=4s updated=4s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
		},
	},
	{
		name: "cleared, then raised again after a new hold time",
		cfg:  cpuOnly(0.9, 0.8, 2*sec),
		steps: []step{
			{at: 0, obs: busy(0.99)},
			{at: 2 * sec, obs: busy(0.99), want: []string{
				"cpu raised=2s updated=2s value=0.99 peak=0.99: High CPU usage: 99% busy (>= 90%) for at least 2 second(s)",
			}},
			{at: 3 * sec, obs: busy(0.4)},
			{at: 4 * sec, obs: busy(0.92)},
			{at: 5 * sec, obs: busy(0.92)},
			{at: 6 * sec, obs: busy(0.92), want: []string{
				"cpu raised=6s updated=6s value=0.92 peak=0.92: High CPU usage: 92% busy (>= 90%) for at least 2 second(s)",
			}},
		},
	},
	{
		name: "peak is the highest value while raised, not while pending",
		cfg:  cpuOnly(0.9, 0.8, 1*sec),
		steps: []step{
			{at: 0, obs: busy(0.99)},
			{at: 1 * sec, obs: busy(0.93), want: []string{
				"cpu raised=1s updated=1s value=0.93 peak=0.93: High CPU usage: 93% busy (>= 90%) for at least 1 second(s)",
			}},
			{at: 2 * sec, obs: busy(0.97), want: []string{
				"cpu raised=1s updated=2s value=0.97 peak=0.97: High CPU usage: 97% busy (>= 90%) for at least 1 second(s)",
			}},
			{at: 3 * sec, obs: busy(0.91), want: []string{
				"cpu raised=1s updated=3s value=0.91 peak=0.97: High CPU usage: 91% busy (>= 90%) for at least 1 second(s)",
			}},
		},
	},
	{
		name: "a shorter hold time configured while pending raises on the next sample",
		cfg:  cpuOnly(0.9, 0.8, 10*sec),
		steps: []step{
			{at: 0, obs: busy(0.95)},
			{at: 3 * sec, obs: busy(0.95)},
			{at: 4 * sec, do: reconfigure(cpuOnly(0.925, 0.8, 1500*time.Millisecond)), obs: busy(0.95), want: []string{
				"cpu raised=4s updated=4s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 92.5%) for at least 1.5 second(s)",
			}},
		},
	},
	{
		name: "a warn raised above the value while pending resets the timer",
		cfg:  cpuOnly(0.9, 0.8, 2*sec),
		steps: []step{
			{at: 0, obs: busy(0.95)},
			{at: 1 * sec, do: reconfigure(cpuOnly(0.97, 0.9, 2*sec)), obs: busy(0.95)},
			{at: 2 * sec, obs: busy(0.98)},
			{at: 3 * sec, obs: busy(0.98)},
			{at: 4 * sec, obs: busy(0.98), want: []string{
				"cpu raised=4s updated=4s value=0.98 peak=0.98: High CPU usage: 98% busy (>= 97%) for at least 2 second(s)",
			}},
		},
	},
	{
		name: "a raised warning stays until the new clear and shows the new numbers",
		cfg:  cpuOnly(0.9, 0.8, 0),
		steps: []step{
			{at: 0, obs: busy(0.95), want: []string{
				"cpu raised=0s updated=0s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 0 second(s)",
			}},
			{at: 1 * sec, do: reconfigure(cpuOnly(0.99, 0.93, 5*sec)), obs: busy(0.94), want: []string{
				"cpu raised=0s updated=1s value=0.94 peak=0.95: High CPU usage: 94% busy (>= 99%) for at least 5 second(s)",
			}},
			{at: 2 * sec, obs: busy(0.93)},
		},
	},
	{
		name: "after a truncate a resource still above warn is raised again only after a full hold time",
		cfg:  cpuOnly(0.9, 0.8, 2*sec),
		steps: []step{
			{at: 0, obs: busy(0.95)},
			{at: 2 * sec, obs: busy(0.95), want: []string{
				"cpu raised=2s updated=2s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
			{at: 3 * sec, do: truncate, obs: busy(0.96)}, // a new run starts here
			{at: 4 * sec, obs: busy(0.96)},
			{at: 5 * sec, obs: busy(0.94), want: []string{
				"cpu raised=5s updated=5s value=0.94 peak=0.94: High CPU usage: 94% busy (>= 90%) for at least 2 second(s)",
			}},
		},
	},
	{
		name: "a truncated warning whose resource has recovered is simply gone",
		cfg:  cpuOnly(0.9, 0.8, 0),
		steps: []step{
			{at: 0, obs: busy(0.95), want: []string{
				"cpu raised=0s updated=0s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 0 second(s)",
			}},
			{at: 1 * sec, do: truncate, obs: busy(0.85)},
			{at: 2 * sec, obs: busy(0.5)},
		},
	},
	{
		name: "the suppress regexp hides a warning that is still tracked",
		cfg:  cpuOnly(0.9, 0.8, 0),
		steps: []step{
			{at: 0, obs: busy(0.95), want: []string{
				"cpu raised=0s updated=0s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 0 second(s)",
			}},
			{at: 1 * sec, do: suppress("^High CPU usage"), obs: busy(0.99)},
			{at: 2 * sec, obs: busy(0.85)},
			{at: 3 * sec, do: suppress(""), obs: busy(0.86), want: []string{
				"cpu raised=0s updated=3s value=0.86 peak=0.99: High CPU usage: 86% busy (>= 90%) for at least 0 second(s)",
			}},
			{at: 4 * sec, do: suppress("9\\d% busy"), obs: busy(0.9)},
			{at: 5 * sec, obs: busy(0.89), want: []string{
				"cpu raised=0s updated=5s value=0.89 peak=0.99: High CPU usage: 89% busy (>= 90%) for at least 0 second(s)",
			}},
		},
	},
	{
		name: "memory message with real-looking sizes",
		cfg:  DefaultConfig(),
		steps: []step{
			{at: 0, obs: memory(7_834_000_000, 8_589_934_592)},
			{at: 599 * sec, obs: memory(7_900_000_000, 8_589_934_592)},
			{at: 600 * sec, obs: memory(7_834_000_000, 8_589_934_592), want: []string{
				"memory raised=10m0s updated=10m0s value=0.912 peak=0.912: " +
					"High server memory usage: 7.83 GB of 8.59 GB used (91%) for at least 600 second(s)",
			}},
			{at: 601 * sec, obs: memory(7_100_000_000, 8_589_934_592), want: []string{
				"memory raised=10m0s updated=10m1s value=0.8265 peak=0.912: " +
					"High server memory usage: 7.10 GB of 8.59 GB used (83%) for at least 600 second(s)",
			}},
			{at: 602 * sec, obs: memory(950_000_000, 8_589_934_592)},
		},
	},
	{
		name: "unknown values neither raise, nor clear, nor hold a pending run",
		cfg:  cpuOnly(0.9, 0.8, 2*sec),
		steps: []step{
			{at: 0, obs: busy(0.95)},
			{at: 1 * sec, obs: Observation{CPUBusy: 0.95}}, // not known: the run is broken
			{at: 2 * sec, obs: busy(0.95)},
			{at: 3 * sec, obs: busy(0.95)},
			{at: 4 * sec, obs: busy(0.95), want: []string{
				"cpu raised=4s updated=4s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
			{at: 5 * sec, obs: Observation{CPUBusy: 0.1}, want: []string{ // unknown: kept as it is
				"cpu raised=4s updated=4s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
			{at: 6 * sec, obs: Observation{CPUBusy: math.NaN(), CPUKnown: true}, want: []string{
				"cpu raised=4s updated=4s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
			{at: 7 * sec, obs: busy(0.79)},
		},
	},
	{
		name: "an unknown value never raises, even with duration zero",
		cfg:  Config{CPU: Thresholds{Warn: 0.9, Clear: 0.8}, Memory: Thresholds{Warn: 0.9, Clear: 0.8}},
		steps: []step{
			{at: 0, obs: Observation{CPUBusy: 0.99, Memory: 0.99}},
			{at: 1 * sec, obs: Observation{CPUBusy: math.NaN(), CPUKnown: true, Memory: math.NaN(), MemoryKnown: true}},
		},
	},
	{
		name: "cpu and memory are tracked independently and listed by raise time",
		cfg: Config{
			CPU:    Thresholds{Warn: 0.9, Clear: 0.8, Duration: 2 * sec},
			Memory: Thresholds{Warn: 0.75, Clear: 0.5, Duration: 1 * sec},
		},
		steps: []step{
			{at: 0, obs: Observation{CPUBusy: 0.95, CPUKnown: true, Memory: 0.8, MemoryUsed: 800_000_000, MemoryLimit: 1_000_000_000, MemoryKnown: true}},
			{at: 1 * sec, obs: Observation{CPUBusy: 0.95, CPUKnown: true, Memory: 0.8, MemoryUsed: 800_000_000, MemoryLimit: 1_000_000_000, MemoryKnown: true}, want: []string{
				"memory raised=1s updated=1s value=0.8 peak=0.8: High server memory usage: 800.00 MB of 1.00 GB used (80%) for at least 1 second(s)",
			}},
			{at: 2 * sec, obs: Observation{CPUBusy: 0.95, CPUKnown: true, Memory: 0.6, MemoryUsed: 600_000_000, MemoryLimit: 1_000_000_000, MemoryKnown: true}, want: []string{
				"memory raised=1s updated=2s value=0.6 peak=0.8: High server memory usage: 600.00 MB of 1.00 GB used (60%) for at least 1 second(s)",
				"cpu raised=2s updated=2s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
			{at: 3 * sec, obs: Observation{CPUBusy: 0.95, CPUKnown: true, Memory: 0.5, MemoryUsed: 500_000_000, MemoryLimit: 1_000_000_000, MemoryKnown: true}, want: []string{
				"cpu raised=2s updated=3s value=0.95 peak=0.95: High CPU usage: 95% busy (>= 90%) for at least 2 second(s)",
			}},
		},
	},
}

func TestMonitorStories(t *testing.T) {
	for _, s := range stories {
		t.Run(s.name, func(t *testing.T) {
			reg := NewRegistry()
			mon := NewMonitor(reg, s.cfg, nil)
			for _, st := range s.steps {
				if st.do != nil {
					st.do(mon, reg)
				}
				mon.Observe(at(st.at), st.obs)
				list := reg.List()
				var got []string
				for _, w := range list {
					got = append(got, row(w))
					checkIdentity(t, w)
				}
				if !slices.Equal(got, st.want) {
					t.Fatalf("after the sample at %v:\n got: %s\nwant: %s", st.at, strings.Join(got, "\n      "), strings.Join(st.want, "\n      "))
				}
				if reg.Len() != len(st.want) {
					t.Fatalf("after the sample at %v: Len() = %d, want %d", st.at, reg.Len(), len(st.want))
				}
			}
		})
	}
}

func checkIdentity(t *testing.T, w Warning) {
	t.Helper()
	formats := map[string]string{KeyCPU: CPUMessageFormat, KeyMemory: MemoryMessageFormat}
	if w.Resource != w.Key || w.MessageFormat != formats[w.Key] {
		t.Fatalf("warning %q: resource %q, format %q; want resource %q, format %q",
			w.Key, w.Resource, w.MessageFormat, w.Key, formats[w.Key])
	}
}

// records keeps log records as "LEVEL message resource=…" lines.
type records struct {
	mu    sync.Mutex
	lines []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }

func (r *records) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Level.String() + " " + rec.Message
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "resource" {
			line += " resource=" + a.Value.String()
		}
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	return nil
}

func TestMonitorLogsRaiseAndClearOnce(t *testing.T) {
	log := &records{}
	reg := NewRegistry()
	mon := NewMonitor(reg, cpuOnly(0.9, 0.8, 1*sec), slog.New(log))

	values := []float64{0.95, 0.95, 0.97, 0.85, 0.99, 0.95, 0.5, 0.4, 0.95, 0.95, 0.95, 0.95}
	for i, v := range values {
		if i == 10 {
			reg.Truncate()
		}
		mon.Observe(at(time.Duration(i)*sec), busy(v))
	}
	want := []string{
		"WARN overload warning raised resource=cpu",
		"INFO overload warning cleared resource=cpu",
		"WARN overload warning raised resource=cpu",
		"INFO overload warning was truncated; its hold time starts again resource=cpu",
		"WARN overload warning raised resource=cpu",
	}
	if !slices.Equal(log.lines, want) {
		t.Fatalf("log:\n got: %s\nwant: %s", strings.Join(log.lines, "\n      "), strings.Join(want, "\n      "))
	}
}

func TestMonitorConfigRoundTrip(t *testing.T) {
	mon := NewMonitor(NewRegistry(), DefaultConfig(), nil)
	cfg := cpuOnly(0.7, 0.6, 30*sec)
	mon.SetConfig(cfg)
	if got := mon.Config(); got != cfg {
		t.Fatalf("Config() = %+v, want %+v", got, cfg)
	}
}

// TestMonitorConcurrentUse is for -race: samples, reloads and table reads at
// once, each a bounded loop.
func TestMonitorConcurrentUse(t *testing.T) {
	reg := NewRegistry()
	mon := NewMonitor(reg, cpuOnly(0.9, 0.8, 0), slog.New(&records{}))
	const rounds = 500
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range rounds {
			mon.Observe(at(time.Duration(i)*time.Millisecond), Observation{
				CPUBusy: float64(i%10) / 10, CPUKnown: true,
				Memory: float64(i%7) / 7, MemoryUsed: uint64(i), MemoryLimit: rounds, MemoryKnown: true,
			})
		}
	})
	wg.Go(func() {
		for i := range rounds {
			mon.SetConfig(cpuOnly(0.9, float64(i%8)/10, time.Duration(i%3)*time.Millisecond))
			mon.Config()
		}
	})
	wg.Go(func() {
		for i := range rounds {
			reg.List()
			reg.Len()
			if i%25 == 0 {
				reg.Truncate()
			}
		}
	})
	wg.Wait()
	for _, w := range reg.List() {
		if w.Peak < w.Value {
			t.Fatalf("warning %q: peak %v below value %v", w.Key, w.Peak, w.Value)
		}
	}
}
