//go:build !unix

package admission

import "time"

// processCPU is unknown here: Tick falls back to the statements' share of the processors.
func processCPU() time.Duration { return 0 }
