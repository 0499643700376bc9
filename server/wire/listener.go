package wire

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Listener merges the main and the admin listeners into the one net.Listener the engine's
// protocol layer accepts from. Each socket has its own accept loop, so a burst on the main port
// never delays an operator on the admin port; connections from either port pass their gate
// first, and a refused one is answered and closed there, before any handshake work.
type Listener struct {
	main      net.Listener
	admin     net.Listener // nil when admin_listen is off
	gate      *Gate
	adminGate *AdminGate

	accepted chan net.Conn
	// failed receives the error that ended an accept loop other than by Close; Accept returns
	// it, and keeps it in err.
	failed chan error
	err    atomic.Pointer[error]
	done   chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
}

// NewListener serves main through g and admin (nil: none) through ag.
func NewListener(main, admin net.Listener, g *Gate, ag *AdminGate) *Listener {
	l := &Listener{main: main, admin: admin, gate: g, adminGate: ag, accepted: make(chan net.Conn), failed: make(chan error, 2), done: make(chan struct{})}
	l.wg.Add(1)
	go l.loop(main, false)
	if admin != nil {
		l.wg.Add(1)
		go l.loop(admin, true)
	}
	return l
}

func (l *Listener) loop(ln net.Listener, admin bool) {
	defer l.wg.Done()
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			name := "listen"
			if admin {
				name = "admin_listen"
			}
			l.failed <- fmt.Errorf("accept on %s (%s): %w", ln.Addr(), name, err)
			return
		}
		backoff = 0
		var conn net.Conn
		if admin {
			conn = l.adminGate.admit(c)
		} else {
			conn = l.gate.admit(c)
		}
		if conn == nil {
			continue
		}
		select {
		case l.accepted <- conn:
		case <-l.done:
			conn.Close()
			return
		}
	}
}

func isTemporary(err error) bool {
	// EMFILE and friends: the listener is fine, the process is short of descriptors for now.
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.accepted:
		return c, nil
	case err := <-l.failed:
		l.err.CompareAndSwap(nil, &err)
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Failure is the error that ended an accept loop, nil if none did.
func (l *Listener) Failure() error {
	if p := l.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Close stops both accept loops; connections already accepted stay open.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		err = l.main.Close()
		if l.admin != nil {
			err = errors.Join(err, l.admin.Close())
		}
	})
	return err
}

// Addr implements net.Listener: the main listener's address.
func (l *Listener) Addr() net.Addr { return l.main.Addr() }

// AdminAddr is the admin listener's address, nil when there is none.
func (l *Listener) AdminAddr() net.Addr {
	if l.admin == nil {
		return nil
	}
	return l.admin.Addr()
}

// Sockets are the main and the admin (nil: none) listening sockets.
func (l *Listener) Sockets() (main, admin net.Listener) { return l.main, l.admin }

// adminConn marks a connection that came in through admin_listen; its LocalAddr says so even
// after the protocol layer wraps the connection.
type adminConn struct{ net.Conn }

func (c *adminConn) LocalAddr() net.Addr { return adminAddr{c.Conn.LocalAddr()} }

func (c *adminConn) Unwrap() net.Conn { return c.Conn }

type adminAddr struct{ net.Addr }

// IsAdminConn reports whether c came in through admin_listen.
func IsAdminConn(c net.Conn) bool {
	_, ok := c.LocalAddr().(adminAddr)
	return ok
}

// countedConn releases its place in the connection count once, when closed.
type countedConn struct {
	net.Conn
	open   *atomic.Int64
	closed atomic.Bool
}

func (c *countedConn) Unwrap() net.Conn { return c.Conn }

func (c *countedConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.open.Add(-1)
	}
	return c.Conn.Close()
}
