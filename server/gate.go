package server

import (
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"overloadsql/overload"

	"github.com/dolthub/vitess/go/mysql"
)

// gate decides at accept time, before any handshake work, whether a connection to the main
// listener is served: it refuses it over max_connections, or with the drop probability of the
// current CPU overload. A refused client gets the ERR packet MySQL sends at max_connections
// (1040, SQLSTATE 08004) instead of the handshake, so pools back off instead of retrying a reset.
type gate struct {
	settings func() dropSettings
	overload func() float64
	random   func() float64
	counters *counters
	open     atomic.Int64 // connections of the main listener now open
	log      *rateLimitedLog
	limits   *clientLimits
}

// dropSettings are the server settings the gate reads for every connection.
type dropSettings struct {
	min, max       float64
	maxConnections int64
	dryRun         bool
}

// errWriteTimeout bounds the ERR packet write where the socket offers no non-blocking write.
const errWriteTimeout = 100 * time.Millisecond

// admit returns the connection to serve, or nil when it was refused (and closed).
func (g *gate) admit(c net.Conn) net.Conn {
	s := g.settings()
	if g.open.Load() >= s.maxConnections && !g.limits.handshakes.evictOldest() {
		g.counters.maxConnectionsRejected.Add(1)
		g.log.note("refused a connection: max_connections reached")
		refuse(c, "Too many connections")
		return nil
	}
	r := g.overload()
	if p := overload.Probability(r, s.min, s.max); p > 0 && g.random() < p {
		msg := dropMessage(r, s.min, s.max, p)
		if s.dryRun {
			g.counters.overloadDryRunDropped.Add(1)
			g.log.note("dry run, served anyway: " + msg)
		} else {
			g.counters.overloadDropped.Add(1)
			g.log.note(msg)
			refuse(c, msg)
			return nil
		}
	}
	g.counters.acceptedConnections.Add(1)
	g.open.Add(1)
	p := newPacketConn(c, g.limits)
	counted := &countedConn{Conn: p, open: &g.open}
	g.limits.handshakes.add(p, counted)
	return counted
}

// adminGate bounds the connections of admin_listen: over admin_max_connections, the oldest
// connection still in its handshake is closed for the new one; only when every open connection
// has logged in is the new one refused with 1040.
type adminGate struct {
	max      func() int64
	counters *counters
	open     atomic.Int64
	log      *rateLimitedLog
	limits   *clientLimits
}

func (g *adminGate) admit(c net.Conn) net.Conn {
	if g.open.Load() >= g.max() && !g.limits.handshakes.evictOldest() {
		g.counters.adminRejected.Add(1)
		g.log.note("refused a connection to admin_listen: admin_max_connections reached")
		refuse(c, "Too many connections")
		return nil
	}
	g.open.Add(1)
	p := newPacketConn(c, g.limits)
	conn := &adminConn{Conn: &countedConn{Conn: p, open: &g.open}}
	g.limits.handshakes.add(p, conn)
	return conn
}

// refuse writes a MySQL ERR packet 1040/08004 with msg as the first packet and closes c.
func refuse(c net.Conn, msg string) {
	if len(msg) > 0xffffff-9 {
		msg = msg[:0xffffff-9]
	}
	writeNow(c, errPacket(0, mysql.ERConCount, msg))
	_ = c.Close()
}

// writeNow writes b without ever waiting: the accept loop must not stall on a slow client. A
// fresh socket's send buffer takes a small packet at once; if it does not, the packet is lost
// and the client sees the connection closed. A non-blocking write costs no timer, which a write
// deadline would.
func writeNow(c net.Conn, b []byte) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		_ = c.SetWriteDeadline(time.Now().Add(errWriteTimeout))
		_, _ = c.Write(b)
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Write(func(fd uintptr) bool {
		_, _ = syscall.Write(int(fd), b)
		return true
	})
}
