package wire

import "sync/atomic"

// Counters are the wire's cumulative events since start; the server shows them in
// system.events.
type Counters struct {
	AcceptedConnections    atomic.Uint64 // main listener, past its gate
	OverloadDropped        atomic.Uint64 // 1040 under overload
	OverloadDryRunDropped  atomic.Uint64 // would have been dropped; dry_run served them
	MaxConnectionsRejected atomic.Uint64 // 1040 at max_connections
	AdminRejected          atomic.Uint64 // 1040 at admin_max_connections
	ConnectTimeouts        atomic.Uint64 // not logged in within connect_timeout
	HandshakeEvictions     atomic.Uint64 // closed in their handshake for a new connection
	PacketTooLarge         atomic.Uint64 // closed with 1153
}
