// Package loglimit bounds how many lines one source writes to the log: at most a given number
// in each window of one second, the lines it refuses counted and reported with the next line it
// writes. A flood of events (statements refused under overload, failed statements, the engine's
// errors) then costs a few lines a second, and no event goes uncounted.
//
// A window starts with the first line asked for after the previous window ended, so a source
// that is quiet for a while writes its next line at once.
package loglimit

import (
	"sync"
	"time"
)

// Budget counts the lines of one source; its zero value is ready and safe for concurrent use.
type Budget struct {
	mu      sync.Mutex
	window  time.Time // start of the current window
	used    int       // lines written in it
	refused int       // lines refused since the last one written
}

// Take reports whether a line may be written at now, at most perSecond lines a window, and
// how many lines were refused since the last one written (reported once: the count starts
// again at 0). A forced line (a panic's first stack trace) is written whatever the count and
// counts against the window.
func (b *Budget) Take(now time.Time, perSecond int, force bool) (refused int, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Sub(b.window) >= time.Second {
		b.window, b.used = now, 0
	}
	if b.used >= perSecond && !force {
		b.refused++
		return 0, false
	}
	b.used++
	refused, b.refused = b.refused, 0
	return refused, true
}
