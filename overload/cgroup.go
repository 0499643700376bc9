package overload

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/prometheus/procfs"
)

// cgroupDirs are the directories of the own cgroup that hold the memory and
// CPU files. An empty path means the controller was not found. On a hybrid
// host (v1 controllers and a v2 tree side by side) the v1 controller wins,
// because that is where the limits are enforced.
type cgroupDirs struct {
	memory   string
	memoryV2 bool
	cpu      string // cpu.cfs_quota_us (v1) or cpu.max and cpu.stat (v2)
	cpuV2    bool
	cpuacct  string // cpuacct.usage (v1 only)
}

// readCgroups reads the own process's cgroup membership (procfs's
// Proc.Cgroups): "hierarchy-id:controller,list:/path" lines (v1) or "0::/path"
// (v2).
func readCgroups(src *procSource) ([]procfs.Cgroup, error) {
	p, err := src.proc()
	if err != nil {
		return nil, err
	}
	cgroups, err := p.Cgroups()
	if err != nil {
		return nil, fmt.Errorf("read %s/%d/cgroup: %w", src.root, p.PID, err)
	}
	return cgroups, nil
}

// resolveCgroup finds the directories of the own cgroups under the mount
// root cgroupRoot.
func resolveCgroup(cgroups []procfs.Cgroup, cgroupRoot string) (cgroupDirs, error) {
	var dirs cgroupDirs
	v2Path, v2 := "", false
	for _, cg := range cgroups {
		if !strings.HasPrefix(cg.Path, "/") {
			return cgroupDirs{}, fmt.Errorf("cgroup of hierarchy %d: %q is not an absolute path", cg.HierarchyID, cg.Path)
		}
		if len(cg.Controllers) == 0 {
			v2Path, v2 = cg.Path, true
			continue
		}
		for _, c := range cg.Controllers {
			switch c {
			case "memory":
				dirs.memory = v1Dir(cgroupRoot, cg.Path, "memory")
			case "cpu":
				dirs.cpu = v1Dir(cgroupRoot, cg.Path, "cpu", "cpu,cpuacct", "cpuacct,cpu")
			case "cpuacct":
				dirs.cpuacct = v1Dir(cgroupRoot, cg.Path, "cpuacct", "cpu,cpuacct", "cpuacct,cpu")
			}
		}
	}
	if v2 && isDir(cgroupRoot) && fileExists(cgroupRoot+"/cgroup.controllers") {
		dir := cgroupRoot + strings.TrimSuffix(v2Path, "/")
		if !isDir(dir) {
			dir = cgroupRoot
		}
		if dirs.memory == "" {
			dirs.memory, dirs.memoryV2 = dir, true
		}
		if dirs.cpu == "" {
			dirs.cpu, dirs.cpuV2 = dir, true
		}
	}
	return dirs, nil
}

// sameCgroups reports whether two readings of the membership agree.
func sameCgroups(a, b []procfs.Cgroup) bool {
	return slices.EqualFunc(a, b, func(x, y procfs.Cgroup) bool {
		return x.HierarchyID == y.HierarchyID && x.Path == y.Path && slices.Equal(x.Controllers, y.Controllers)
	})
}

