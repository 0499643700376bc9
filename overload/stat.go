package overload

import "fmt"

// cpuTimes are the host-wide CPU time counters of the "cpu" line of
// /proc/stat, in clock ticks, and the number of "cpuN" lines.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
	cpus                                                  int
}

// total is the sum of the states a CPU can be in (guest time is already
// inside user and nice).
func (c cpuTimes) total() uint64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal
}

// statReader reads /proc/stat.
type statReader struct{ file *procFile }

func newStatReader(procRoot string) *statReader {
	return &statReader{file: newProcFile(procRoot+"/stat", 4096)}
}

func (r *statReader) read() (cpuTimes, error) {
	content, err := r.file.read()
	if err != nil {
		return cpuTimes{}, err
	}
	c, err := parseStat(content)
	if err != nil {
		return cpuTimes{}, fmt.Errorf("parse %s: %w", r.file.path, err)
	}
	return c, nil
}

func parseStat(content []byte) (cpuTimes, error) {
	var c cpuTimes
	found := false
	for range len(content) + 1 {
		if len(content) == 0 {
			break
		}
		var line []byte
		line, content = nextLine(content)
		if !hasPrefix(line, "cpu") {
			continue
		}
		if len(line) > 3 && line[3] >= '0' && line[3] <= '9' {
			c.cpus++
			continue
		}
		if err := parseCPULine(line[3:], &c); err != nil {
			return cpuTimes{}, err
		}
		found = true
	}
	if !found {
		return cpuTimes{}, fmt.Errorf("no cpu line")
	}
	if c.cpus == 0 {
		return cpuTimes{}, fmt.Errorf("no cpuN lines")
	}
	return c, nil
}

// parseCPULine reads the fields after "cpu"; kernels before 2.6.11 lack
// steal, so only user, nice, system and idle are required.
func parseCPULine(b []byte, c *cpuTimes) error {
	dst := [...]*uint64{&c.user, &c.nice, &c.system, &c.idle, &c.iowait, &c.irq, &c.softirq, &c.steal}
	for i, p := range dst {
		var f []byte
		f, b = nextField(b)
		if len(f) == 0 {
			if i < 4 {
				return fmt.Errorf("cpu line has %d fields, want at least 4", i)
			}
			return nil
		}
		v, err := parseUint(f)
		if err != nil {
			return fmt.Errorf("cpu line: %w", err)
		}
		*p = v
	}
	return nil
}
