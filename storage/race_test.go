//go:build race

package storage

// raceEnabled: the race detector is on; the engine's suites then run once, without their
// precise-lookup rerun, which adds no concurrency of its own.
const raceEnabled = true