// v1Dir returns the directory of cgPath under the first existing mount of a
// v1 controller. Inside a container without a cgroup namespace the path
// names the host's cgroup, which the container sees as its mount root, so
// the mount root is the fallback.
func v1Dir(cgroupRoot, cgPath string, mounts ...string) string {
	for _, m := range mounts {
		mount := cgroupRoot + "/" + m
		if !isDir(mount) {
			continue
		}
		if dir := mount + strings.TrimSuffix(cgPath, "/"); isDir(dir) {
			return dir
		}
		return mount
	}
	return ""
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// unlimitedV1 is the smallest value treated as "no limit" in a v1 limit file:
// the kernel writes PAGE_COUNTER_MAX pages (9223372036854771712 with 4 KiB
// pages), and no real limit comes near 2^62 bytes.
const unlimitedV1 = 1 << 62

// cgroupMemory is the memory of the own cgroup in bytes; limit 0 means none.
type cgroupMemory struct{ limit, usage, inactiveFile uint64 }

// used is the usage the memory ratio counts: inactive file cache can be
// reclaimed at once, so it is not pressure.
func (m cgroupMemory) used() uint64 {
	if m.inactiveFile > m.usage {
		return 0
	}
	return m.usage - m.inactiveFile
}

// cgroupMemoryReader reads v1 memory.limit_in_bytes, memory.usage_in_bytes
// and memory.stat total_inactive_file, or v2 memory.max, memory.current and
// memory.stat inactive_file.
type cgroupMemoryReader struct {
	limit, usage, stat *procFile
	inactiveKey        string
	v2                 bool
}

func newCgroupMemoryReader(dir string, v2 bool) *cgroupMemoryReader {
	if v2 {
		return &cgroupMemoryReader{
			limit: newProcFile(dir+"/memory.max", 64), usage: newProcFile(dir+"/memory.current", 64),
			stat: newProcFile(dir+"/memory.stat", 4096), inactiveKey: "inactive_file", v2: true,
		}
	}
	return &cgroupMemoryReader{
		limit: newProcFile(dir+"/memory.limit_in_bytes", 64), usage: newProcFile(dir+"/memory.usage_in_bytes", 64),
		stat: newProcFile(dir+"/memory.stat", 4096), inactiveKey: "total_inactive_file",
	}
}

// read returns the limit, and usage only when there is a limit (the rows
// CGroupMemoryUsed and the cgroup memory ratio exist only then). A missing
// limit file means no limit: the v2 root cgroup has none.
func (r *cgroupMemoryReader) read() (cgroupMemory, error) {
	content, err := r.limit.read()
	if isNotExist(err) {
		return cgroupMemory{}, nil
	}
	if err != nil {
		return cgroupMemory{}, err
	}
	limit, err := r.parseLimit(trimSpace(content))
	if err != nil || limit == 0 {
		return cgroupMemory{}, err
	}
	m := cgroupMemory{limit: limit}
	if content, err = r.usage.read(); err != nil {
		return cgroupMemory{}, err
	}
	if m.usage, err = parseUint(trimSpace(content)); err != nil {
		return cgroupMemory{}, fmt.Errorf("parse %s: %w", r.usage.path, err)
	}
	if content, err = r.stat.read(); err != nil {
		return cgroupMemory{}, err
	}
	if m.inactiveFile, err = uintKey(content, r.inactiveKey, r.stat.path); err != nil {
		return cgroupMemory{}, err
	}
	return m, nil
}

func (r *cgroupMemoryReader) parseLimit(b []byte) (uint64, error) {
	if r.v2 && bytes.Equal(b, []byte("max")) {
		return 0, nil
	}
	limit, err := parseUint(b)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", r.limit.path, err)
	}
	if limit >= unlimitedV1 {
		return 0, nil
	}
	return limit, nil
}

func (r *cgroupMemoryReader) close() {
	r.limit.close()
	r.usage.close()
	r.stat.close()
}

// cgroupCPU is the CPU quota of the own cgroup in CPUs (0 means none) and,
// with a quota, its cumulative CPU usage in nanoseconds.
type cgroupCPU struct {
	quota float64
	usage uint64
	// throttled is the cumulative time the cgroup's run queues spent throttled by the quota, ns
	// (cpu.stat throttled_time in v1, throttled_usec in v2); throttledOK when the file has it.
	throttled   uint64
	throttledOK bool
}

// cgroupCPUReader reads v1 cpu.cfs_quota_us, cpu.cfs_period_us and
// cpuacct.usage, or v2 cpu.max and cpu.stat usage_usec.
type cgroupCPUReader struct {
	quota, period, usage *procFile
	stat                 *procFile // v1 cpu.stat (throttling); in v2 usage is cpu.stat
	v2                   bool
}

