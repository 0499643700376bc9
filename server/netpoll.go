package server

import (
	"fmt"
	"os"
	"sync"
	"time"
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
// whatever the poll found. If a goroutine became runnable between the look that chose to nudge
// and the park, the processor runs it instead of polling; the read's deadline, nudgeBound, then
// ends the park (at the processor's next scheduling point) instead of the monitor thread's poll.
type netpollNudge struct {
	busy  sync.Mutex // held by the nudge in progress; a look that finds it held does not nudge
	r, w  *os.File
	write chan byte
	seq   byte // the byte of the nudge in progress; guarded by busy
}

// nudgeBound bounds a nudge's park.
const nudgeBound = time.Millisecond

// processNudge is the process's nudge: the poller it nudges is the process's. An error (no file
// descriptor left at the first engine build) is kept: the server then runs without nudging,
// and says so once in its log.
var processNudge = sync.OnceValues(newNetpollNudge)

func newNetpollNudge() (*netpollNudge, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("the network poll nudge's pipe: %w", err)
	}
	n := &netpollNudge{r: r, w: w, write: make(chan byte)}
	go n.writer()
	return n, nil
}

// writer writes each nudge's byte to the pipe; it runs while the nudging goroutine is parked on
// the pipe's read.
func (n *netpollNudge) writer() {
	for b := range n.write {
		_, _ = n.w.Write([]byte{b})
	}
}

// nudge parks the caller until the runtime has polled the network, or for nudgeBound at most,
// and says whether it saw the poll. Only one goroutine nudges at a time; another returns at
// once. The byte of a nudge that ended at its deadline is still in the pipe: a nudge reads until
// its own byte, which is the last one written (the writer takes one byte at a time, in order),
// so at most two bytes are ever in the pipe.
func (n *netpollNudge) nudge() (polled bool) {
	if !n.busy.TryLock() {
		return false
	}
	defer n.busy.Unlock()
	if n.r.SetReadDeadline(time.Now().Add(nudgeBound)) != nil {
		return false
	}
	n.seq++
	n.write <- n.seq
	var b [64]byte
	for {
		k, err := n.r.Read(b[:])
		if err != nil {
			return false
		}
		if k > 0 && b[k-1] == n.seq {
			return true
		}
	}
}
