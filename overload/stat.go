package overload

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// cpuTimes are the host-wide CPU times of /proc/stat (procfs's FS.Stat, in
// seconds) and the number of CPUs it lists.
type cpuTimes struct {
	procfs.CPUStat
	cpus int
}

// total is the sum of the states a CPU can be in (guest time is already
// inside user and nice).
func (c cpuTimes) total() float64 {
	return c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
}

// readHostCPU reads /proc/stat. A file without per-CPU lines is not a
// kernel's: it is refused rather than read as an idle host.
func readHostCPU(src *procSource) (cpuTimes, error) {
	fs, err := src.fsys()
	if err != nil {
		return cpuTimes{}, err
	}
	st, err := fs.Stat()
	if err != nil {
		return cpuTimes{}, err
	}
	if len(st.CPU) == 0 {
		return cpuTimes{}, fmt.Errorf("parse %s/stat: no cpuN lines", src.root)
	}
	return cpuTimes{CPUStat: st.CPUTotal, cpus: len(st.CPU)}, nil
}
