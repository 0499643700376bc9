package wire

import (
	"container/list"
	"crypto/tls"
	"net"
	"sync"
	"time"
)

// ClientLimits are what the packet reader of one listener's connections enforces, and where it
// reports.
type ClientLimits struct {
	MaxPacket      func() int           // max_allowed_packet, after login
	ConnectTimeout func() time.Duration // connect_timeout: the time to log in
	// TLS answers SSL requests; nil: a 32-byte handshake response is passed on like any other.
	TLS        *tls.Config
	Handshakes *Handshakes
	Counters   *Counters
	Log        func(msg string) // a rate-limited log
}

// Handshakes are one listener's connections that have not logged in yet, oldest first. At most
// limit of them are kept: a new connection over it closes the oldest, so sockets that never
// finish the handshake can delay a real client by at most limit new connections, and never
// lock it out. (connect_timeout closes the rest.) Lock order: mu is a leaf; connections are
// closed after it is released.
type Handshakes struct {
	limit    func() int
	counters *Counters
	log      func(msg string)

	mu   sync.Mutex
	list list.List // of handshakeEntry
}

type handshakeEntry struct {
	packets *packetConn
	outer   net.Conn // what the protocol layer holds: closing it releases its counts
}

// NewHandshakes is an empty table of at most limit() connections (max_unauthenticated_connections).
func NewHandshakes(limit func() int, c *Counters, log func(msg string)) *Handshakes {
	return &Handshakes{limit: limit, counters: c, log: log}
}

// add registers a new connection; when the table is full, the oldest entry is closed for it.
func (h *Handshakes) add(p *packetConn, outer net.Conn) {
	h.mu.Lock()
	var oldest *handshakeEntry
	if h.list.Len() >= h.limit() {
		oldest = h.popOldest()
	}
	p.handshake = h.list.PushBack(handshakeEntry{p, outer})
	h.mu.Unlock()
	h.close(oldest)
}

// evictOldest closes the oldest unauthenticated connection; false when there is none.
func (h *Handshakes) evictOldest() bool {
	h.mu.Lock()
	oldest := h.popOldest()
	h.mu.Unlock()
	h.close(oldest)
	return oldest != nil
}

func (h *Handshakes) popOldest() *handshakeEntry {
	front := h.list.Front()
	if front == nil {
		return nil
	}
	e := h.list.Remove(front).(handshakeEntry)
	return &e
}

func (h *Handshakes) close(e *handshakeEntry) {
	if e == nil {
		return
	}
	e.packets.evicted.Store(true)
	_ = e.outer.Close()
	h.counters.HandshakeEvictions.Add(1)
	h.log("closed the oldest connection still in its handshake to make room for a new one")
}

// remove forgets an entry (nil and already removed entries are fine).
func (h *Handshakes) remove(e *list.Element) {
	if e == nil {
		return
	}
	h.mu.Lock()
	h.list.Remove(e) // a no-op for an element no longer in the list
	h.mu.Unlock()
}

// packetConnOf finds the packet reader under the protocol layer's connection (TLS included).
func packetConnOf(c net.Conn) *packetConn {
	p, _ := connOf[*packetConn](c)
	return p
}

// MarkAuthenticated tells the packet reader under c that its client logged in: from here on
// max_allowed_packet applies instead of the pre-login limits, and the connection leaves the
// table of handshakes.
func MarkAuthenticated(c net.Conn) {
	if p := packetConnOf(c); p != nil {
		p.markAuthenticated()
	}
}

// LoggedIn reports whether c is a connection of this package whose client logged in.
func LoggedIn(c net.Conn) bool {
	p := packetConnOf(c)
	return p != nil && p.authenticated
}

// TrackPrepared gives the packet reader under c the lookup of the connection's prepared
// statements, so that it refuses a command for an unknown one; it must be called from the
// connection's goroutine, like every later use of the lookup.
func TrackPrepared(c net.Conn, prepared func(id uint32) bool) {
	if p := packetConnOf(c); p != nil {
		p.prepared = prepared
	}
}
