package overload

import (
	"errors"
	"runtime"
	"syscall"

	"github.com/prometheus/procfs"
)

// Source names, as listed in Snapshot.Unavailable and the log.
const (
	sourceThreads      = "per-thread schedstat"
	sourceGoScheduler  = "Go scheduler latencies"
	sourceStat         = "/proc/stat"
	sourceMemInfo      = "/proc/meminfo"
	sourceRSS          = "process RSS"
	sourceCgroup       = "cgroup"
	sourceCgroupMemory = "cgroup memory"
	sourceCgroupCPU    = "cgroup CPU"
	sourcePSICPU       = "PSI cpu"
	sourcePSIMemory    = "PSI memory"
)

// gauges are the current values of one sample that need no window.
type gauges struct {
	memInfo       memInfo
	memInfoOK     bool
	rss           uint64
	rssOK         bool
	cgroupMemory  cgroupMemory
	cgroupMemOK   bool
	psiCPU        pressure
	psiCPUOK      bool
	psiMemory     pressure
	psiMemoryOK   bool
	cgroupQuota   float64
	cgroupQuotaOK bool
}

// readers are the sources of one sample: procfs over the proc root, and the
// cgroup controller files under the cgroup root. report is told the outcome of every reader, so the
// sampler can list and log failures; a failed reader only leaves its values
// out (fail open).
type readers struct {
	proc           *procSource
	cgroupRoot     string
	threads        *threadReader
	goWait         goWaitSource
	processCPU     func() (uint64, error) // the process's CPU time, ns, without /proc
	cgroupResolved bool
	// cgroupSeen is the membership the cgroup was resolved from, read again every
	// cgroupRecheckEvery samples: a process moved to another cgroup (a new quota) is measured
	// against the new one.
	cgroupSeen    []procfs.Cgroup
	cgroupSamples int
	cgroupMemory  *cgroupMemoryReader
	cgroupCPU     *cgroupCPUReader
	// kernelWait is the cumulative kernel run-queue wait as kernelWait counts it, ns;
	// throttled is the cgroup's throttled time at the last read.
	kernelWait     uint64
	throttled      uint64
	throttledKnown bool
	// busyShare is the share of the processors the server's work wants now, negative when
	// unknown (see kernelWait).
	busyShare func() (share float64, procs int)
}

func newReaders(procRoot, cgroupRoot string, goWait goWaitSource) *readers {
	proc := newProcSource(procRoot)
	return &readers{
		proc:       proc,
		cgroupRoot: cgroupRoot,
		threads:    newThreadReader(proc),
		busyShare:  func() (float64, int) { return -1, runtime.GOMAXPROCS(0) },
		goWait:     goWait,
		processCPU: rusageCPU,
	}
}

// read fills the counters of s and the gauges g.
func (r *readers) read(s *sample, g *gauges, report func(source string, err error)) {
	var err error
	s.threads, err = r.threads.read()
	s.threadsOK = err == nil
	report(sourceThreads, err)

	s.goWait, err = r.goWait.read()
	s.goWaitOK = err == nil
	report(sourceGoScheduler, err)

	s.processCPU, err = r.processCPU()
	s.processCPUOK = err == nil

	s.cpu, err = readHostCPU(r.proc)
	s.cpuOK = err == nil
	report(sourceStat, err)

	g.memInfo, err = readMemInfo(r.proc)
	g.memInfoOK = err == nil
	report(sourceMemInfo, err)

	g.rss, err = readRSS(r.proc)
	g.rssOK = err == nil
	report(sourceRSS, err)

	g.psiCPU, g.psiCPUOK = r.readPSI("cpu", sourcePSICPU, report)
	g.psiMemory, g.psiMemoryOK = r.readPSI("memory", sourcePSIMemory, report)

	throttled, throttledOK := r.readCgroup(s, g, report)
	if s.threadsOK {
		var delta uint64
		if throttledOK && r.throttledKnown && throttled >= r.throttled {
			delta = throttled - r.throttled
		}
		share, procs := r.busyShare()
		r.kernelWait += kernelWait(r.threads.interval, delta, throttledOK && r.throttledKnown, share, procs)
		s.threads.wait = r.kernelWait
	}
	r.throttled, r.throttledKnown = throttled, throttledOK
}

// readPSI treats a kernel without PSI (no file, or psi=0 at boot) as an
// absent source, not a failure.
func (r *readers) readPSI(resource, source string, report func(string, error)) (pressure, bool) {
	p, err := readPressure(r.proc, resource)
	if isNotExist(err) || errors.Is(err, syscall.EOPNOTSUPP) {
		report(source, nil)
		return pressure{}, false
	}
	report(source, err)
	return p, err == nil
}

// readCgroup resolves the own cgroup on first use (and again after a failed
// resolution), then reads its memory and CPU files. It returns the cgroup's
// cumulative throttled time when there is a quota and the kernel reports it.
func (r *readers) readCgroup(s *sample, g *gauges, report func(string, error)) (throttled uint64, throttledOK bool) {
	if r.cgroupResolved {
		r.recheckCgroup()
	}
	if !r.cgroupResolved {
		cgroups, err := readCgroups(r.proc)
		var dirs cgroupDirs
		if err == nil {
			dirs, err = resolveCgroup(cgroups, r.cgroupRoot)
		}
		report(sourceCgroup, err)
		if err != nil {
			return 0, false
		}
		r.cgroupResolved, r.cgroupSeen = true, cgroups
		if dirs.memory != "" {
			r.cgroupMemory = newCgroupMemoryReader(dirs.memory, dirs.memoryV2)
		}
		if dirs.cpu != "" {
			r.cgroupCPU = newCgroupCPUReader(dirs)
		}
	}
	if r.cgroupMemory != nil {
		var err error
		g.cgroupMemory, err = r.cgroupMemory.read()
		g.cgroupMemOK = err == nil
		report(sourceCgroupMemory, err)
	}
	if r.cgroupCPU != nil {
		c, err := r.cgroupCPU.read()
		report(sourceCgroupCPU, err)
		g.cgroupQuota, g.cgroupQuotaOK = c.quota, err == nil && c.quota > 0
		s.cgroupQuota, s.cgroupUsage, s.cgroupOK = c.quota, c.usage, err == nil && c.quota > 0
		return c.throttled, err == nil && c.throttledOK
	}
	return 0, false
}

// recheckCgroup forgets the resolved cgroup when the membership changed.
func (r *readers) recheckCgroup() {
	r.cgroupSamples++
	if r.cgroupSamples < cgroupRecheckEvery {
		return
	}
	r.cgroupSamples = 0
	cgroups, err := readCgroups(r.proc)
	if err != nil || sameCgroups(cgroups, r.cgroupSeen) {
		return
	}
	r.cgroupResolved = false
	r.throttledKnown = false
	if r.cgroupMemory != nil {
		r.cgroupMemory.close()
		r.cgroupMemory = nil
	}
	if r.cgroupCPU != nil {
		r.cgroupCPU.close()
		r.cgroupCPU = nil
	}
}

// cgroupRecheckEvery is how many samples pass between two looks at /proc/self/cgroup.
const cgroupRecheckEvery = 10

func (r *readers) close() {
	r.threads.close()
	if r.cgroupMemory != nil {
		r.cgroupMemory.close()
	}
	if r.cgroupCPU != nil {
		r.cgroupCPU.close()
	}
}

// rusageCPU is the process's user and system CPU time from getrusage: the busy time of the Go
// part when the per-thread files cannot be read (it needs no /proc).
func rusageCPU() (uint64, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return uint64(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
