package integration

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
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

// TestReadyDuringShutdown: from SIGTERM on, while a running statement finishes, /ready answers
// 503 "shutting down" so load balancers stop sending connections; the HTTP listener closes with
// the server.
func TestReadyDuringShutdown(t *testing.T) {
	s, base := startHTTPServer(t, "shutdown_timeout_s = 30\n")
	db := s.db()
	done := make(chan error, 1)
	go func() {
		var n int64
		done <- db.QueryRow(heavyQuery).Scan(&n)
	}()
	eventually(t, 10*time.Second, "the heavy statement to start", func() (bool, string) {
		rows := queryStrings(t, s.adminDB(), "SELECT value FROM system.metrics WHERE metric = 'Query'")
		n := 0
		if len(rows) == 1 {
			n, _ = strconv.Atoi(rows[0])
		}
		return n >= 2, strings.Join(rows, ",") // the heavy statement and this one
	})
	if err := s.proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sawShuttingDown := false
	for deadline := time.Now().Add(30 * time.Second); !sawShuttingDown; {
		if time.Now().After(deadline) {
			t.Fatal("/ready did not say it was shutting down within 30 s")
		}
		select {
		case err := <-done:
			t.Fatalf("the statement ended (%v) before /ready said it was shutting down", err)
		default:
		}
		code, body := httpGet(t, base+"/ready", "", "")
		sawShuttingDown = code == 503 && body == "shutting down\n"
		if !sawShuttingDown && code != 200 {
			t.Fatalf("/ready during shutdown = %d %q", code, body)
		}
	}
	if err := <-done; err != nil {
		t.Errorf("the running statement failed: %v", err)
	}
	select {
	case <-s.proc.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("server did not exit")
	}
	if _, err := http.Get(base + "/ping"); err == nil {
		t.Error("the HTTP listener still answers after the server exited")
	}
}
