// Package server wires overloadsql together on go-mysql-server.
//
// A connection's path: the listener accepts it (the main listener's gate may drop it with a
// 1040 ERR packet before any handshake work; the admin listener never does), the auth server
// checks the user's password (and that only admins use the admin listener), a session is built
// with the overload settings of its user, and every statement passes the overload interceptor
// (exempt? rejected?) before the engine parses it. The engine reads `main` (an in-memory
// database) and `system` (package tables), which shows the live state kept here: the sampler
// of package overload, the warning registry of package warnings, the running configuration and
// the counters.
//
// Who may do what is stated in one table in privileges.go: the engine's privilege tables hold
// the grants, and a guard checks every plan before it runs for what grants cannot express.
//
// The configuration (package server/config) is loaded at start, may be reloaded without a
// restart, and is swapped atomically: readers on hot paths take one pointer load.
package server
