package wire

import (
	"bytes"
	"container/list"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"overloadsql/mysqlerr"
	"overloadsql/server/statement"

	"github.com/dolthub/vitess/go/mysql"
)

// MySQL command bytes the packet reader looks at.
const (
	comQuit             = 0x01
	comInitDB           = 0x02
	comQuery            = 0x03
	comFieldList        = 0x04
	comStatistics       = 0x09 // answered by statisticsConn, above this reader
	comPing             = 0x0e
	comSetOption        = 0x1b
	comStmtFetch        = 0x1c
	comResetConnection  = 0x1f
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

// errPacketTooLargeText is MySQL's message of ER_NET_PACKET_TOO_LARGE, which the packet reader
// sends before it closes the connection.
const errPacketTooLargeText = "Got a packet bigger than 'max_allowed_packet' bytes"

// served reports whether the protocol layer serves a command byte; the reader answers every
// other one (and an empty command packet) with 1047 itself, so it never reaches code that
// logs its payload or panics.
func served(cmd byte) bool {
	switch cmd {
	case comQuit, comInitDB, comQuery, comFieldList, comStatistics, comPing, comSetOption, comStmtPrepare,
		comStmtExecute, comStmtSendLongData, comStmtClose, comStmtReset, comStmtFetch, comResetConnection:
		return true
	}
	return false
}

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
// with its own parser before the engine (and so the server's systemParser) sees it, so the statement text is
// rewritten here. Every other byte passes through unchanged.
//
// Commands the protocol layer would mishandle (an empty packet, an unknown command byte, a
// statement id that was never prepared) are answered here with MySQL's error, in order: the
// answer is written when the protocol layer has consumed every command before it, and what
// follows is parsed only then. Their payload is dropped as it arrives, never buffered.
//
// TLS is terminated here, not in the protocol layer, so every limit above holds over TLS too:
// an SSL request (a 32-byte handshake response with CLIENT_SSL) is not passed on; the reader
// runs the TLS handshake on the socket and parses the packets inside it. The protocol layer
// then sees the plain handshake response without CLIENT_SSL, one sequence number lower (it
// never saw the SSL request), so until the client's first command the reader lowers the
// sequence numbers it reads by one and raises those written by one. MarkSecure tells the protocol
// layer the connection is secure.
//
// Only the connection's own goroutine calls Read and markAuthenticated; Close may come from the
// accept loop (eviction of an unauthenticated connection).
type packetConn struct {
	net.Conn
	limits *ClientLimits
	// wire is what packets travel over: the socket, or secure once TLS is on.
	wire   net.Conn
	secure *tls.Conn
	// readShift is subtracted from the sequence numbers read, 1 after an SSL request until
	// login; writeShift says the sequence numbers written are raised by 1 (until the first
	// command), and written tracks the packets written meanwhile.
	readShift  byte
	writeShift bool
	written    writeTracker

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
	// prepare collects a COM_STMT_PREPARE payload, or the handshake response (hello), until
	// it is complete.
	prepare    []byte
	prepareLen int
	capturing  bool
	hello      bool

	authenticated bool
	sslRequest    bool // the SSL request is being captured
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
	// answer is an ERR packet to write once out is consumed; held are the bytes read after the
	// command it answers, parsed only then. drop counts payload bytes still to skip of a
	// command answered here (dropping: the whole message, continuation packets included), and
	// reply is its answer, due when the message is complete.
	answer   []byte
	held     []byte
	drop     int
	dropping bool
	reply    []byte
	// prepared reports whether a statement id is prepared on the connection; nil until the
	// protocol layer links it (connectionHandler).
	prepared func(id uint32) bool
	// handshake is this connection's entry among the listener's unauthenticated connections,
	// set before the connection is served; evicted says the accept loop closed it for room.
	handshake *list.Element
	evicted   atomic.Bool
}

func newPacketConn(c net.Conn, limits *ClientLimits) *packetConn {
	p := &packetConn{Conn: c, wire: c, limits: limits, buf: make([]byte, 16<<10), longDataStmt: -1}
	if limits != nil {
		_ = c.SetReadDeadline(time.Now().Add(limits.ConnectTimeout()))
	}
	return p
}

func (c *packetConn) Unwrap() net.Conn { return c.Conn }

// Close also ends the connection's place among the unauthenticated ones.
func (c *packetConn) Close() error {
	if c.limits != nil {
		c.limits.Handshakes.remove(c.handshake)
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
	c.readShift = 0
	if c.limits != nil {
		c.limits.Handshakes.remove(c.handshake)
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
		c.out, c.outRead = release(c.out), 0
		if c.answer != nil {
			writeRaw(c.wire, c.answer)
			held := c.held
			c.answer, c.held = nil, nil
			c.parse(held)
			continue
		}
		n, err := c.wire.Read(c.buf)
		c.parse(c.buf[:n])
		if err != nil && len(c.out) == 0 {
			return 0, c.readError(err)
		}
	}
	n := copy(p, c.out[c.outRead:])
	c.outRead += n
	return n, nil
}

// readError turns the end of connect_timeout into a clean end of stream, counted and logged
// here once, instead of a protocol-layer error line per connection.
func (c *packetConn) readError(err error) error {
	if c.evicted.Load() {
		return io.EOF
	}
	if !c.authenticated && c.limits != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.limits.Counters.ConnectTimeouts.Add(1)
		c.limits.Log("closed a connection that did not log in within connect_timeout")
		return io.EOF
	}
	if c.secure != nil && !c.secure.ConnectionState().HandshakeComplete && c.limits != nil {
		c.limits.Log("closed a connection whose TLS handshake failed")
		return io.EOF
	}
	return err
}

// parse moves bytes from the socket to out, packet by packet.
func (c *packetConn) parse(b []byte) {
	for len(b) > 0 && !c.failed {
		if c.answer != nil {
			c.held = b
			return
		}
		switch {
		case c.drop > 0:
			k := min(c.drop, len(b))
			c.drop -= k
			b = b[k:]
			c.replyIfDropped()
		case c.passthrough > 0:
			k := min(c.passthrough, len(b))
			c.out = append(c.out, b[:k]...)
			c.passthrough -= k
			b = b[k:]
		case c.capturing:
			k := min(c.prepareLen-len(c.prepare), len(b))
			c.prepare = append(c.prepare, b[:k]...)
			b = b[k:]
			if len(c.prepare) == c.prepareLen {
				if c.sslRequest && binary.LittleEndian.Uint32(c.prepare)&clientSSL != 0 {
					// The rest of this read is the start of the TLS handshake.
					c.startTLS(b)
					return
				}
				c.sslRequest = false
				c.emitCaptured()
			}
		case c.nHeader < 4:
			k := copy(c.header[c.nHeader:], b)
			c.nHeader += k
			b = b[k:]
			if c.nHeader == 4 {
				c.startPacket()
			}
		default:
			// A command packet's header is held until its prefix is complete.
			k := copy(c.prefix[c.nPrefix:c.prefixLen], b)
			c.nPrefix += k
			b = b[k:]
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
	length, seq := c.length(), c.header[3]-c.readShift
	if c.writeShift && c.authenticated {
		c.writeShift = false // the client's first command: the handshake is over
	}
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
		// A handshake response is checked whole before the protocol layer parses it; a 32-byte
		// one is an SSL request when it sets CLIENT_SSL.
		if seq == 1 && length >= 32 {
			c.capturing, c.hello, c.prepareLen = true, true, length
			c.sslRequest = length == 32 && c.secure == nil && c.limits != nil && c.limits.TLS != nil
			c.prepare = c.prepare[:0]
			c.nHeader = 0
			return
		}
	} else if c.limits != nil && c.message > c.limits.MaxPacket() {
		c.fail("sent a message bigger than max_allowed_packet", true)
		return
	}
	if continuation && c.dropping {
		c.drop = length
		c.nHeader = 0
		c.replyIfDropped()
		return
	}
	if continuation && c.longDataStmt >= 0 {
		if !c.addLongData(uint32(c.longDataStmt), length) {
			return
		}
	} else if !continuation {
		c.longDataStmt = -1
	}
	if c.authenticated && seq == 0 && !continuation {
		if length == 0 {
			c.nHeader = 0
			c.refuse(0, mysql.ERUnknownComError, "Unknown command")
			return
		}
		c.nPrefix, c.prefixLen = 0, min(length, commandPrefix)
		return // keep nHeader == 4: the next bytes are the prefix
	}
	c.emitHeader(length)
}

// refuse answers the current command with an ERR packet and drops its remaining n payload
// bytes (and its continuation packets).
func (c *packetConn) refuse(n int, num uint16, msg string) {
	c.reply = errPacket(c.header[3]+1, num, msg)
	c.dropping, c.drop = true, n
	c.replyIfDropped()
}

// replyIfDropped arms the reply once the refused message has been dropped whole.
func (c *packetConn) replyIfDropped() {
	if c.dropping && c.drop == 0 && !c.continued {
		c.answer, c.reply, c.dropping = c.reply, nil, false
	}
}

func (c *packetConn) emitHeader(length int) {
	c.appendHeader()
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
			c.emitCaptured()
		}
		return
	}
	if !served(prefix[0]) {
		c.refuse(length-len(prefix), mysql.ERUnknownComError, "Unknown command")
		return
	}
	if len(prefix) == commandPrefix {
		id := binary.LittleEndian.Uint32(prefix[1:])
		if prefix[0] == comStmtReset && c.prepared != nil && !c.prepared(id) {
			c.refuse(length-len(prefix), mysqlerr.ERUnknownStmtHandler,
				fmt.Sprintf("Unknown prepared statement handler (%d) given to mysqld_stmt_reset", id))
			return
		}
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
	c.appendHeader()
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
	if c.limits != nil && c.longDataTotal > c.limits.MaxPacket() {
		c.fail("sent long data bigger than max_allowed_packet", true)
		return false
	}
	return true
}

func (c *packetConn) emitCaptured() {
	c.capturing = false
	if c.hello {
		c.hello = false
		c.emitHandshake()
	} else {
		c.emitPrepare()
	}
	c.prepare = release(c.prepare)
}

// retainedBuffer is the largest buffer a connection keeps between packets: one big prepared
// statement must not hold its size for the connection's lifetime.
const retainedBuffer = 64 << 10

// release empties b for reuse, or drops it when it grew over retainedBuffer.
func release(b []byte) []byte {
	if cap(b) > retainedBuffer {
		return nil
	}
	return b[:0]
}

// Capability flags of a handshake response the reader checks.
const (
	clientSSL              = 0x800
	clientSecureConnection = 0x8000
	clientPluginAuthLenenc = 0x200000
)

// emitHandshake passes the handshake response on, unless its auth response claims more bytes
// than the packet has (the protocol layer would slice out of range and panic): that client
// gets MySQL's 1043 "Bad handshake" and is closed.
func (c *packetConn) emitHandshake() {
	if !validHandshake(c.prepare) {
		c.failed = true
		writeRaw(c.wire, errPacket(c.header[3]+1, mysqlerr.ERHandshakeError, "Bad handshake"))
		if c.limits != nil {
			c.limits.Log("closed a connection with a malformed handshake response (error 1043)")
		}
		return
	}
	// TLS, when on, is terminated below the protocol layer: it must not start TLS itself.
	if len(c.prepare) >= 4 {
		c.prepare[1] &^= clientSSL >> 8
	}
	c.appendHeader()
	c.out = append(c.out, c.prepare...)
}

// appendHeader passes the current packet's header on, with the sequence number the protocol
// layer expects.
func (c *packetConn) appendHeader() {
	c.out = append(c.out, c.header[0], c.header[1], c.header[2], c.header[3]-c.readShift)
}

// validHandshake checks the length of a HandshakeResponse41's auth response.
func validHandshake(p []byte) bool {
	if len(p) < 32 {
		return true // the protocol layer refuses it cleanly
	}
	flags := binary.LittleEndian.Uint32(p)
	user := bytes.IndexByte(p[32:], 0)
	if user < 0 {
		return true
	}
	rest := p[32+user+1:]
	switch {
	case flags&clientPluginAuthLenenc != 0:
		n, size, ok := lenencInt(rest)
		return ok && n <= uint64(len(rest)-size)
	case flags&clientSecureConnection != 0:
		return len(rest) == 0 || int(rest[0]) <= len(rest)-1
	}
	return true
}

// lenencInt reads a MySQL length-encoded integer: its value and its size in bytes.
func lenencInt(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	var size int
	switch b[0] {
	case 0xfc:
		size = 3
	case 0xfd:
		size = 4
	case 0xfe:
		size = 9
	case 0xfb, 0xff:
		return 0, 0, false
	default:
		return uint64(b[0]), 1, true
	}
	if len(b) < size {
		return 0, 0, false
	}
	var v uint64
	for i := size - 1; i >= 1; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, size, true
}

func (c *packetConn) emitPrepare() {
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
	if answer {
		writeRaw(c.wire, errPacket(c.header[3]+1, mysql.ERNetPacketTooLarge, errPacketTooLargeText))
	}
	if c.limits != nil {
		c.limits.Counters.PacketTooLarge.Add(1)
		c.limits.Log("closed a connection that " + why + " (error 1153)")
	}
}

// startTLS answers an SSL request: from here on packets travel inside TLS on the socket.
// rest is what the client sent after the SSL request in the same read (the start of its TLS
// handshake); the handshake itself runs in the next Read, under connect_timeout.
func (c *packetConn) startTLS(rest []byte) {
	c.capturing, c.hello, c.sslRequest = false, false, false
	socket := c.Conn
	if len(rest) > 0 {
		socket = &replayConn{Conn: c.Conn, pending: bytes.Clone(rest)}
	}
	c.secure = tls.Server(socket, c.limits.TLS)
	c.wire = c.secure
	c.readShift, c.writeShift = 1, true
}

// replayConn reads pending before the connection itself.
type replayConn struct {
	net.Conn
	pending []byte
}

func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		return r.Conn.Read(p)
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// Write sends the protocol layer's bytes over the wire; during the handshake after an SSL
// request it raises their packets' sequence numbers by one (see packetConn).
func (c *packetConn) Write(p []byte) (int, error) {
	if !c.writeShift {
		return c.wire.Write(p)
	}
	shifted := bytes.Clone(p)
	c.written.shift(shifted)
	if _, err := c.wire.Write(shifted); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeTracker follows packet boundaries in a written byte stream that may split packets, and
// their headers, across writes.
type writeTracker struct {
	header  [3]byte // length bytes of the header being written
	nHeader int
	body    int // payload bytes of the current packet still to come
}

// shift raises the sequence number of every packet header in b, in place.
func (w *writeTracker) shift(b []byte) {
	for i := 0; i < len(b); {
		if w.body > 0 {
			k := min(w.body, len(b)-i)
			w.body -= k
			i += k
			continue
		}
		if w.nHeader < 3 {
			w.header[w.nHeader] = b[i]
			w.nHeader++
		} else {
			b[i]++
			w.nHeader = 0
			w.body = int(w.header[0]) | int(w.header[1])<<8 | int(w.header[2])<<16
		}
		i++
	}
}

// errorWriteTimeout bounds the write of an ERR packet from the connection's own goroutine.
const errorWriteTimeout = time.Second

// errPacket is one MySQL ERR packet with the given sequence number, error number num and
// MySQL's SQLSTATE for it.
func errPacket(seq byte, num uint16, msg string) []byte {
	state := mysqlerr.State(int(num))
	payload := 1 + 2 + 1 + 5 + len(msg)
	pkt := make([]byte, 4, 4+payload)
	pkt[0], pkt[1], pkt[2], pkt[3] = byte(payload), byte(payload>>8), byte(payload>>16), seq
	pkt = append(pkt, 0xff)
	pkt = binary.LittleEndian.AppendUint16(pkt, num)
	pkt = append(pkt, '#')
	pkt = append(pkt, state...)
	return append(pkt, msg...)
}

// writeRaw writes a packet the protocol layer did not, from the connection's own goroutine.
func writeRaw(c net.Conn, pkt []byte) {
	_ = c.SetWriteDeadline(time.Now().Add(errorWriteTimeout))
	_, _ = c.Write(pkt)
	_ = c.SetWriteDeadline(time.Time{})
}
