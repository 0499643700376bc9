// Package wire is the MySQL wire protocol below the engine's protocol layer: the listeners and
// their gates, the limits on what a client may send, TLS, and the handshake. It knows sockets
// and packets and parses no SQL; of the engine it uses only a session's status variables
// (SetTLSStatus sets Ssl_cipher and Ssl_version).
//
// A connection's path through the package:
//
//  1. Accept. A Listener merges the main listener and admin_listen into the one net.Listener
//     the protocol layer accepts from; each socket has its own accept loop, so a burst on the
//     main port never delays an operator on the admin port.
//  2. Gate. Before any handshake work, the main listener's Gate refuses a connection over
//     max_connections, or with the drop probability of the current CPU overload
//     (overload.Probability between DropSettings.Min and Max), with the ERR packet MySQL sends
//     at max_connections (1040, 08004), so pools back off instead of retrying a reset. The
//     AdminGate never drops for overload; over admin_max_connections it closes the oldest
//     connection still in its handshake for the new one, as the Gate does at max_connections.
//  3. Packet limits. Every accepted connection is read through a packet reader (packets.go)
//     that sees each packet's header before the protocol layer allocates its announced size:
//     before login 64 KiB and connect_timeout, after it max_allowed_packet per message and for
//     pending long data; over a limit, 1153 and the connection is closed. It also answers the
//     commands the protocol layer would mishandle (1047, 1243). Handshakes keeps the
//     connections not yet logged in, oldest first, at most max_unauthenticated_connections.
//  4. TLS. The packet reader terminates TLS itself, so the limits hold inside it too; the
//     protocol layer sees a plain connection, marked secure by MarkSecure. Certificates holds
//     the certificate both listeners offer, replaced on reload for new connections only, and
//     generated (MySQL 8's file names, beside the config file) when none is configured.
//  5. Login. The server's auth calls MarkAuthenticated on success: the pre-login limits end.
//     StatisticsListener answers COM_STATISTICS for logged-in connections, which the protocol
//     layer does not know.
//  6. Waits. A statement that waits for the server (a CPU slot, the write lock) rather than
//     runs is cancelled when its client goes away (CancelWhenPeerCloses), through the
//     network poller, at no cost per statement; the engine watches running statements itself.
//
// What the package reports goes to Counters (the server shows them in system.events) and to
// the rate-limited log functions it is given. It imports mysqlerr for error numbers, overload
// for the drop probability and server/config for the certificate settings; never the server.
package wire
