package integration

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHTTPSlowClientIsCut: a client that sends half a request and stalls (slowloris) is
// disconnected by the server's header timeout instead of holding its connection for ever.
func TestHTTPSlowClientIsCut(t *testing.T) {
	_, base := startHTTPServer(t, "")
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(20 * time.Second))
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server still held a stalled request after %v", time.Since(start).Round(time.Second))
	}
	t.Logf("stalled request closed after %v", time.Since(start).Round(100*time.Millisecond))
}

// TestHTTPHeadersAreBounded: a request with headers over the limit gets 431, not a server that
// buffers whatever it is sent.
func TestHTTPHeadersAreBounded(t *testing.T) {
	_, base := startHTTPServer(t, "")
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	go func() {
		_, _ = io.WriteString(conn, "GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 64<<10)+"\r\n\r\n")
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("64 KiB of headers: %s, want 431", resp.Status)
	}
}
