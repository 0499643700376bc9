// Package server wires overloadsql together on go-mysql-server.
//
// A connection's path: package server/wire accepts it (the main listener's gate may drop it
// with a 1040 ERR packet before any handshake work; the admin listener never does, but both
// bound their connections and the ones still in their handshake), and its packet reader below
// the protocol layer enforces the per-client limits (bytes and time before login,
// max_allowed_packet after) and terminates TLS; then package server/access checks the user's
// password (delaying answers to an address after repeated failures, and checking that only
// admins use the admin listener), a session is built with the overload settings of its user,
// and every statement passes the overload interceptor (exempt? rejected?) before the engine
// parses it; an ordinary one (not on the admin listener) is registered while it runs, so that
// the memory guard (package server/memlimit) can stop it when the heap crosses the memory
// limit. The engine reads `main` and the databases made by CREATE DATABASE, stored in package
// storage on data_dir (opened by package server/data), and `system` (package tables), which
// shows the live state kept here: the sampler of package overload, the warning registry of
// package warnings, the running configuration and the counters.
//
// What corrects or bounds the engine itself is package engine: its analyzer rules, rewrites of
// the parsed statement and checked functions, which buildEngine installs, giving them what they
// need of the server (engine.Hooks: the RENAME TABLE check, the memory guard's stop), and
// package engine/functions, the function provider with the functions bounded by
// max_allowed_packet (given max_allowed_packet and the memory guard's stop). The
// parser override (parser.go) is the server's: the text rewrites of package server/statement,
// the bound on view expansion, then engine.Rewrite.
//
// Transactions are the storage's; transactions.go makes one transaction write at a time (the
// write lock of package server/data) and marks every statement on the storage session, so that
// a failed statement undoes only its own changes.
//
// Who may do what is stated in one table in package server/access (privileges.go): the engine's
// privilege tables hold the grants, and its PlanCheck checks every plan before it runs for what
// grants cannot express; checkedBuilder (checkedbuilder.go) asks it at the first node of each
// statement's plan.
//
// Every error a client sees gets MySQL's number and SQLSTATE from package mysqlerr.
//
// The configuration (package server/config) is loaded at start, may be reloaded without a
// restart, and is swapped atomically: readers on hot paths take one pointer load.
//
// # Changing settings, and the lock order
//
// Settings change through a reload (file change, SIGHUP, SYSTEM RELOAD CONFIG), SET GLOBAL and
// SET PERSIST (server settings, session-setting defaults, the simulation variables). Constraints
// change only with a reload. The locks involved, always taken in this order and never the other
// way:
//
//  1. Server.reloadMu: one reload at a time. Only Reload takes it, first of all. The config file
//     is read under it (never under a later lock), and only if it is a regular file, opened
//     non-blocking: a FIFO or a device is refused with a failed-reload warning, not waited on.
//  2. Server.settingsMu, the settings lock: every change of the running configuration, of the
//     simulation, and of the engine's globals that show them (reload's apply, commitSettings).
//     Files read under it: the TLS certificate and key, on a reload and when SET GLOBAL names
//     other ones (the operator's own files, like the config).
//  3. persistence.mu: the persisted-settings file, read and replaced under it.
//  4. The engine's system-variable registry lock (sql.SystemVariables): held by the engine while
//     it sets a variable and calls the variable's NotifyChanged hook; taken by AssignValues.
//  5. Leaf locks that take nothing else: staging.mu, the sampler's, the warning registry's, the
//     admission controller's, memlimit.Statements.mu (the memory guard's registry of running
//     statements) and data.WriteLock.mu.
//
// The write lock itself (data.WriteLock, taken in transactions.go) is not a mutex of this list:
// a connection waits for it on its own goroutine before its statement takes a CPU slot, holding
// none of the locks above, and keeps it across statements until its transaction ends.
//
// The NotifyChanged hooks therefore never take the settings lock: a client's SET GLOBAL or SET
// PERSIST only checks privileges and stages the value by connection; when the statement ends,
// commitSettings (under the settings lock) validates all of the statement's values as one
// change, saves them for SET PERSIST, and only then applies them. A statement that fails, a
// value that does not fit with the others, or a failed save changes nothing, and the engine's
// globals are put back to the running values.
package server
