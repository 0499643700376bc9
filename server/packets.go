package server

import (
	"container/list"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"overloadsql/server/statement"
)

// MySQL command bytes the packet reader looks at.
const (
	comStmtPrepare      = 0x16
	comStmtExecute      = 0x17
	comStmtSendLongData = 0x18
	comStmtClose        = 0x19
	comStmtReset        = 0x1a
)

// maxPacketPayload is the largest payload of one MySQL packet; a longer message is split into
// packets of this size and a shorter last one.
const maxPacketPayload = 0xffffff

// preAuthLimit is how many bytes a client may send before it has logged in: a handshake
// response is a few hundred bytes, so this only stops a client that announces or sends more.
const preAuthLimit = 64 << 10

// maxLongDataStatements bounds how many prepared statements of one connection may hold long
// data (COM_STMT_SEND_LONG_DATA) not yet executed.
const maxLongDataStatements = 1024

// commandPrefix is how much of a command packet's payload the reader needs to classify it: the
// command byte and a statement id.
const commandPrefix = 5

// errPacketTooLarge is MySQL's ER_NET_PACKET_TOO_LARGE, sent before the connection is closed.
const (
	errPacketTooLargeCode = 1153
	errPacketTooLargeText = "Got a packet bigger than 'max_allowed_packet' bytes"
)

// packetConn reads the client's packet stream below the protocol layer, which allocates a
// packet's announced size as soon as it reads the header. Here the header is seen first, so the
// limits hold before any memory is committed:
//   - before login: at most preAuthLimit bytes, and connect_timeout to finish logging in;
//   - after login: a message (one packet, or a sequence of maximal packets and a shorter last one)
//     of at most max_allowed_packet, and long data pending across the connection's prepared
//     statements of at most max_allowed_packet in total.
//
// A client over a limit gets error 1153 (08S01) and its connection is closed; the protocol
// layer sees a clean end of stream, so it logs nothing. The reader also lets prepared
// statements name the `system` database unquoted: the protocol layer parses COM_STMT_PREPARE
// with its own parser before the engine (and so systemParser) sees it, so the statement text is
// rewritten here. Every other byte passes through unchanged.
//
// After an SSL request the stream is TLS records, not packets: the reader passes them through
// and counts them against preAuthLimit until login; the packet limits then do not apply.
//
// Only the connection's own goroutine calls Read and markAuthenticated; Close may come from the
// accept loop (eviction of an unauthenticated connection).
type packetConn struct {
	net.Conn
	limits *clientLimits

	buf     []byte // read from the socket, not yet parsed
	out     []byte // parsed; out[outRead:] is ready for the reader
	outRead int
	header  [4]byte
	nHeader int
	// passthrough counts payload bytes of the current packet still to copy unchanged.
	passthrough int
	// prefix holds the first bytes of a command packet's payload until prefixLen are there.
	prefix    [commandPrefix]byte
	nPrefix   int
	prefixLen int
	// prepare collects a COM_STMT_PREPARE payload until it is complete.
	prepare    []byte
	prepareLen int
	capturing  bool

	authenticated bool
	opaque        bool // TLS follows the SSL request: no more packets to parse
	tlsNext       bool // the SSL request is being copied; opaque after it
	preAuthRead   int
	// message is the payload size of the message so far; continued says the last packet was
	// maximal, so the next one belongs to the same message.
	message   int
	continued bool
	// longData is the long data pending per statement id, longDataTotal their sum;
	// longDataStmt is the statement whose long data the current message carries, -1 for none.
	longData      map[uint32]int
	longDataTotal int
	longDataStmt  int64
	failed        bool
	// handshake is this connection's entry among the listener's unauthenticated connections,
	// set before the connection is served; evicted says the accept loop closed it for room.
	handshake *list.Element
	evicted   atomic.Bool
}

func newPacketConn(c net.Conn, limits *clientLimits) *packetConn {
	p := &packetConn{Conn: c, limits: limits, buf: make([]byte, 16<<10), longDataStmt: -1}
	if limits != nil {
		_ = c.SetReadDeadline(time.Now().Add(limits.connectTimeout()))
	}
	return p
}

func (c *packetConn) Unwrap() net.Conn { return c.Conn }

