package overload

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Sampler measures the process's CPU overload and memory, and publishes an
// immutable Snapshot after every sample.
type Sampler struct {
	current      atomic.Pointer[Snapshot]
	settings     atomic.Pointer[Settings]
	reconfigured chan struct{}
	clock        func() time.Time
	logger       *slog.Logger
	onSample     func(*Snapshot)
	queueWait    func() time.Duration

	mu          sync.Mutex // serializes samples and republishing
	simulation  Simulation
	measured    *Snapshot // the newest snapshot without simulation
	readers     *readers
	samples     sampleRing
	counters    Counters
	goBound     *goWaitBound
	failing     map[string]bool // sources whose failure was logged
	unavailable []Unavailable   // failures of the sample in progress
}

// NewSampler returns a Sampler that has published an empty snapshot.
func NewSampler(cfg Config) *Sampler {
	return newSampler(cfg, newGoSchedWait())
}

// newSampler takes the Go run-queue source separately, so tests can replace
// the runtime's histogram with a synthetic sequence.
func newSampler(cfg Config, goWait goWaitSource) *Sampler {
	if cfg.ProcRoot == "" {
		cfg.ProcRoot = "/proc"
	}
	if cfg.CgroupRoot == "" {
		cfg.CgroupRoot = "/sys/fs/cgroup"
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Sampler{
		reconfigured: make(chan struct{}, 1),
		clock:        cfg.Clock,
		logger:       cfg.Logger,
		onSample:     cfg.OnSample,
		queueWait:    cfg.QueueWait,
		simulation:   NoSimulation(),
		readers:      newReaders(cfg.ProcRoot, cfg.CgroupRoot, goWait),
		goBound:      newGoWaitBound(cfg.RunningStatements),
		failing:      make(map[string]bool),
	}
	s.readers.busyShare = func() (float64, int) { return s.goBound.busyShare() }
	settings := cfg.Settings.withDefaults()
	s.settings.Store(&settings)
	s.samples.resize(settings.ringSize())
	s.measured = &Snapshot{Time: s.clock(), Simulation: s.simulation}
	s.current.Store(s.measured)
	return s
}

// Run samples at once and then every Interval until ctx is done. A change
// of Interval by Reconfigure takes effect at once.
func (s *Sampler) Run(ctx context.Context) {
	interval := s.settings.Load().Interval
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	s.Sample()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.reconfigured:
			if next := s.settings.Load().Interval; next != interval {
				interval = next
				ticker.Reset(interval)
			}
		case <-ticker.C:
			s.Sample()
		}
	}
}

// Sample takes one sample now and publishes it.
func (s *Sampler) Sample() {
	snap := s.sample()
	if s.onSample != nil {
		s.onSample(snap)
	}
}

func (s *Sampler) sample() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	settings := *s.settings.Load()
	s.samples.resize(settings.ringSize())

	s.unavailable = nil
	smp := sample{at: s.clock()}
	var g gauges
	s.readers.read(&smp, &g, s.report)
	if s.queueWait != nil {
		smp.queueWait, smp.queueWaitOK = uint64(s.queueWait()), true
	}
	smp.goWaitRaw, smp.kernelWaitRaw = smp.goWait, smp.threads.wait
	smp.goExcess, smp.kernelWanted = s.goBound.advance(smp.at)
	previous := s.samples.newestOrNil()
	s.samples.push(smp)
	base := s.samples.baseline(settings.Window, settings.Interval/2)
	newest := s.samples.newest()
	if s.goBound.bounded() && newest.goWaitOK {
		newest.goWait = 0
		if previous != nil && previous.goWaitOK && base.goWaitOK {
			newest.goWait = boundedWait(base, previous, newest)
		}
	}
	if s.goBound.bounded() && newest.threadsOK {
		newest.threads.wait = 0
		if previous != nil && previous.threadsOK && base.threadsOK {
			newest.threads.wait = boundedKernelWait(base, previous, newest)
		}
	}

	if newest.threadsOK {
		s.counters.BusyMicros = newest.threads.busy / 1000
		s.counters.KernelWaitMicros = newest.threads.wait / 1000
	}
	if newest.goWaitOK {
		s.counters.GoWaitMicros = newest.goWait / 1000
	}
	s.counters.QueueWaitMicros = newest.queueWait / 1000
	s.measured = measure(base, newest, &g, settings, s.counters, s.unavailable)
	return s.publish()
}

// publish stores the measured snapshot with the simulation applied.
func (s *Sampler) publish() *Snapshot {
	snap := s.measured.simulated(s.simulation)
	s.current.Store(snap)
	return snap
}

// report records a reader's outcome. A failure is listed in the snapshot
// every time, but logged only when the source starts failing; a recovery is
// logged once too.
func (s *Sampler) report(source string, err error) {
	if err == nil {
		if s.failing[source] {
			s.failing[source] = false
			s.logger.Info("overload measurement source recovered", "source", source)
		}
		return
	}
	s.unavailable = append(s.unavailable, Unavailable{Source: source, Reason: err.Error()})
	if !s.failing[source] {
		s.failing[source] = true
		s.logger.Warn("overload measurement source unavailable; measuring without it", "source", source, "reason", err.Error())
	}
}

// Snapshot returns the newest published snapshot; never nil.
func (s *Sampler) Snapshot() *Snapshot { return s.current.Load() }

// Overload returns the current effective overload ratio (OSCPUOverload)
// with one atomic load: it is read by every statement and connection.
func (s *Sampler) Overload() float64 { return s.current.Load().Overload }

// Reconfigure replaces the settings; zero values take defaults. The next
// sample uses them. Safe concurrently with Run.
func (s *Sampler) Reconfigure(settings Settings) {
	settings = settings.withDefaults()
	s.settings.Store(&settings)
	select {
	case s.reconfigured <- struct{}{}:
	default:
	}
}

// Simulate replaces measured values with sim (negative values are off) and
// republishes the current snapshot with it at once. OnSample sees it with
// the next sample.
func (s *Sampler) Simulate(sim Simulation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.simulation = sim
	s.publish()
}

// Simulation returns the current simulation.
func (s *Sampler) Simulation() Simulation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.simulation
}

// Close releases the kept-open kernel files. Call it after Run has returned;
// a later Sample reopens them.
func (s *Sampler) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readers.close()
}
