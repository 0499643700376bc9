package wire

import (
	"bytes"
	"fmt"
	"net"
)

// COM_STATISTICS (what `mariadb-admin status` and mysqladmin send) is answered by MySQL with one
// packet holding a line of figures. The protocol layer does not implement the command (checked
// against vitess 19559ab533b7; integration test TestBackupAndAdminTools), so statisticsConn
// answers it below that layer, for logged-in connections only (the figures are not for
// strangers).

// comStatisticsPacket is the whole COM_STATISTICS packet: payload length 1, sequence 0, 0x09.
var comStatisticsPacket = []byte{1, 0, 0, 0, comStatistics}

// StatisticsListener wraps each accepted connection in a statisticsConn.
type StatisticsListener struct {
	net.Listener
	Text func() string // the answer: MySQL's line of figures
}

func (l StatisticsListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &statisticsConn{Conn: c, text: l.Text}, nil
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
		if !LoggedIn(c.Conn) {
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
