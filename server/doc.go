// Package server wires overloadsql together on go-mysql-server.
//
// A connection's path: the listener accepts it (the main listener's gate may drop it with a
// 1040 ERR packet before any handshake work; the admin listener never does, but both bound
// their connections and the ones still in their handshake), a packet reader below the protocol
// layer enforces the per-client limits (bytes and time before login, max_allowed_packet after),
// the auth server checks the user's password (delaying answers to an address after repeated
// failures, and checking that only admins use the admin listener), a session is built
// with the overload settings of its user, and every statement passes the overload interceptor
// (exempt? rejected?) before the engine parses it. The engine reads `main` (an in-memory
// database) and `system` (package tables), which shows the live state kept here: the sampler
// of package overload, the warning registry of package warnings, the running configuration and
// the counters.
//
// The configuration (package server/config) is loaded at start, may be reloaded without a
// restart, and is swapped atomically: readers on hot paths take one pointer load.
package server
