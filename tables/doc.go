// Package tables is the read-only `system` database of overloadsql.
//
// Every table is virtual: it holds no rows of its own and reads the live state of the server on
// each scan through a small function or interface handed to it when the database is built (the
// sampler's snapshot, the warning registry, the settings, the counters). Nothing here starts a
// goroutine or keeps a copy of that state, so a SELECT always shows the present.
//
// The database answers the engine's questions about views, triggers and stored procedures with
// empty lists (the engine's privilege wrapper asks them of every database) and says it is
// read-only, so writes fail with the engine's own clear error.
package tables
