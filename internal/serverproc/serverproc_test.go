package serverproc

import (
	"net"
	"strconv"
	"testing"
)

// The ports handed to test servers lie below the kernel's ephemeral range, where no client
// connection's source port can take them before the server binds them.
func TestFreeLoopbackAddrAvoidsEphemeralPorts(t *testing.T) {
	low := ephemeralLow()
	if low < 11000 {
		t.Skipf("the ephemeral range starts at %d: no room below it, any free port is used", low)
	}
	for range 20 {
		addr, err := FreeLoopbackAddr()
		if err != nil {
			t.Fatal(err)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil || host != "127.0.0.1" {
			t.Fatalf("address %q: %v", addr, err)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n >= low || n < 10000 {
			t.Fatalf("port %s, want in [10000, %d)", port, low)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("the port given is not free: %v", err)
		}
		l.Close()
	}
}
