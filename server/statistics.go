package server

import (
	"bytes"
	"fmt"
	"net"
	"time"
)

// COM_STATISTICS (what `mariadb-admin status` and mysqladmin send) is not a command the
// protocol layer knows: it answered "command handling not implemented yet: 9". MySQL answers
// it with one packet holding a line of figures; statisticsConn does that below the protocol
// layer, for logged-in connections only (the figures are not for strangers).

// comStatisticsPacket is the whole COM_STATISTICS packet: payload length 1, sequence 0, 0x09.
var comStatisticsPacket = []byte{1, 0, 0, 0, comStatistics}

// statisticsListener wraps each accepted connection in a statisticsConn.
type statisticsListener struct {
	net.Listener
	text func() string
}

func (l statisticsListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &statisticsConn{Conn: c, text: l.text}, nil
}

// statisticsConn answers a COM_STATISTICS packet itself and hides it from the protocol layer.
// A client sends the command alone and waits for the answer, so it arrives as one read of
// exactly its five bytes; only the connection's goroutine reads and writes here then.
type statisticsConn struct {
	net.Conn
	text func() string
}

func (c *statisticsConn) Unwrap() net.Conn { return c.Conn }

func (c *statisticsConn) Read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		if err != nil || n != len(comStatisticsPacket) || !bytes.Equal(p[:n], comStatisticsPacket) {
			return n, err
		}
		if pc := packetConnOf(c.Conn); pc == nil || !pc.authenticated {
			return n, err
		}
		if err := c.answer(); err != nil {
			return 0, fmt.Errorf("answer COM_STATISTICS: %w", err)
		}
	}
}

func (c *statisticsConn) answer() error {
	text := c.text()
	packet := append([]byte{byte(len(text)), byte(len(text) >> 8), byte(len(text) >> 16), 1}, text...)
	_, err := c.Conn.Write(packet)
	return err
}

// statisticsText is MySQL's COM_STATISTICS line, with the figures overloadsql has; the ones it
// has no notion of (slow queries, opened and open tables) are 0.
func (s *Server) statisticsText() string {
	uptime := max(time.Since(s.started), time.Second)
	questions := s.counters.queries.Load()
	return fmt.Sprintf("Uptime: %d  Threads: %d  Questions: %d  Slow queries: 0  Opens: 0  Open tables: 0  Queries per second avg: %.3f",
		int64(uptime.Seconds()), s.counters.connections.Load(), questions, float64(questions)/uptime.Seconds())
}
