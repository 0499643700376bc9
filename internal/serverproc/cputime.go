package serverproc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat (what `getconf CLK_TCK` prints). The
// kernel reports them in USER_HZ, which Linux fixes at 100 in its ABI on every architecture,
// whatever the kernel's internal tick rate.
const userHZ = 100

// CPUTime returns the CPU time (user + system) the process pid has used so far.
func CPUTime(pid int) (time.Duration, error) {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	cpu, err := parseProcStat(string(text))
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", path, err)
	}
	return cpu, nil
}

// parseProcStat returns utime + stime (fields 14 and 15, see proc(5)) of one /proc/<pid>/stat
// line. The command name (field 2) is in parentheses and may itself contain spaces and
// parentheses, so the fields are counted from the last ')'.
func parseProcStat(text string) (time.Duration, error) {
	end := strings.LastIndexByte(text, ')')
	if end < 0 {
		return 0, fmt.Errorf("no ')' closing the command name in %q", truncate(text, 80))
	}
	// After the command name come field 3 (state) onwards: utime is field 14, stime field 15.
	fields := strings.Fields(text[end+1:])
	const utimeIndex, stimeIndex = 14 - 3, 15 - 3
	if len(fields) <= stimeIndex {
		return 0, fmt.Errorf("%d fields after the command name, want at least %d", len(fields), stimeIndex+1)
	}
	var ticks uint64
	for _, i := range []int{utimeIndex, stimeIndex} {
		n, err := strconv.ParseUint(fields[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("field %d: %w", i+3, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / userHZ), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
