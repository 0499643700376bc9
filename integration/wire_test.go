package integration

import (
	"bytes"
	le "encoding/binary"
	"testing"
)

// A minimal MySQL client at the packet level, for the tests that compare bytes with what
// MySQL 8 sends (drivers hide them).

// A status flag and a capability bit of the MySQL protocol (more are in rawclient_test.go).
const (
	statusAutocommit = 0x0002

	capMultiResults = 0x00020000
)

// wire is one raw connection that keeps the packets' sequence numbers itself.
type wire struct {
	*rawConn
	seq byte
}

func dialWire(t testing.TB, addr string) *wire {
	t.Helper()
	return &wire{rawConn: dialRaw(t, addr)}
}

// read returns the next packet's payload.
func (w *wire) read() []byte {
	w.t.Helper()
	seq, p := w.mustReadPacket()
	w.seq = seq + 1
	return p
}

func (w *wire) write(payload []byte) {
	w.t.Helper()
	if err := w.writePacket(w.seq, payload); err != nil {
		w.t.Fatalf("write packet: %v", err)
	}
	w.seq++
}

// greeting is the server's Protocol::HandshakeV10.
type greeting struct {
	raw          []byte
	version      string
	capabilities uint32
	status       uint16
	authDataLen  int
	salt1, salt2 []byte // the two parts of the auth plugin data as sent (salt2 with its NUL)
	plugin       string
	connectionID uint32
	characterSet byte
}

// salt is the 20-byte scramble: both parts without the terminating NUL.
func (g greeting) salt() []byte {
	s := append(append([]byte{}, g.salt1...), g.salt2...)
	return bytes.TrimRight(s, "\x00")
}

func (w *wire) greeting() greeting {
	w.t.Helper()
	p := w.read()
	g := greeting{raw: p}
	if p[0] != 10 {
		w.t.Fatalf("greeting protocol version %d, want 10: % x", p[0], p)
	}
	end := bytes.IndexByte(p[1:], 0) + 1
	g.version = string(p[1:end])
	i := end + 1
	g.connectionID = le.LittleEndian.Uint32(p[i:])
	i += 4
	g.salt1 = p[i : i+8]
	i += 8 + 1
	g.capabilities = uint32(le.LittleEndian.Uint16(p[i:]))
	i += 2
	g.characterSet = p[i]
	i++
	g.status = le.LittleEndian.Uint16(p[i:])
	i += 2
	g.capabilities |= uint32(le.LittleEndian.Uint16(p[i:])) << 16
	i += 2
	g.authDataLen = int(p[i])
	i += 1 + 10
	n := max(13, g.authDataLen-8)
	g.salt2 = p[i : i+n]
	i += n
	if end := bytes.IndexByte(p[i:], 0); end >= 0 {
		g.plugin = string(p[i : i+end])
	} else {
		g.plugin = string(p[i:])
	}
	return g
}

// login answers the greeting as user with the given auth response for plugin and returns the
// server's next packet (OK, ERR, or an auth switch / more-data request).
func (w *wire) login(g greeting, user string, authResponse []byte, plugin ...string) []byte {
	w.t.Helper()
	name := g.plugin
	if len(plugin) > 0 {
		name = plugin[0]
	}
	caps := uint32(capLongPassword | capProtocol41 | capTransactions | capSecureConnection | capMultiResults | capPluginAuth)
	var p []byte
	p = le.LittleEndian.AppendUint32(p, caps)
	p = le.LittleEndian.AppendUint32(p, 1<<24)
	p = append(p, 255) // utf8mb4_0900_ai_ci
	p = append(p, make([]byte, 23)...)
	p = append(append(p, user...), 0)
	p = append(append(p, byte(len(authResponse))), authResponse...)
	p = append(append(p, name...), 0)
	w.write(p)
	return w.read()
}

// okStatus returns the status flags of an OK packet.
func okStatus(t testing.TB, ok []byte) uint16 {
	t.Helper()
	i := 1
	for range 2 { // affected rows, last insert id
		_, n := lenenc(ok[i:])
		i += n
	}
	return le.LittleEndian.Uint16(ok[i:])
}

// lenenc decodes a length-encoded integer and returns it with its size.
func lenenc(b []byte) (uint64, int) {
	switch b[0] {
	case 0xfc:
		return uint64(le.LittleEndian.Uint16(b[1:])), 3
	case 0xfd:
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4
	case 0xfe:
		return le.LittleEndian.Uint64(b[1:]), 9
	}
	return uint64(b[0]), 1
}