// Close also ends the connection's place among the unauthenticated ones.
func (c *packetConn) Close() error {
	if c.limits != nil {
		c.limits.handshakes.remove(c.handshake)
	}
	return c.Conn.Close()
}

// markAuthenticated is called when the client has logged in: the pre-login limits end and the
// packet limits begin.
func (c *packetConn) markAuthenticated() {
	if c.authenticated {
		return
	}
	c.authenticated = true
	if c.limits != nil {
		c.limits.handshakes.remove(c.handshake)
		_ = c.Conn.SetReadDeadline(time.Time{})
	}
}

// Read hands out parsed bytes; the out buffer is reused from packet to packet, so a statement
// costs no allocation here.
func (c *packetConn) Read(p []byte) (int, error) {
	for c.outRead == len(c.out) {
		if c.failed {
			return 0, io.EOF
		}
		if c.opaque {
			return c.readOpaque(p)
		}
		c.out, c.outRead = c.out[:0], 0
		n, err := c.Conn.Read(c.buf)
		c.parse(c.buf[:n])
		if err != nil && len(c.out) == 0 {
			return 0, c.readError(err)
		}
	}
	n := copy(p, c.out[c.outRead:])
	c.outRead += n
	return n, nil
}

func (c *packetConn) readOpaque(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.authenticated {
		c.preAuthRead += n
		if c.preAuthRead > preAuthLimit {
			c.fail("sent more than the pre-login limit over TLS", false)
			return 0, io.EOF
		}
	}
	if err != nil {
		return n, c.readError(err)
	}
	return n, nil
}

// readError turns the end of connect_timeout into a clean end of stream, counted and logged
// here once, instead of a protocol-layer error line per connection.
func (c *packetConn) readError(err error) error {
	if c.evicted.Load() {
		return io.EOF
	}
	if !c.authenticated && c.limits != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.limits.counters.connectTimeouts.Add(1)
		c.limits.log.note("closed a connection that did not log in within connect_timeout")
		return io.EOF
	}
	return err
}

// parse moves bytes from the socket to out, packet by packet.
func (c *packetConn) parse(b []byte) {
	for len(b) > 0 && !c.failed {
		switch {
		case c.opaque:
			// The SSL request ended inside this read: the rest is TLS.
			c.out = append(c.out, b...)
			c.preAuthRead += len(b)
			return
		case c.passthrough > 0:
			k := min(c.passthrough, len(b))
			c.out = append(c.out, b[:k]...)
			c.passthrough -= k
			b = b[k:]
			if c.passthrough == 0 && c.tlsNext {
				c.tlsNext, c.opaque = false, true
			}
		case c.capturing:
			k := min(c.prepareLen-len(c.prepare), len(b))
			c.prepare = append(c.prepare, b[:k]...)
			b = b[k:]
			if len(c.prepare) == c.prepareLen {
				c.emitPrepare()
			}
		case c.nHeader < 4:
			c.header[c.nHeader] = b[0]
			c.nHeader++
			b = b[1:]
			if c.nHeader == 4 {
				c.startPacket()
			}
		default:
			// A command packet's header is held until its prefix is complete.
			c.prefix[c.nPrefix] = b[0]
			c.nPrefix++
			b = b[1:]
			if c.nPrefix == c.prefixLen {
				c.startCommand()
			}
		}
	}
}

func (c *packetConn) length() int {
	return int(c.header[0]) | int(c.header[1])<<8 | int(c.header[2])<<16
}

// startPacket runs when a packet header is complete, before any of its payload is passed on.
func (c *packetConn) startPacket() {
	length, seq := c.length(), c.header[3]
	continuation := c.continued
	c.continued = length == maxPacketPayload
	if continuation {
		c.message += length
	} else {
		c.message = length
	}
	if !c.authenticated {
		c.preAuthRead += 4 + length
		if c.preAuthRead > preAuthLimit {
			c.fail("announced more than the pre-login limit", true)
			return
		}
		// An SSL request is the only 32-byte handshake response: TLS follows it.
		c.tlsNext = seq == 1 && length == 32
	} else if c.limits != nil && c.message > c.limits.maxPacket() {
		c.fail("sent a message bigger than max_allowed_packet", true)
		return
	}
	if continuation && c.longDataStmt >= 0 {
		if !c.addLongData(uint32(c.longDataStmt), length) {
			return
		}
	} else if !continuation {
		c.longDataStmt = -1
	}
	if c.authenticated && seq == 0 && !continuation && length > 0 {
		c.nPrefix, c.prefixLen = 0, min(length, commandPrefix)
		return // keep nHeader == 4: the next bytes are the prefix
	}
	c.emitHeader(length)
}

