package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"syscall"
	"time"
)

// unwrapper is a connection wrapper of this package or of the server above it.
type unwrapper interface{ Unwrap() net.Conn }

// connOf finds the connection of type T under the connection wrappers (TLS included).
func connOf[T net.Conn](c net.Conn) (T, bool) {
	for {
		if v, ok := c.(T); ok {
			return v, true
		}
		switch v := c.(type) {
		case *tls.Conn:
			c = v.NetConn()
		case unwrapper:
			c = v.Unwrap()
		default:
			var zero T
			return zero, false
		}
	}
}

// socketOf is the TCP connection under c and its socket, to look at without reading through
// the wrappers; false when c is not over TCP.
func socketOf(c net.Conn) (*net.TCPConn, syscall.RawConn, bool) {
	tcp, ok := connOf[*net.TCPConn](c)
	if !ok {
		return nil, nil, false
	}
	raw, err := tcp.SyscallConn()
	return tcp, raw, err == nil
}

// CancelWhenPeerCloses returns a context that is cancelled as soon as the client closes its
// connection, for a statement that waits (in the admission queue) rather than runs: the wait for
// the socket to become readable is the network poller's, so it costs no timer and no polling.
// Nothing else reads the connection meanwhile: the protocol layer is blocked in this statement.
// stop ends the watch and must be called before the connection is read again. When the client
// sends something instead (a pipelined command), the watch ends without cancelling. A socket the
// server closed (KILL CONNECTION) cancels too: nobody will read an answer.
func CancelWhenPeerCloses(ctx context.Context, c net.Conn) (context.Context, func()) {
	tcp, raw, ok := socketOf(c)
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		closed := false
		// Read returns when the function returns true: when the socket has data or an end of
		// file, or when the read deadline set by stop interrupts the wait.
		err := raw.Read(func(fd uintptr) bool {
			var b [1]byte
			n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if err == syscall.EAGAIN {
				return false
			}
			closed = n == 0 || err != nil
			return true
		})
		if err == nil && closed || errors.Is(err, net.ErrClosed) {
			cancel()
		}
	}()
	return ctx, func() {
		_ = tcp.SetReadDeadline(time.Unix(1, 0))
		<-watching
		_ = tcp.SetReadDeadline(time.Time{})
		cancel()
	}
}
