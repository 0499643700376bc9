package overload

import (
	"math"
	"time"
)

// measure computes a snapshot from the window's two ends and the current
// gauges. All ratios follow one rule: wait / busy over the window, 0 when the
// busy time is at or under the threshold (too little work to call the CPU
// overloaded) or nothing waited.
func measure(base, newest *sample, g *gauges, settings Settings, counters Counters, unavailable []Unavailable) *Snapshot {
	span := newest.at.Sub(base.at)
	snap := &Snapshot{
		Time:        newest.at,
		Window:      span,
		Counters:    counters,
		Unavailable: unavailable,
		Simulation:  NoSimulation(),
		Metrics:     make([]Metric, 0, 20),
	}
	busyKnown := span > 0 && base.threadsOK && newest.threadsOK
	var busy uint64
	if busyKnown {
		busy = newest.threads.busy - base.threads.busy
	}
	kernelKnown := busyKnown
	if kernelKnown {
		snap.KernelOverload = waitRatio(newest.threads.wait-base.threads.wait, busy, settings.BusyThreshold)
	}
	// Without the per-thread files the kernel part is blind (0), but the Go part still has a
	// denominator: the process's CPU time from getrusage.
	goBusy, goBusyKnown := busy, busyKnown
	if !busyKnown && span > 0 && base.processCPUOK && newest.processCPUOK && newest.processCPU >= base.processCPU {
		goBusy, goBusyKnown = newest.processCPU-base.processCPU, true
	}
	goKnown := goBusyKnown && base.goWaitOK && newest.goWaitOK
	if goKnown {
		snap.GoOverload = waitRatio(newest.goWait-base.goWait, goBusy, settings.BusyThreshold)
	}
	// A statement waiting for a CPU slot is work waiting for a CPU: its wait counts like a
	// runnable goroutine's, over the same busy time.
	queueKnown := goBusyKnown && base.queueWaitOK && newest.queueWaitOK
	if queueKnown {
		snap.QueueOverload = waitRatio(newest.queueWait-base.queueWait, goBusy, settings.BusyThreshold)
	}
	snap.Overload = snap.KernelOverload + snap.GoOverload + snap.QueueOverload

	snap.add("OSCPUOverload", snap.Overload, true)
	snap.add("KernelRunQueueOverload", snap.KernelOverload, kernelKnown)
	snap.add("GoRunQueueOverload", snap.GoOverload, goKnown)
	snap.add("AdmissionQueueOverload", snap.QueueOverload, queueKnown)

	hostKnown := span > 0 && base.cpuOK && newest.cpuOK && newest.cpu.total() > base.cpu.total()
	if hostKnown {
		n, b := newest.cpu, base.cpu
		total := n.total() - b.total()
		idle := (n.Idle - b.Idle) / total
		snap.add("OSIdleTimeNormalized", idle, true)
		snap.add("OSUserTimeNormalized", (n.User+n.Nice-b.User-b.Nice)/total, true)
		snap.add("OSSystemTimeNormalized", (n.System+n.IRQ+n.SoftIRQ-b.System-b.IRQ-b.SoftIRQ)/total, true)
		snap.CPUBusy, snap.CPUBusyKnown = 1-idle, true
	}
	if span > 0 && base.cgroupOK && newest.cgroupOK && newest.cgroupUsage >= base.cgroupUsage {
		capacity := newest.cgroupQuota
		if newest.cpuOK {
			capacity = min(capacity, float64(newest.cpu.cpus))
		}
		used := float64(newest.cgroupUsage-base.cgroupUsage) / (float64(span) * capacity)
		snap.CPUBusy, snap.CPUBusyKnown = math.Min(math.Max(used, 0), 1), true
	}
	snap.add("CPUBusyRatio", snap.CPUBusy, snap.CPUBusyKnown)

	snap.add("MemoryResident", float64(g.rss), g.rssOK)
	snap.add("OSMemoryTotal", float64(g.memInfo.total), g.memInfoOK)
	snap.add("OSMemoryAvailable", float64(g.memInfo.available), g.memInfoOK)
	cgroupLimited := g.cgroupMemOK && g.cgroupMemory.limit > 0
	snap.add("CGroupMemoryTotal", float64(g.cgroupMemory.limit), cgroupLimited)
	snap.add("CGroupMemoryUsed", float64(g.cgroupMemory.usage), cgroupLimited)
	measureMemory(snap, g, cgroupLimited, settings.MaxServerMemory)
	snap.add("MemoryOverloadRatio", snap.Memory, snap.MemoryKnown)

	snap.add("CGroupMaxCPU", g.cgroupQuota, g.cgroupQuotaOK)
	snap.add("PSICPUSomeAvg10", g.psiCPU.some, g.psiCPUOK)
	snap.add("PSIMemorySomeAvg10", g.psiMemory.some, g.psiMemoryOK)
	snap.add("PSIMemoryFullAvg10", g.psiMemory.full, g.psiMemoryOK)
	return snap
}

// waitRatio is wait / busy, or 0 when busy <= threshold or wait is 0.
func waitRatio(wait, busy uint64, threshold time.Duration) float64 {
	if busy <= uint64(threshold) || wait == 0 {
		return 0
	}
	return float64(wait) / float64(busy)
}

// measureMemory sets the memory ratio: with a cgroup memory limit, usage
// without inactive file cache over the limit; without one, the resident set
// over host memory. max_server_memory_usage replaces the denominator.
func measureMemory(snap *Snapshot, g *gauges, cgroupLimited bool, maxServerMemory uint64) {
	switch {
	case cgroupLimited:
		snap.MemoryUsed, snap.MemoryLimit = g.cgroupMemory.used(), g.cgroupMemory.limit
	case g.rssOK:
		snap.MemoryUsed = g.rss
		if g.memInfoOK {
			snap.MemoryLimit = g.memInfo.total
		}
	default:
		return
	}
	if maxServerMemory > 0 {
		snap.MemoryLimit = maxServerMemory
	}
	if snap.MemoryLimit > 0 {
		snap.Memory = float64(snap.MemoryUsed) / float64(snap.MemoryLimit)
		snap.MemoryKnown = true
	}
}

// add appends the metric row name when its source is known.
func (s *Snapshot) add(name string, value float64, known bool) {
	if known {
		s.Metrics = append(s.Metrics, Metric{Name: name, Value: value, Description: descriptions[name]})
	}
}

// simulated returns the snapshot with sim's active values in place of the
// measured ones, in the fields and in the metric rows; s itself when sim is
// off.
func (s *Snapshot) simulated(sim Simulation) *Snapshot {
	if !sim.Active() {
		return s
	}
	c := *s
	c.Simulation = sim
	c.Metrics = append(make([]Metric, 0, len(s.Metrics)+2), s.Metrics...)
	if sim.Overload >= 0 {
		c.Overload = sim.Overload
		c.set("OSCPUOverload", sim.Overload)
	}
	if sim.CPUBusy >= 0 {
		c.CPUBusy, c.CPUBusyKnown = sim.CPUBusy, true
		c.set("CPUBusyRatio", sim.CPUBusy)
	}
	if sim.Memory >= 0 {
		c.Memory, c.MemoryKnown = sim.Memory, true
		c.set("MemoryOverloadRatio", sim.Memory)
	}
	return &c
}

// set replaces the value of the row name, appending the row if it is absent.
func (s *Snapshot) set(name string, value float64) {
	for i := range s.Metrics {
		if s.Metrics[i].Name == name {
			s.Metrics[i].Value = value
			return
		}
	}
	s.add(name, value, true)
}
