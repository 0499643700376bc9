package integration

import (
	"crypto/tls"
	bin "encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// rawConn speaks the MySQL protocol byte by byte, for attacks a real client would refuse to
// send. Every read and write has a deadline.
type rawConn struct {
	t testing.TB
	net.Conn
}

// rawTimeout bounds one read or write of a raw connection.
const rawTimeout = 20 * time.Second

// dialTimeout bounds one TCP connect of the tests' raw sockets. It is generous: when hundreds
// of sockets are opened at once on a loaded machine, a connect can need a SYN retransmission
// (1 s, then 3 s, 7 s later), and a slow connect is not what these tests look at.
const dialTimeout = 30 * time.Second

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, Conn: c}
}

// readPacket reads one packet: its sequence number and payload.
func (c *rawConn) readPacket() (byte, []byte, error) {
	_ = c.SetReadDeadline(time.Now().Add(rawTimeout))
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return 0, nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	p := make([]byte, n)
	if _, err := io.ReadFull(c, p); err != nil {
		return 0, nil, err
	}
	return h[3], p, nil
}

func (c *rawConn) mustReadPacket() (byte, []byte) {
	c.t.Helper()
	seq, p, err := c.readPacket()
	if err != nil {
		c.t.Fatalf("read a packet: %v", err)
	}
	return seq, p
}

// writeHeader writes a packet header announcing n payload bytes.
func (c *rawConn) writeHeader(seq byte, n int) error {
	_ = c.SetWriteDeadline(time.Now().Add(rawTimeout))
	_, err := c.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq})
	return err
}

func (c *rawConn) writePacket(seq byte, payload []byte) error {
	if err := c.writeHeader(seq, len(payload)); err != nil {
		return err
	}
	_, err := c.Write(payload)
	return err
}

// Capability flags of the handshake response.
const (
	capLongPassword     = 0x1
	capProtocol41       = 0x200
	capTransactions     = 0x2000
	capSecureConnection = 0x8000
	capPluginAuth       = 0x80000
)

// handshakeResponse is a HandshakeResponse41 for user with an empty mysql_native_password.
func handshakeResponse(user string) []byte {
	p := bin.LittleEndian.AppendUint32(nil, capLongPassword|capProtocol41|capTransactions|capSecureConnection|capPluginAuth)
	p = bin.LittleEndian.AppendUint32(p, 1<<30)
	p = append(p, 33)
	p = append(p, make([]byte, 23)...)
	p = append(p, user...)
	p = append(p, 0, 0) // end of user name; empty auth response
	p = append(p, "mysql_native_password\x00"...)
	return p
}

// rawLogin logs in as user (empty password) and returns the connection, ready for a command.
func rawLogin(t testing.TB, addr, user string) *rawConn {
	t.Helper()
	c := dialRaw(t, addr)
	c.mustReadPacket() // greeting
	return c.login(1, handshakeResponse(user), user)
}

// login sends the handshake response as packet seq and expects OK, answering an auth switch
// with the empty password again.
func (c *rawConn) login(seq byte, response []byte, user string) *rawConn {
	c.t.Helper()
	if err := c.writePacket(seq, response); err != nil {
		c.t.Fatalf("send handshake response: %v", err)
	}
	seq, p := c.mustReadPacket()
	if p[0] == 0xfe { // auth switch: the empty password again
		if err := c.writePacket(seq+1, nil); err != nil {
			c.t.Fatal(err)
		}
		_, p = c.mustReadPacket()
	}
	if p[0] != 0x00 {
		c.t.Fatalf("login as %s: %s", user, describePacket(p))
	}
	return c
}

// errCode returns the code of an ERR packet, 0 for any other packet.
func errCode(p []byte) int {
	if len(p) < 3 || p[0] != 0xff {
		return 0
	}
	return int(bin.LittleEndian.Uint16(p[1:]))
}

func describePacket(p []byte) string {
	if errCode(p) != 0 && len(p) >= 9 {
		return fmt.Sprintf("error %d (%s): %s", errCode(p), p[4:9], p[9:])
	}
	return fmt.Sprintf("%.40q", p)
}

// expectError reads until an ERR packet or the end of the connection and returns the ERR's
// code (0 when the connection ended without one).
func (c *rawConn) expectError() (int, string) {
	c.t.Helper()
	for range 100 {
		_, p, err := c.readPacket()
		if err != nil {
			return 0, err.Error()
		}
		if code := errCode(p); code != 0 {
			return code, describePacket(p)
		}
	}
	c.t.Fatal("no error within 100 packets")
	return 0, ""
}

// expectClosed waits until the server closes the connection.
func (c *rawConn) expectClosed() error {
	_ = c.SetReadDeadline(time.Now().Add(rawTimeout))
	_, err := io.Copy(io.Discard, c)
	return err
}

// capSSL is CLIENT_SSL: the 32-byte SSL request asks for TLS with it.
const capSSL = 0x800

// dialRawTLS sends the SSL request after the greeting and returns the connection over TLS,
// the handshake done, ready for the handshake response (sequence number 2).
func dialRawTLS(t testing.TB, addr string) *rawConn {
	t.Helper()
	c := dialRaw(t, addr)
	c.mustReadPacket() // greeting
	if err := c.writePacket(1, sslHandshakeResponse("")[:32]); err != nil {
		t.Fatalf("send SSL request: %v", err)
	}
	return c.startTLS()
}

// startTLS runs the TLS handshake after an SSL request was sent (the SSL flag is set here).
func (c *rawConn) startTLS() *rawConn {
	c.t.Helper()
	tc := tls.Client(c.Conn, &tls.Config{InsecureSkipVerify: true})
	_ = tc.SetDeadline(time.Now().Add(rawTimeout))
	if err := tc.Handshake(); err != nil {
		c.t.Fatalf("TLS handshake: %v", err)
	}
	_ = tc.SetDeadline(time.Time{})
	return &rawConn{t: c.t, Conn: tc}
}

// rawLoginTLS logs in as user (empty password) over TLS and returns the connection, ready for
// a command.
func rawLoginTLS(t testing.TB, addr, user string) *rawConn {
	t.Helper()
	return dialRawTLS(t, addr).login(2, sslHandshakeResponse(user), user+" over TLS")
}

// sslHandshakeResponse is handshakeResponse with CLIENT_SSL set, as clients send it over TLS.
func sslHandshakeResponse(user string) []byte {
	p := handshakeResponse(user)
	bin.LittleEndian.PutUint32(p, bin.LittleEndian.Uint32(p)|capSSL)
	return p
}
