package server

import (
	"bytes"
	"io"
	"net"
	"testing"
)

func packet(seq byte, payload string) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// chunkConn hands out its data a few bytes per Read, as a slow socket would.
type chunkConn struct {
	net.Conn
	data  []byte
	chunk int
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(c.chunk, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func TestPrepareRewriteConn(t *testing.T) {
	in := bytes.Join([][]byte{
		packet(1, "handshake response with system in it"),
		packet(0, "\x03SELECT * FROM system.events"),
		packet(0, "\x16SELECT message FROM system.warnings WHERE resource = ?"),
		packet(0, "\x16SELECT 1"),
		packet(0, "\x0e"),
	}, nil)
	want := bytes.Join([][]byte{
		packet(1, "handshake response with system in it"),
		packet(0, "\x03SELECT * FROM system.events"),
		packet(0, "\x16SELECT message FROM `system`.warnings WHERE resource = ?"),
		packet(0, "\x16SELECT 1"),
		packet(0, "\x0e"),
	}, nil)
	for _, chunk := range []int{1, 3, 7, 1 << 20} {
		c := newPrepareRewriteConn(&chunkConn{data: append([]byte(nil), in...), chunk: chunk})
		got, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("chunk %d:\n got %q\nwant %q", chunk, got, want)
		}
	}
}
