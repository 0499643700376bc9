package server

import (
	"container/list"
	"crypto/tls"
	"net"
	"sync"
	"time"
)

// clientLimits are what the packet reader of one listener's connections enforces, and where it
// reports.
type clientLimits struct {
	maxPacket      func() int
	connectTimeout func() time.Duration
	// tls answers SSL requests; nil: a 32-byte handshake response is passed on like any other.
	tls        *tls.Config
	handshakes *handshakes
	counters   *counters
	log        *rateLimitedLog
}

// handshakes are one listener's connections that have not logged in yet, oldest first. At most
// limit of them are kept: a new connection over it closes the oldest, so sockets that never
// finish the handshake can delay a real client by at most limit new connections, and never
// lock it out. (connect_timeout closes the rest.) Lock order: mu is a leaf; connections are
// closed after it is released.
type handshakes struct {
	limit    func() int
	counters *counters
	log      *rateLimitedLog

	mu   sync.Mutex
	list list.List // of handshakeEntry
}

type handshakeEntry struct {
	packets *packetConn
	outer   net.Conn // what the protocol layer holds: closing it releases its counts
}

func newHandshakes(limit func() int, c *counters, log *rateLimitedLog) *handshakes {
	return &handshakes{limit: limit, counters: c, log: log}
}

// add registers a new connection; when the table is full, the oldest entry is closed for it.
func (h *handshakes) add(p *packetConn, outer net.Conn) {
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
func (h *handshakes) evictOldest() bool {
	h.mu.Lock()
	oldest := h.popOldest()
	h.mu.Unlock()
	h.close(oldest)
	return oldest != nil
}

func (h *handshakes) popOldest() *handshakeEntry {
	front := h.list.Front()
	if front == nil {
		return nil
	}
	e := h.list.Remove(front).(handshakeEntry)
	return &e
}

func (h *handshakes) close(e *handshakeEntry) {
	if e == nil {
		return
	}
	e.packets.evicted.Store(true)
	_ = e.outer.Close()
	h.counters.handshakeEvictions.Add(1)
	h.log.note("closed the oldest connection still in its handshake to make room for a new one")
}

// remove forgets an entry (nil and already removed entries are fine).
func (h *handshakes) remove(e *list.Element) {
	if e == nil {
		return
	}
	h.mu.Lock()
	h.list.Remove(e) // a no-op for an element no longer in the list
	h.mu.Unlock()
}

// len is the number of unauthenticated connections now.
func (h *handshakes) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.list.Len()
}

// packetConnOf finds the packet reader under the protocol layer's connection (TLS included).
func packetConnOf(c net.Conn) *packetConn {
	p, _ := connOf[*packetConn](c)
	return p
}
