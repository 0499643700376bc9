package server

import (
	"net"

	"overloadsql/server/statement"
)

// comStmtPrepare is the MySQL command byte of COM_STMT_PREPARE.
const comStmtPrepare = 0x16

// maxPacketPayload is the largest payload of one MySQL packet; a longer command is split and
// passes through unchanged.
const maxPacketPayload = 0xffffff

// prepareRewriteConn lets prepared statements name the `system` database unquoted. The protocol
// layer parses COM_STMT_PREPARE with its own parser before the engine (and so systemParser) sees
// it, so the statement text is rewritten here, in the packet stream from the client. Every other
// packet passes through untouched, byte for byte.
type prepareRewriteConn struct {
	net.Conn
	buf     []byte // read from the socket, not yet parsed
	out     []byte // parsed; out[outRead:] is ready for the reader
	outRead int
	header  [4]byte
	nHeader int
	// passthrough counts payload bytes of the current packet still to copy unchanged.
	passthrough int
	// prepare collects a COM_STMT_PREPARE payload until it is complete.
	prepare    []byte
	prepareLen int
	capturing  bool
}

func newPrepareRewriteConn(c net.Conn) *prepareRewriteConn {
	return &prepareRewriteConn{Conn: c, buf: make([]byte, 16<<10)}
}

func (c *prepareRewriteConn) Unwrap() net.Conn { return c.Conn }

// Read hands out parsed bytes; the out buffer is reused from packet to packet, so a statement
// costs no allocation here.
func (c *prepareRewriteConn) Read(p []byte) (int, error) {
	for c.outRead == len(c.out) {
		c.out, c.outRead = c.out[:0], 0
		n, err := c.Conn.Read(c.buf)
		c.parse(c.buf[:n])
		if err != nil && len(c.out) == 0 {
			return 0, err
		}
	}
	n := copy(p, c.out[c.outRead:])
	c.outRead += n
	return n, nil
}

// parse moves bytes from the socket to out, packet by packet.
func (c *prepareRewriteConn) parse(b []byte) {
	for len(b) > 0 {
		switch {
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
			// The header is complete and the command byte decides: b[0] is it.
			c.nHeader = 0
			length := c.length()
			if b[0] == comStmtPrepare && length < maxPacketPayload {
				c.capturing, c.prepareLen = true, length
				c.prepare = c.prepare[:0]
				continue
			}
			c.out = append(c.out, c.header[:]...)
			c.passthrough = length
		}
	}
}

func (c *prepareRewriteConn) length() int {
	return int(c.header[0]) | int(c.header[1])<<8 | int(c.header[2])<<16
}

// startPacket runs when a packet header is complete: only a command packet (sequence 0) with a
// payload needs a look at its first byte; everything else is copied.
func (c *prepareRewriteConn) startPacket() {
	if c.header[3] == 0 && c.length() > 0 {
		return // keep nHeader == 4: the next byte is the command
	}
	c.out = append(c.out, c.header[:]...)
	c.passthrough = c.length()
	c.nHeader = 0
}

func (c *prepareRewriteConn) emitPrepare() {
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
