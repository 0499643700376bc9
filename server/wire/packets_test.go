package wire

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
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

func testLimits(maxPacket int) (*ClientLimits, *Counters) {
	c := &Counters{}
	log := func(string) {}
	return &ClientLimits{
		MaxPacket:      func() int { return maxPacket },
		ConnectTimeout: func() time.Duration { return time.Second },
		Handshakes:     NewHandshakes(func() int { return 8 }, c, log),
		Counters:       c,
		Log:            log,
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
		// answered is what the client gets from the reader itself (ERR packets); nil for none.
		answered []byte
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
			in:       header(1, maxPacketPayload-1),
			answered: packet(2, tooLarge),
		},
		{
			name: "before login at most 64 KiB in all", maxPacket: 1 << 30,
			in:       append(packet(1, strings.Repeat("u", 40<<10)), header(2, 30<<10)...),
			want:     packet(1, strings.Repeat("u", 40<<10)),
			answered: packet(3, tooLarge),
		},
		{
			name: "a query over max_allowed_packet", maxPacket: 1024, loggedIn: true,
			in:       append(packet(0, "\x03SELECT 1"), header(0, 2000)...),
			want:     packet(0, "\x03SELECT 1"),
			answered: packet(1, tooLarge),
		},
		{
			name: "long data counts across packets and statements", maxPacket: 1024, loggedIn: true,
			in: bytes.Join([][]byte{
				packet(0, longData(1, big)),
				packet(0, longData(2, big)),
				packet(0, "\x0e"),
			}, nil),
			want:     packet(0, longData(1, big)),
			answered: packet(1, tooLarge),
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
			name: "an empty command and an unknown one are answered here, their payload dropped", maxPacket: 1 << 20, loggedIn: true,
			in: bytes.Join([][]byte{
				packet(0, ""),
				packet(0, "\xee"+big),
				packet(0, "\x0e"),
			}, nil),
			want:     packet(0, "\x0e"),
			answered: append(packet(1, "\xff\x17\x04#08S01Unknown command"), packet(1, "\xff\x17\x04#08S01Unknown command")...),
		},
		{
			name: "a handshake response whose auth response is longer than the packet", maxPacket: 1 << 20,
			in:       packet(1, strings.Repeat("\x00", 2)+"\x20\x00"+strings.Repeat("\x00", 28)+"u\x00\xfe\xff\xff\xff\xff\xff\xff\xff\xff"),
			answered: packet(2, "\xff\x13\x04#08S01Bad handshake"),
		},
		{
			name: "a well-formed handshake response passes", maxPacket: 1 << 20,
			in:   packet(1, strings.Repeat("\x00", 2)+"\x20\x00"+strings.Repeat("\x00", 28)+"u\x00\x02ab"),
			want: packet(1, strings.Repeat("\x00", 2)+"\x20\x00"+strings.Repeat("\x00", 28)+"u\x00\x02ab"),
		},
		{
			name: "without TLS a 32-byte response is a handshake response, not a way past the limits", maxPacket: 1024,
			in:       append(packet(1, strings.Repeat("s", 32)), header(0, 0xfffff0)...),
			want:     packet(1, strings.Repeat("s", 32)),
			answered: packet(1, "\xff\x81\x04#08S01"+errPacketTooLargeText),
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
			if !bytes.Equal(sock.written.Bytes(), tc.answered) {
				t.Errorf("%s, chunk %d: answered %q, want %q", tc.name, chunk, sock.written.Bytes(), tc.answered)
			}
		}
	}
}

func TestPacketConnSplitMessage(t *testing.T) {
	limits, counters := testLimits(maxPacketPayload + 10)
	payload := make([]byte, maxPacketPayload)
	payload[0] = comQuery
	in := append(header(0, maxPacketPayload), payload...)
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
	if counters.PacketTooLarge.Load() != 1 {
		t.Errorf("PacketTooLargeClosedConnections = %d, want 1", counters.PacketTooLarge.Load())
	}
}

// A command answered by the reader is answered in order: only once the protocol layer has read
// every command before it, and before it reads the next.
func TestPacketConnAnswersInOrder(t *testing.T) {
	limits, _ := testLimits(1 << 20)
	first, second := packet(0, "\x03SELECT 1"), packet(0, "\x03SELECT 2")
	in := bytes.Join([][]byte{first, packet(0, "\xee"), second}, nil)
	sock := &chunkConn{data: in, chunk: 1 << 20}
	c := newPacketConn(sock, limits)
	c.markAuthenticated()
	got := make([]byte, len(first))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("first command: %q, %v", got, err)
	}
	if sock.written.Len() != 0 {
		t.Fatalf("answered %q before the first command was served", sock.written.Bytes())
	}
	got = make([]byte, len(second))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, second) {
		t.Fatalf("second command: %q, %v", got, err)
	}
	if want := packet(1, "\xff\x17\x04#08S01Unknown command"); !bytes.Equal(sock.written.Bytes(), want) {
		t.Errorf("answered %q, want %q", sock.written.Bytes(), want)
	}
}

