package overload

import "fmt"

// memInfo holds the host memory figures of /proc/meminfo, in bytes.
type memInfo struct{ total, available uint64 }

// readMemInfo reads /proc/meminfo (procfs's FS.Meminfo). MemAvailable exists
// since Linux 3.14.
func readMemInfo(src *procSource) (memInfo, error) {
	fs, err := src.fsys()
	if err != nil {
		return memInfo{}, err
	}
	m, err := fs.Meminfo()
	if err != nil {
		return memInfo{}, err
	}
	if m.MemTotalBytes == nil || m.MemAvailableBytes == nil {
		return memInfo{}, fmt.Errorf("parse %s/meminfo: no MemTotal or MemAvailable line", src.root)
	}
	return memInfo{total: *m.MemTotalBytes, available: *m.MemAvailableBytes}, nil
}

// readRSS reads the resident set size of the own process from its
// /proc/<pid>/stat (procfs's Proc.Stat).
func readRSS(src *procSource) (uint64, error) {
	p, err := src.proc()
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, fmt.Errorf("read %s/%d/stat: %w", src.root, p.PID, err)
	}
	if st.RSS < 0 {
		return 0, fmt.Errorf("parse %s/%d/stat: resident pages %d", src.root, p.PID, st.RSS)
	}
	return uint64(st.ResidentMemory()), nil
}
