package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// maxLoggedInput is the most of anything a client sends that may appear in the server's log.
const maxLoggedInput = 1024

// logGrowth runs attack and returns what the server logged meanwhile (after a short settle,
// polled: the log is written by the server's own goroutines).
func (s *testServer) logGrowth(t *testing.T, attack func()) string {
	t.Helper()
	before := len(s.log.String())
	attack()
	s.alive(t, "the attack")
	return s.log.String()[before:]
}

// stackTrace reports whether a log text holds a Go stack trace.
func stackTrace(log string) bool {
	return strings.Contains(log, "goroutine ") || strings.Contains(log, ".go:") && strings.Contains(log, "\n\t")
}

func TestLogFlooding(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	long := "SELECT * FROM missing_table WHERE x = '" + strings.Repeat("q", 10_000) + "'"

	t.Run("a failed statement is one line", func(t *testing.T) {
		log := s.logGrowth(t, func() {
			if _, err := db.Exec(long); err == nil {
				t.Fatal("the statement succeeded")
			}
		})
		if stackTrace(log) {
			t.Errorf("a failed statement logged a stack trace:\n%.3000s", log)
		}
		if strings.Contains(log, strings.Repeat("q", maxLoggedInput+1)) {
			t.Errorf("more than %d bytes of the statement were logged", maxLoggedInput)
		}
		lines := strings.Split(strings.TrimSpace(log), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], "missing_table") || !strings.Contains(lines[0], "user=default") || !strings.Contains(lines[0], "connection=") {
			t.Errorf("want one line with the error, user and connection id, got:\n%.3000s", log)
		}
	})

	attacks := []struct {
		name    string
		payload []byte // one command after login
	}{
		{"unknown command byte with 1 MiB", append([]byte{0xee}, make([]byte, 1<<20)...)},
		{"COM_RESET_CONNECTION first", []byte{0x1f}},
		{"COM_STMT_RESET of an unknown id", []byte{0x1a, 9, 9, 9, 9}},
		{"an empty packet", nil},
		{"COM_STMT_EXECUTE of an unknown id", []byte{0x17, 9, 9, 9, 9, 0, 1, 0, 0, 0}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			log := s.logGrowth(t, func() {
				for range 50 {
					c := rawLogin(t, s.addr, "default")
					if err := c.writePacket(0, a.payload); err != nil {
						t.Fatal(err)
					}
					_ = c.SetReadDeadline(time.Now().Add(rawTimeout))
					_, _, _ = c.readPacket()
					c.Close()
				}
			})
			if stackTrace(log) {
				t.Errorf("logged a stack trace:\n%.3000s", log)
			}
			if n := len(log); n > 50*maxLoggedInput/4 {
				t.Errorf("50 attacks logged %d bytes:\n%.3000s", n, log)
			}
		})
	}

	t.Run("a long user name before login", func(t *testing.T) {
		log := s.logGrowth(t, func() {
			c := dialRaw(t, s.addr)
			c.mustReadPacket()
			_ = c.writePacket(1, handshakeResponse(strings.Repeat("u", 60_000)))
			c.expectError()
		})
		if strings.Contains(log, strings.Repeat("u", maxLoggedInput+1)) {
			t.Errorf("more than %d bytes of the user name were logged", maxLoggedInput)
		}
	})

	for _, length := range [][]byte{
		{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
		{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	} {
		t.Run(fmt.Sprintf("a length-encoded auth response of % x", length), func(t *testing.T) {
			log := s.logGrowth(t, func() {
				for range 50 {
					c := dialRaw(t, s.addr)
					c.mustReadPacket()
					p := handshakeResponse("default")
					// CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA, then a length far beyond the packet
					p[2] |= 0x20
					i := 32 + len("default") + 1
					p = append(p[:i:i], length...)
					_ = c.writePacket(1, p)
					c.expectError()
					c.Close()
				}
			})
			if stackTrace(log) || strings.Contains(log, "stack=") {
				t.Errorf("logged a stack trace:\n%.3000s", log)
			}
			if n := len(log); n > 50*maxLoggedInput/4 {
				t.Errorf("50 attempts logged %d bytes:\n%.3000s", n, log)
			}
		})
	}
}
