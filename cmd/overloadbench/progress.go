package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// outcomes counts what the attempts of one phase ended in; workers add to it concurrently.
type outcomes struct {
	ok       atomic.Int64 // statement succeeded or connection accepted
	rejected atomic.Int64 // error 745
	refused  atomic.Int64 // error 202: no CPU slot (admission control)
	dropped  atomic.Int64 // error 1040
	failed   atomic.Int64 // anything else
}

// record counts the outcome of one attempt by its error.
func (o *outcomes) record(err error) {
	switch {
	case err == nil:
		o.ok.Add(1)
	case mysqlErrorNumber(err) == errServerOverloaded:
		o.rejected.Add(1)
	case mysqlErrorNumber(err) == errTooManySimultaneousQueries:
		o.refused.Add(1)
	case mysqlErrorNumber(err) == errTooManyConnection:
		o.dropped.Add(1)
	default:
		o.failed.Add(1)
	}
}

func (o *outcomes) attempts() int64 {
	return o.ok.Load() + o.rejected.Load() + o.refused.Load() + o.dropped.Load() + o.failed.Load()
}

// progress prints one line a second to w about the phase that is running: on a terminal the
// line is rewritten in place, elsewhere (a log) each second is its own line.
type progress struct {
	w        io.Writer
	terminal bool

	mu     sync.Mutex
	label  string
	start  time.Time
	counts *outcomes
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil {
			p.terminal = info.Mode()&os.ModeCharDevice != 0
		}
	}
	return p
}

// phase makes the progress line follow a new phase.
func (p *progress) phase(label string, counts *outcomes) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.label, p.start, p.counts = label, time.Now(), counts
	p.printLocked()
}

// note prints a one-off line (calibration, waiting for a quiet server).
func (p *progress) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.label, p.counts = fmt.Sprintf(format, args...), nil
	p.printLocked()
}

// run prints the line every second until ctx ends.
func (p *progress) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if p.terminal {
				fmt.Fprintln(p.w)
			}
			return
		case <-tick.C:
			p.mu.Lock()
			if p.counts != nil {
				p.printLocked()
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) printLocked() {
	line := "overloadbench: " + p.label
	if p.counts != nil {
		elapsed := time.Since(p.start)
		ok := p.counts.ok.Load()
		line += fmt.Sprintf("  %5.1fs  ok %d (%.0f/s)  745 %d  202 %d  1040 %d  other errors %d",
			elapsed.Seconds(), ok, float64(ok)/max(elapsed.Seconds(), 1e-3),
			p.counts.rejected.Load(), p.counts.refused.Load(), p.counts.dropped.Load(), p.counts.failed.Load())
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}
