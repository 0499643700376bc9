//go:build unix

package admission

import (
	"syscall"
	"time"
)

// processCPU is the process's CPU time, user and system; 0 when unknown.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
