package wire

import (
	"crypto/tls"
	"net"
)

// unwrapper is a connection wrapper of this package (or of the server above it).
type unwrapper interface{ Unwrap() net.Conn }

// connOf finds the connection of type T under the connection wrappers (TLS included).
func connOf[T net.Conn](c net.Conn) (T, bool) {
	for {
		if v, ok := c.(T); ok {
			return v, true
		}
		switch v := c.(type) {
		case *tls.Conn:
			c = v.NetConn()
		case unwrapper:
			c = v.Unwrap()
		default:
			var zero T
			return zero, false
		}
	}
}
