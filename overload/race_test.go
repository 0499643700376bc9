//go:build race

package overload

// raceEnabled: the race detector is on, under which sync.Pool drops items at random, so
// allocation counts vary from run to run.
const raceEnabled = true
