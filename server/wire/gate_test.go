package wire

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
)

// dialedPair returns both ends of a real loopback TCP connection.
func dialedPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return server, client
}

func testGate(overloadRatio float64, d DropSettings, seed uint64) *Gate {
	rng := rand.New(rand.NewPCG(seed, seed))
	limits, c := testLimits(1 << 20)
	return &Gate{
		Settings: func() DropSettings { return d },
		Overload: func() float64 { return overloadRatio },
		Random:   rng.Float64,
		Counters: c,
		Log:      func(string) {},
		Limits:   limits,
	}
}

func TestGateDropsWithTheProbabilityOfTheOverload(t *testing.T) {
	for _, tc := range []struct {
		name     string
		overload float64
		d        DropSettings
		wantRate float64
	}{
		{"ratio 4, min 2, max 6", 4, DropSettings{Min: 2, Max: 6, MaxConnections: 1000}, 0.5},
		{"at max", 6, DropSettings{Min: 2, Max: 6, MaxConnections: 1000}, 1},
		{"at min", 2, DropSettings{Min: 2, Max: 6, MaxConnections: 1000}, 0},
		{"dropping off", 9, DropSettings{Min: 0, Max: 0, MaxConnections: 1000}, 0},
		{"dry run serves", 9, DropSettings{Min: 2, Max: 6, MaxConnections: 1000, DryRun: true}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := testGate(tc.overload, tc.d, 3)
			const n = 400
			dropped := 0
			for range n {
				server, _ := dialedPair(t)
				if c := g.admit(server); c == nil {
					dropped++
				} else {
					c.Close()
				}
			}
			if got := float64(dropped) / n; got < tc.wantRate-0.08 || got > tc.wantRate+0.08 {
				t.Errorf("dropped %.3f, want %.2f", got, tc.wantRate)
			}
			if got := g.Counters.OverloadDropped.Load(); got != uint64(dropped) {
				t.Errorf("OverloadDroppedConnections = %d, want %d", got, dropped)
			}
			if g.Open.Load() != 0 {
				t.Errorf("%d connections still counted open after closing them all", g.Open.Load())
			}
		})
	}
}

func TestGateRefusalIsAMySQLErrorPacket(t *testing.T) {
	g := testGate(9, DropSettings{Min: 2, Max: 6, MaxConnections: 1000}, 1)
	server, client := dialedPair(t)
	if g.admit(server) != nil {
		t.Fatal("admitted at ratio 9 over max 6")
	}
	pkt, err := io.ReadAll(client)
	if err != nil {
		t.Fatal(err)
	}
	length := int(pkt[0]) | int(pkt[1])<<8 | int(pkt[2])<<16
	if length != len(pkt)-4 || pkt[3] != 0 || pkt[4] != 0xff {
		t.Fatalf("not one ERR packet: % x", pkt[:min(len(pkt), 12)])
	}
	if code := binary.LittleEndian.Uint16(pkt[5:7]); code != 1040 {
		t.Errorf("error code %d, want 1040", code)
	}
	if state := string(pkt[7:13]); state != "#08004" {
		t.Errorf("SQLSTATE %q, want #08004", state)
	}
	if msg := string(pkt[13:]); !strings.HasPrefix(msg, "Too many connections: CPU is overloaded") || !strings.HasSuffix(msg, "drop the connection 1.") {
		t.Errorf("message %q", msg)
	}
}

func TestGateMaxConnections(t *testing.T) {
	g := testGate(0, DropSettings{MaxConnections: 2}, 1)
	var open []net.Conn
	for range 2 {
		server, _ := dialedPair(t)
		c := g.admit(server)
		if c == nil {
			t.Fatal("refused under max_connections")
		}
		packetConnOf(c).markAuthenticated()
		open = append(open, c)
	}
	server, _ := dialedPair(t)
	if g.admit(server) != nil {
		t.Fatal("admitted over max_connections")
	}
	open[0].Close()
	open[0].Close() // a second Close must not free a second place
	server, _ = dialedPair(t)
	if c := g.admit(server); c == nil {
		t.Error("refused after a place was freed")
	} else {
		packetConnOf(c).markAuthenticated()
	}
	server, _ = dialedPair(t)
	if g.admit(server) != nil {
		t.Error("a double Close freed two places")
	}
	if got := g.Counters.MaxConnectionsRejected.Load(); got != 2 {
		t.Errorf("MaxConnectionsRejectedConnections = %d, want 2", got)
	}
}

// Over max_connections, a connection that has not logged in yet makes room for the new one.
func TestGateEvictsTheOldestUnauthenticated(t *testing.T) {
	g := testGate(0, DropSettings{MaxConnections: 3}, 1)
	var open []net.Conn
	for range 3 {
		server, _ := dialedPair(t)
		open = append(open, g.admit(server))
	}
	packetConnOf(open[0]).markAuthenticated()
	server, _ := dialedPair(t)
	if g.admit(server) == nil {
		t.Fatal("refused while unauthenticated connections were open")
	}
	if !packetConnOf(open[1]).evicted.Load() || packetConnOf(open[0]).evicted.Load() || packetConnOf(open[2]).evicted.Load() {
		t.Error("evicted another connection than the oldest unauthenticated one")
	}
	if got := g.Open.Load(); got != 3 {
		t.Errorf("open = %d, want 3", got)
	}
	if got := g.Counters.HandshakeEvictions.Load(); got != 1 {
		t.Errorf("HandshakeEvictedConnections = %d, want 1", got)
	}
}

// TestGateDryRunServesAndCounts: in dry_run a connection the overload would drop is served,
// counted as a would-be drop and as accepted, never as dropped.
func TestGateDryRunServesAndCounts(t *testing.T) {
	g := testGate(10, DropSettings{Min: 1, Max: 2, MaxConnections: 100, DryRun: true}, 1)
	for i := range 3 {
		srv, _ := dialedPair(t)
		if c := g.admit(srv); c == nil {
			t.Fatalf("connection %d refused in dry_run", i)
		}
	}
	c := g.Counters
	if got := [3]uint64{c.OverloadDryRunDropped.Load(), c.OverloadDropped.Load(), c.AcceptedConnections.Load()}; got != [3]uint64{3, 0, 3} {
		t.Errorf("dry-run drops, drops, accepted = %v, want [3 0 3]", got)
	}
}
