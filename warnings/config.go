package warnings

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Thresholds configure one resource's tracker: the warning is raised after the
// value has stayed at or above Warn for Duration, and cleared once the value is
// at or below Clear. Ratios are fractions (0.9 = 90%); Warn may exceed 1 for a
// resource that can go over its limit.
type Thresholds struct {
	Warn, Clear float64
	Duration    time.Duration
}

// Validate reports the first problem with t: ratios must be finite numbers with
// 0 <= Clear <= Warn, and Duration must not be negative.
func (t Thresholds) Validate() error {
	switch {
	case math.IsNaN(t.Warn) || math.IsInf(t.Warn, 0):
		return fmt.Errorf("warn ratio %v is not a finite number", t.Warn)
	case math.IsNaN(t.Clear) || math.IsInf(t.Clear, 0):
		return fmt.Errorf("clear ratio %v is not a finite number", t.Clear)
	case t.Clear < 0:
		return fmt.Errorf("clear ratio %v is negative: it must be >= 0", t.Clear)
	case t.Clear > t.Warn:
		return fmt.Errorf("clear ratio %v is above warn ratio %v: clear must be <= warn", t.Clear, t.Warn)
	case t.Duration < 0:
		return fmt.Errorf("duration %v is negative: it must be >= 0", t.Duration)
	}
	return nil
}

// Config holds the thresholds of the CPU and memory trackers
// (config section [resource_overload_warnings]).
type Config struct {
	CPU, Memory Thresholds
}

// DefaultConfig returns the documented defaults: warn at 90%, clear at 80%,
// after 600 seconds, for both resources.
func DefaultConfig() Config {
	t := Thresholds{Warn: 0.9, Clear: 0.8, Duration: 600 * time.Second}
	return Config{CPU: t, Memory: t}
}

// Validate checks both resources' thresholds and names the resource at fault.
func (c Config) Validate() error {
	var errs []error
	if err := c.CPU.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("cpu overload warning: %w", err))
	}
	if err := c.Memory.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("memory overload warning: %w", err))
	}
	return errors.Join(errs...)
}