func (c *packetConn) emitHeader(length int) {
	c.out = append(c.out, c.header[:]...)
	c.passthrough = length
	c.nHeader = 0
}

// startCommand runs when a command packet's prefix is complete.
func (c *packetConn) startCommand() {
	length := c.length()
	prefix := c.prefix[:c.nPrefix]
	c.nHeader = 0
	if prefix[0] == comStmtPrepare && length < maxPacketPayload {
		c.capturing, c.prepareLen = true, length
		c.prepare = append(c.prepare[:0], prefix...)
		if len(c.prepare) == c.prepareLen {
			c.emitPrepare()
		}
		return
	}
	if len(prefix) == commandPrefix {
		id := binary.LittleEndian.Uint32(prefix[1:])
		switch prefix[0] {
		case comStmtSendLongData:
			if !c.addLongData(id, max(length-7, 0)) {
				return
			}
			if c.continued {
				c.longDataStmt = int64(id)
			}
		case comStmtExecute, comStmtClose, comStmtReset:
			c.longDataTotal -= c.longData[id]
			delete(c.longData, id)
		}
	}
	c.out = append(c.out, c.header[:]...)
	c.out = append(c.out, prefix...)
	c.passthrough = length - len(prefix)
}

// addLongData counts n more bytes of long data for statement id; false when that broke a limit
// (and the connection failed).
func (c *packetConn) addLongData(id uint32, n int) bool {
	if c.longData == nil {
		c.longData = map[uint32]int{}
	}
	if _, ok := c.longData[id]; !ok && len(c.longData) >= maxLongDataStatements {
		c.fail("sent long data for too many statements", true)
		return false
	}
	c.longData[id] += n
	c.longDataTotal += n
	if c.limits != nil && c.longDataTotal > c.limits.maxPacket() {
		c.fail("sent long data bigger than max_allowed_packet", true)
		return false
	}
	return true
}

func (c *packetConn) emitPrepare() {
	c.capturing = false
	query := string(c.prepare[1:])
	rewritten := statement.RewriteSystem(query)
	if len(rewritten)+1 >= maxPacketPayload {
		rewritten = query
	}
	n := len(rewritten) + 1
	c.out = append(c.out, byte(n), byte(n>>8), byte(n>>16), c.header[3], comStmtPrepare)
	c.out = append(c.out, rewritten...)
}

// fail answers error 1153 (when the stream is still plain packets) and ends the stream: the
// protocol layer reads what was parsed before, then end of stream.
func (c *packetConn) fail(why string, answer bool) {
	c.failed = true
	c.passthrough, c.capturing = 0, false
	if answer && !c.opaque {
		writeError(c.Conn, c.header[3]+1, errPacketTooLargeCode, "08S01", errPacketTooLargeText)
	}
	if c.limits != nil {
		c.limits.counters.packetTooLarge.Add(1)
		c.limits.log.note("closed a connection that " + why + " (error 1153)")
	}
}

// errorWriteTimeout bounds the write of an ERR packet from the connection's own goroutine.
const errorWriteTimeout = time.Second

// writeError writes one MySQL ERR packet with the given sequence number.
func writeError(c net.Conn, seq byte, code uint16, state, msg string) {
	payload := 1 + 2 + 1 + 5 + len(msg)
	pkt := make([]byte, 4, 4+payload)
	pkt[0], pkt[1], pkt[2], pkt[3] = byte(payload), byte(payload>>8), byte(payload>>16), seq
	pkt = append(pkt, 0xff)
	pkt = binary.LittleEndian.AppendUint16(pkt, code)
	pkt = append(pkt, '#')
	pkt = append(pkt, state...)
	pkt = append(pkt, msg...)
	_ = c.SetWriteDeadline(time.Now().Add(errorWriteTimeout))
	_, _ = c.Write(pkt)
	_ = c.SetWriteDeadline(time.Time{})
}
