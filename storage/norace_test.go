//go:build !race

package storage

// raceEnabled: the race detector is off.
const raceEnabled = false
