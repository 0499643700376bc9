package server

import (
	"fmt"
	"os"
	"sync"
)

// netpollNudge lets the Go runtime look at the network now, from a goroutine that holds a
// processor.
//
// The runtime learns that a socket is readable (a client's next statement, an operator's
// SELECT 1) when a processor has nothing to run and polls, or from its monitor thread, which
// polls when nobody did for 10 ms. While CPU-bound statements hold every processor nobody
// runs out of work, so a packet waits up to those 10 ms before its goroutine can even ask for a
// slot; runtime.Gosched does not poll (it puts the caller on the global run queue, which the
// scheduler takes before it polls).
//
// A nudge parks the caller on a pipe that a goroutine of the nudge's own makes readable while
// the caller is parked. The write wakes nobody directly: the caller is runnable again only when
// the runtime polls, and with the caller parked and the writer done, the processor has nothing
// to run, so it polls at once (non-blocking), and finds the caller's pipe and every other
// readable socket. The caller is back after a few microseconds (four system calls), behind
// whatever the poll found.
type netpollNudge struct {
	busy  sync.Mutex // held by the nudge in progress; a look that finds it held does not nudge
	r, w  *os.File
	write chan struct{}
}

// processNudge is the process's nudge: the poller it nudges is the process's.
var processNudge = sync.OnceValues(newNetpollNudge)

func newNetpollNudge() (*netpollNudge, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("the network poll nudge's pipe: %w", err)
	}
	n := &netpollNudge{r: r, w: w, write: make(chan struct{})}
	go n.writer()
	return n, nil
}

// writer writes one byte to the pipe for each nudge; it runs while the nudging goroutine is
// parked on the pipe's read.
func (n *netpollNudge) writer() {
	one := []byte{1}
	for range n.write {
		_, _ = n.w.Write(one) // a pipe's buffer holds it: at most one byte is in it at a time
	}
}

// nudge parks the caller until the runtime has polled the network. Only one goroutine nudges at
// a time; another returns at once.
func (n *netpollNudge) nudge() {
	if !n.busy.TryLock() {
		return
	}
	defer n.busy.Unlock()
	n.write <- struct{}{}
	var b [1]byte
	_, _ = n.r.Read(b[:])
}