func newCgroupCPUReader(dirs cgroupDirs) *cgroupCPUReader {
	if dirs.cpuV2 {
		return &cgroupCPUReader{
			quota: newProcFile(dirs.cpu+"/cpu.max", 64), usage: newProcFile(dirs.cpu+"/cpu.stat", 512), v2: true,
		}
	}
	r := &cgroupCPUReader{
		quota: newProcFile(dirs.cpu+"/cpu.cfs_quota_us", 64), period: newProcFile(dirs.cpu+"/cpu.cfs_period_us", 64),
		stat: newProcFile(dirs.cpu+"/cpu.stat", 256),
	}
	if dirs.cpuacct != "" {
		r.usage = newProcFile(dirs.cpuacct+"/cpuacct.usage", 64)
	}
	return r
}

// read returns the quota, and usage only when there is one. A missing quota
// file means no quota.
func (r *cgroupCPUReader) read() (cgroupCPU, error) {
	quota, err := r.readQuota()
	if err != nil || quota == 0 {
		return cgroupCPU{}, err
	}
	if r.usage == nil {
		return cgroupCPU{}, fmt.Errorf("cgroup v1 CPU quota of %g CPUs but no cpuacct controller for its usage", quota)
	}
	content, err := r.usage.read()
	if err != nil {
		return cgroupCPU{}, err
	}
	c := cgroupCPU{quota: quota}
	if r.v2 {
		usec, err := uintKey(content, "usage_usec", r.usage.path)
		if err != nil {
			return cgroupCPU{}, err
		}
		c.usage = usec * 1000
		if throttled, ok := lookupKey(content, "throttled_usec"); ok {
			usec, err := parseUint(throttled)
			if err != nil {
				return cgroupCPU{}, fmt.Errorf("parse %s: throttled_usec: %w", r.usage.path, err)
			}
			c.throttled, c.throttledOK = usec*1000, true
		}
		return c, nil
	}
	if c.usage, err = parseUint(trimSpace(content)); err != nil {
		return cgroupCPU{}, fmt.Errorf("parse %s: %w", r.usage.path, err)
	}
	// Without cpu.stat (an old kernel) throttling is not known: each thread's wait counts.
	if r.stat == nil {
		return c, nil
	}
	stat, err := r.stat.read()
	if isNotExist(err) {
		r.stat.close()
		r.stat = nil // not looked for again
		return c, nil
	}
	if err != nil {
		return cgroupCPU{}, err
	}
	if c.throttled, err = uintKey(stat, "throttled_time", r.stat.path); err != nil {
		return cgroupCPU{}, err
	}
	c.throttledOK = true
	return c, nil
}

func (r *cgroupCPUReader) readQuota() (float64, error) {
	content, err := r.quota.read()
	if isNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var quotaField, periodField []byte
	if r.v2 {
		var rest []byte
		quotaField, rest = nextField(trimSpace(content))
		periodField, _ = nextField(rest)
		if bytes.Equal(quotaField, []byte("max")) {
			return 0, nil
		}
	} else {
		quotaField = trimSpace(content)
		if len(quotaField) > 0 && quotaField[0] == '-' {
			return 0, nil
		}
		if periodField, err = r.period.read(); err != nil {
			return 0, err
		}
		periodField = trimSpace(periodField)
	}
	quota, err := parseUint(quotaField)
	if err != nil {
		return 0, fmt.Errorf("parse %s: quota: %w", r.quota.path, err)
	}
	period, err := parseUint(periodField)
	if err != nil || period == 0 {
		return 0, fmt.Errorf("parse CPU period next to %s: %q is not a positive integer", r.quota.path, periodField)
	}
	return float64(quota) / float64(period), nil
}

func (r *cgroupCPUReader) close() {
	r.quota.close()
	if r.period != nil {
		r.period.close()
	}
	if r.usage != nil {
		r.usage.close()
	}
	if r.stat != nil {
		r.stat.close()
	}
}
