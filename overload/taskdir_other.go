//go:build !linux

package overload

import (
	"os"
	"strconv"
)

// taskDir lists the thread ids under a task directory. Outside Linux there is
// no /proc/self/task; this portable version keeps the package building (the
// per-thread reader then reports itself unavailable).
type taskDir struct{ path string }

func newTaskDir(path string) *taskDir { return &taskDir{path: path} }

func (d *taskDir) list(tids []int) ([]int, error) {
	tids = tids[:0]
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return tids, err
	}
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil && tid > 0 {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// links returns 0: unknown, so the directory is listed at every sample.
func (d *taskDir) links() (uint64, error) { return 0, nil }

func (d *taskDir) close() {}
