package wire

import (
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/overload"

	"github.com/dolthub/vitess/go/mysql"
)

// Gate decides at accept time, before any handshake work, whether a connection to the main
// listener is served: it refuses it over max_connections, or with the drop probability of the
// current CPU overload. A refused client gets the ERR packet MySQL sends at max_connections
// (1040, SQLSTATE 08004) instead of the handshake, so pools back off instead of retrying a reset.
type Gate struct {
	Settings func() DropSettings
	Overload func() float64 // the current overload ratio
	Random   func() float64 // uniform in [0, 1)
	Counters *Counters
	Log      func(msg string) // a rate-limited log
	Limits   *ClientLimits
	Open     atomic.Int64 // connections of the main listener now open
}

// DropSettings are the server settings the gate reads for every connection: the overload
// ratios between which the drop probability rises from 0 to 1, max_connections, and whether
// drops are only counted (overload_enforcement = dry_run).
type DropSettings struct {
	Min, Max       float64
	MaxConnections int64
	DryRun         bool
}

// errWriteTimeout bounds the ERR packet write where the socket offers no non-blocking write.
const errWriteTimeout = 100 * time.Millisecond

// admit returns the connection to serve, or nil when it was refused (and closed).
func (g *Gate) admit(c net.Conn) net.Conn {
	s := g.Settings()
	if g.Open.Load() >= s.MaxConnections && !g.Limits.Handshakes.evictOldest() {
		g.Counters.MaxConnectionsRejected.Add(1)
		g.Log("refused a connection: max_connections reached")
		refuse(c, "Too many connections")
		return nil
	}
	r := g.Overload()
	if p := overload.Probability(r, s.Min, s.Max); p > 0 && g.Random() < p {
		msg := mysqlerr.DroppedMessage(r, s.Min, s.Max, p)
		if s.DryRun {
			g.Counters.OverloadDryRunDropped.Add(1)
			g.Log("dry run, served anyway: " + msg)
		} else {
			g.Counters.OverloadDropped.Add(1)
			g.Log(msg)
			refuse(c, msg)
			return nil
		}
	}
	g.Counters.AcceptedConnections.Add(1)
	g.Open.Add(1)
	p := newPacketConn(c, g.Limits)
	counted := &countedConn{Conn: p, open: &g.Open}
	g.Limits.Handshakes.add(p, counted)
	return counted
}

// AdminGate bounds the connections of admin_listen: over admin_max_connections, the oldest
// connection still in its handshake is closed for the new one; only when every open connection
// has logged in is the new one refused with 1040.
type AdminGate struct {
	Max      func() int64 // admin_max_connections
	Counters *Counters
	Log      func(msg string) // a rate-limited log
	Limits   *ClientLimits
	open     atomic.Int64
}

func (g *AdminGate) admit(c net.Conn) net.Conn {
	if g.open.Load() >= g.Max() && !g.Limits.Handshakes.evictOldest() {
		g.Counters.AdminRejected.Add(1)
		g.Log("refused a connection to admin_listen: admin_max_connections reached")
		refuse(c, "Too many connections")
		return nil
	}
	g.open.Add(1)
	p := newPacketConn(c, g.Limits)
	conn := &adminConn{Conn: &countedConn{Conn: p, open: &g.open}}
	g.Limits.Handshakes.add(p, conn)
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
