package server

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

func packet(seq byte, payload string) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// header is a packet header announcing n payload bytes, without the payload.
func header(seq byte, n int) []byte {
	return []byte{byte(n), byte(n >> 8), byte(n >> 16), seq}
}

// chunkConn hands out its data a few bytes per Read, as a slow socket would, and keeps what is
// written to it.
type chunkConn struct {
	net.Conn
	data    []byte
	chunk   int
	written bytes.Buffer
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

func (c *chunkConn) Write(p []byte) (int, error)      { return c.written.Write(p) }
func (c *chunkConn) SetReadDeadline(time.Time) error  { return nil }
func (c *chunkConn) SetWriteDeadline(time.Time) error { return nil }
func (c *chunkConn) Close() error                     { return nil }

func testLimits(maxPacket int) (*clientLimits, *counters) {
	c := &counters{}
	log := newRateLimitedLog(slog.New(slog.DiscardHandler), "test")
	return &clientLimits{
		maxPacket:      func() int { return maxPacket },
		connectTimeout: func() time.Duration { return time.Second },
		handshakes:     newHandshakes(func() int { return 8 }, c, log),
		counters:       c,
		log:            log,
	}, c
}

func longData(stmt uint32, data string) string {
	return "\x18" + string(binary.LittleEndian.AppendUint32(nil, stmt)) + "\x00\x00" + data
}

func stmtCommand(cmd byte, stmt uint32) string {
	return string(cmd) + string(binary.LittleEndian.AppendUint32(nil, stmt)) + "\x00\x01\x00\x00\x00"
}

func TestPacketConn(t *testing.T) {
	tooLarge := "\xff\x81\x04#08S01" + errPacketTooLargeText
	big := strings.Repeat("x", 600)
	for _, tc := range []struct {
		name      string
		maxPacket int
		loggedIn  bool
		in, want  []byte
		// answer is the ERR payload the client gets, with its sequence number; "" for none.
		answer    string
		answerSeq byte
	}{
		{
			name: "prepared statements name system unquoted", maxPacket: 1 << 20, loggedIn: true,
			in: bytes.Join([][]byte{
				packet(1, "handshake response with system in it"),
				packet(0, "\x03SELECT * FROM system.events"),
				packet(0, "\x16SELECT message FROM system.warnings WHERE resource = ?"),
				packet(0, "\x16SELECT 1"),
				packet(0, "\x16"),
				packet(0, "\x0e"),
			}, nil),
			want: bytes.Join([][]byte{
				packet(1, "handshake response with system in it"),
				packet(0, "\x03SELECT * FROM system.events"),
				packet(0, "\x16SELECT message FROM `system`.warnings WHERE resource = ?"),
				packet(0, "\x16SELECT 1"),
				packet(0, "\x16"),
				packet(0, "\x0e"),
			}, nil),
		},
		{
			name: "before login a 16 MiB header is refused before its bytes", maxPacket: 1 << 30,
			in:     header(1, maxPacketPayload-1),
			answer: tooLarge, answerSeq: 2,
		},
		{
			name: "before login at most 64 KiB in all", maxPacket: 1 << 30,
			in:     append(packet(1, strings.Repeat("u", 40<<10)), header(2, 30<<10)...),
			want:   packet(1, strings.Repeat("u", 40<<10)),
			answer: tooLarge, answerSeq: 3,
		},
		{
			name: "a query over max_allowed_packet", maxPacket: 1024, loggedIn: true,
			in:     append(packet(0, "\x03SELECT 1"), header(0, 2000)...),
			want:   packet(0, "\x03SELECT 1"),
			answer: tooLarge, answerSeq: 1,
		},
		{
			name: "long data counts across packets and statements", maxPacket: 1024, loggedIn: true,
			in: bytes.Join([][]byte{
				packet(0, longData(1, big)),
				packet(0, longData(2, big)),
				packet(0, "\x0e"),
			}, nil),
			want:   packet(0, longData(1, big)),
			answer: tooLarge, answerSeq: 1,
		},
		{
			name: "executing a statement frees its long data", maxPacket: 1024, loggedIn: true,
			in: bytes.Join([][]byte{
				packet(0, longData(1, big)),
				packet(0, stmtCommand(comStmtExecute, 1)),
				packet(0, longData(1, big)),
				packet(0, stmtCommand(comStmtReset, 1)),
				packet(0, longData(1, big)),
			}, nil),
			want: bytes.Join([][]byte{
				packet(0, longData(1, big)),
				packet(0, stmtCommand(comStmtExecute, 1)),
				packet(0, longData(1, big)),
				packet(0, stmtCommand(comStmtReset, 1)),
				packet(0, longData(1, big)),
			}, nil),
		},
		{
			name: "after an SSL request the stream is passed through", maxPacket: 1024,
			in:   append(packet(1, strings.Repeat("s", 32)), header(0, 0xfffff0)...),
			want: append(packet(1, strings.Repeat("s", 32)), header(0, 0xfffff0)...),
		},
	} {
		for _, chunk := range []int{1, 3, 7, 1 << 20} {
			limits, _ := testLimits(tc.maxPacket)
			sock := &chunkConn{data: append([]byte(nil), tc.in...), chunk: chunk}
			c := newPacketConn(sock, limits)
			if tc.loggedIn {
				c.markAuthenticated()
			}
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("%s, chunk %d: %v", tc.name, chunk, err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("%s, chunk %d:\n got %.200q\nwant %.200q", tc.name, chunk, got, tc.want)
			}
			var answer []byte
			if tc.answer != "" {
				answer = packet(tc.answerSeq, tc.answer)
			}
			if !bytes.Equal(sock.written.Bytes(), answer) {
				t.Errorf("%s, chunk %d: answered %q, want %q", tc.name, chunk, sock.written.Bytes(), answer)
			}
		}
	}
}

func TestPacketConnSplitMessage(t *testing.T) {
	limits, counters := testLimits(maxPacketPayload + 10)
	in := append(header(0, maxPacketPayload), make([]byte, maxPacketPayload)...)
	in = append(in, header(1, 11)...)
	sock := &chunkConn{data: in, chunk: 1 << 20}
	c := newPacketConn(sock, limits)
	c.markAuthenticated()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4+maxPacketPayload {
		t.Errorf("passed %d bytes, want the first packet (%d)", len(got), 4+maxPacketPayload)
	}
	if !bytes.Equal(sock.written.Bytes(), packet(2, "\xff\x81\x04#08S01"+errPacketTooLargeText)) {
		t.Errorf("answered %q", sock.written.Bytes())
	}
	if counters.packetTooLarge.Load() != 1 {
		t.Errorf("PacketTooLargeClosedConnections = %d, want 1", counters.packetTooLarge.Load())
	}
}
