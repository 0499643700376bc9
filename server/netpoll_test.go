//go:build linux

package server

import (
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNetpollNudgeWakesAReader: on one processor, held by a goroutine that never blocks (a
// CPU-bound statement), a socket's reader runs after a nudge and a few steps back. Without the
// nudge the runtime learns of the packet only from its monitor thread's poll, up to 10 ms later,
// and the steps back alone would find nothing to run. Every other round leaves a byte of an
// earlier nudge in the pipe, as a nudge that ended at its deadline does: the nudge still waits
// for its own.
func TestNetpollNudgeWakesAReader(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	nudge, err := processNudge()
	if err != nil {
		t.Fatal(err)
	}
	client, server := loopbackPair(t)

	const rounds, informative = 40, 10
	shown := 0
	for round := range rounds {
		var read atomic.Bool
		parked := make(chan struct{})
		go func() {
			close(parked)
			var b [1]byte
			if _, err := server.Read(b[:]); err == nil {
				read.Store(true)
			}
		}()
		<-parked
		// While this goroutine sleeps the reader parks on its socket, and the idle processor
		// polls, so the monitor thread has no poll due during the round. A round in which the
		// reader had not parked yet passes without showing anything; none can fail for it.
		time.Sleep(5 * time.Millisecond)
		if round%2 == 1 {
			nudge.busy.Lock()
			_, err := nudge.w.Write([]byte{nudge.seq})
			nudge.busy.Unlock()
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := client.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
		if !waitForBytes(t, server, &read) {
			// The runtime polled on its own (a system call handed the processor over, or the
			// monitor thread): the round shows nothing.
			continue
		}
		// From here on this goroutine holds the processor: no sleep, no blocking call. A step
		// back may come back to it first (the scheduler takes the global run queue first every
		// 61st time), so it steps back a few times: microseconds, not the poll's 10 ms.
		if !nudge.nudge() {
			continue // it ended at its deadline (this goroutine's thread was kept off the CPU)
		}
		for range 10 {
			runtime.Gosched()
		}
		if !read.Load() {
			t.Fatalf("round %d: the reader did not run after the nudge", round)
		}
		shown++
	}
	if shown < informative {
		t.Fatalf("only %d of %d rounds found the byte unread before a nudge that saw the poll (want %d)", shown, rounds, informative)
	}
}

// waitForBytes waits until the kernel has bytes for c to read (loopback delivery can lag the
// write on a busy machine), without reading them; false if read says the reader took them.
func waitForBytes(t *testing.T, c net.Conn, read *atomic.Bool) bool {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		var ioctlErr error
		if err := raw.Control(func(fd uintptr) { n, ioctlErr = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }); err != nil {
			t.Fatal(err)
		}
		if ioctlErr != nil {
			t.Fatal(ioctlErr)
		}
		if n > 0 {
			return true
		}
		if read.Load() {
			return false
		}
		if time.Now().After(deadline) {
			t.Fatal("the written byte did not arrive in 10 s")
		}
		runtime.Gosched()
	}
}

// BenchmarkPacketBesideABusyProcessor is a round trip of one byte to an echoing goroutine on one
// processor that a CPU-bound statement holds (the yielder's looks in its builds), with and
// without the look's network poll nudge. Without it, each way waits for the runtime's monitor
// thread to poll (up to 10 ms); with it, for the next look (up to yieldEvery).
func BenchmarkPacketBesideABusyProcessor(b *testing.B) {
	for _, nudging := range []bool{false, true} {
		name := map[bool]string{false: "monitor_thread", true: "nudge"}[nudging]
		b.Run(name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			y, err := newYielder(func() int { return 1 })
			if err != nil {
				b.Fatal(err)
			}
			if !nudging {
				y.poll = func() {}
			}
			client, server := loopbackPair(b)
			go func() { // the echo
				var p [1]byte
				for {
					if _, err := server.Read(p[:]); err != nil {
						return
					}
					if _, err := server.Write(p[:]); err != nil {
						return
					}
				}
			}()
			var stop atomic.Bool
			done := make(chan struct{})
			go func() { // the statement
				defer close(done)
				for !stop.Load() {
					_, _ = y.Build(nil, nil, nil)
				}
			}()
			var p [1]byte
			for b.Loop() {
				if _, err := client.Write(p[:]); err != nil {
					b.Fatal(err)
				}
				if _, err := client.Read(p[:]); err != nil {
					b.Fatal(err)
				}
			}
			stop.Store(true)
			<-done
		})
	}
}

// loopbackPair is the two ends of a TCP connection on the loopback, closed at the test's end.
func loopbackPair(tb testing.TB) (client, server net.Conn) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	if client, err = net.Dial("tcp", ln.Addr().String()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	if server, err = ln.Accept(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { server.Close() })
	return client, server
}