// BenchmarkPacketConnSelectOne is the reader's cost per command on the fast path: a logged-in
// client sending SELECT 1, read by the protocol layer in 16 KiB reads.
func BenchmarkPacketConnSelectOne(b *testing.B) {
	limits, _ := testLimits(64 << 20)
	one := packet(0, "\x03SELECT 1")
	stream := bytes.Repeat(one, 1000)
	sock := &chunkConn{chunk: 1 << 20}
	c := newPacketConn(sock, limits)
	c.markAuthenticated()
	buf := make([]byte, 16<<10)
	b.SetBytes(int64(len(one)))
	for b.Loop() {
		if len(sock.data) == 0 {
			sock.data = stream
		}
		// One command per iteration: the header and payload, as the protocol layer reads them.
		if _, err := io.ReadFull(c, buf[:len(one)]); err != nil {
			b.Fatal(err)
		}
	}
}

// An SSL request starts TLS in the reader: the handshake response inside TLS reaches the
// protocol layer without CLIENT_SSL and one sequence number lower, the answers reach the client
// one higher until its first command, and the pre-login limit holds inside TLS.
func TestPacketConnTerminatesTLS(t *testing.T) {
	certPEM, keyPEM, err := selfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	limits, counters := testLimits(1 << 20)
	limits.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	serverSide, clientSide := net.Pipe()
	defer clientSide.Close()
	c := newPacketConn(serverSide, limits)
	defer c.Close()

	response := strings.Repeat("\x00", 1) + "\x0a" + strings.Repeat("\x00", 30) + "u\x00\x00"
	client := make(chan error, 1)
	var tc *tls.Conn
	go func() {
		if _, err := clientSide.Write(packet(1, "\x00\x08"+strings.Repeat("\x00", 30))); err != nil {
			client <- err
			return
		}
		tc = tls.Client(clientSide, &tls.Config{InsecureSkipVerify: true})
		_, err := tc.Write(packet(2, response))
		client <- err
	}()
	got := make([]byte, 4+len(response))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if err := <-client; err != nil {
		t.Fatal(err)
	}
	want := packet(1, "\x00\x02"+strings.Repeat("\x00", 30)+"u\x00\x00")
	if !bytes.Equal(got, want) {
		t.Errorf("handshake response inside TLS:\n got %q\nwant %q", got, want)
	}

	// The protocol layer writes its answer (seq 2) in pieces that split the header.
	answer := append(packet(2, "\x01\x03"), packet(3, "\x00\x00\x00")...)
	go func() {
		for _, piece := range [][]byte{answer[:2], answer[2:5], answer[5:]} {
			if _, err := c.Write(piece); err != nil {
				client <- err
				return
			}
		}
		client <- nil
	}()
	read := make([]byte, len(answer))
	if _, err := io.ReadFull(tc, read); err != nil {
		t.Fatal(err)
	}
	if err := <-client; err != nil {
		t.Fatal(err)
	}
	if want := append(packet(3, "\x01\x03"), packet(4, "\x00\x00\x00")...); !bytes.Equal(read, want) {
		t.Errorf("answer inside TLS:\n got %q\nwant %q", read, want)
	}

	// Before login, a header announcing more than the pre-login limit inside TLS is refused.
	go func() {
		if _, err := tc.Write(header(4, 0xfffff0)); err != nil {
			client <- err
			return
		}
		refusal := make([]byte, 4+9+len(errPacketTooLargeText))
		if _, err := io.ReadFull(tc, refusal); err != nil {
			client <- err
			return
		}
		if want := packet(5, "\xff\x81\x04#08S01"+errPacketTooLargeText); !bytes.Equal(refusal, want) {
			client <- fmt.Errorf("refusal inside TLS: %q, want %q", refusal, want)
			return
		}
		client <- nil
	}()
	if n, err := c.Read(make([]byte, 16)); n != 0 || err != io.EOF {
		t.Errorf("after a 16 MiB header inside TLS: %d bytes, %v; want the end of the stream", n, err)
	}
	if err := <-client; err != nil {
		t.Fatal(err)
	}
	if counters.PacketTooLarge.Load() != 1 {
		t.Errorf("packetTooLarge = %d, want 1", counters.PacketTooLarge.Load())
	}
}

// A big prepared statement does not keep its size in the connection's buffers once it is read.
func TestPacketConnReleasesBigBuffers(t *testing.T) {
	limits, _ := testLimits(1 << 20)
	prepare := packet(0, "\x16SELECT '"+strings.Repeat("x", 4*retainedBuffer)+"'")
	one := packet(0, "\x03SELECT 1")
	sock := &chunkConn{data: append(bytes.Clone(prepare), one...), chunk: 16 << 10}
	c := newPacketConn(sock, limits)
	c.markAuthenticated()
	got := make([]byte, len(prepare))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, prepare) {
		t.Fatalf("prepare: %d bytes, %v", len(got), err)
	}
	got = make([]byte, len(one))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, one) {
		t.Fatalf("next command: %q, %v", got, err)
	}
	if n, err := c.Read(got); n != 0 || err != io.EOF {
		t.Fatalf("end of stream: %d bytes, %v", n, err)
	}
	if cap(c.prepare) > retainedBuffer || cap(c.out) > retainedBuffer {
		t.Errorf("kept buffers of %d and %d bytes, want at most %d", cap(c.prepare), cap(c.out), retainedBuffer)
	}
}
