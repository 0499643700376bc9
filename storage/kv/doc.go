// Package kv is the Pebble store under package storage: one data directory holding one
// github.com/cockroachdb/pebble/v2 database. It opens the directory (Open), locks it against a
// second server (ErrLocked), checks and writes the format record (FormatVersion,
// ErrNewerFormat), deletes what a crash left of dropped tables' data, commits batches with the
// configured durability (Apply, Options.Sync), keeps the space reserve against a full disk, and
// reports Pebble's metrics (Observe). It owns the key layout (keyspace.go) that storage writes
// through. It knows nothing of the engine's SQL types; transactions and the write lock are
// storage's, the catalog's descriptors storage/catalog's.
//
// # Open
//
// Open refuses a directory that holds other files (ErrNotDataDir), one locked by another
// process (ErrLocked), damaged files (ErrCorrupt), a newer format (ErrNewerFormat) and a
// directory it cannot write (ErrUnwritable). A new store gets its format record and
// Options.Bootstrap's records (storage's catalog) in one synced batch. Under SyncNone a loop
// syncs the log every SyncInterval while something committed.
//
// # Key layout
//
// Every key starts with a space byte; integers are big-endian.
//
//	01 'f'                          format record (FormatVersion, Pebble format)
//	01 'n' / 01 'd'                 next table id / next database id
//	02 00000000 'd' lower(db)       database name → database id
//	02 db 'D'                       database descriptor (JSON)
//	02 db 'N' lower(table)          table name → table id
//	02 db 'T' tid                   table descriptor: version (u64), JSON (storage/catalog)
//	02 db 'V' lower(view)           view definition
//	02 db 'Q' / 'R' seq             next trigger number / trigger, in creation order
//	02 db 'P' lower(procedure)      stored procedure
//	03 tid 'a' / 'c'                AUTO_INCREMENT next value / committed row count
//	10 tid 0000 pk                  row (package rowcodec, every column)
//	10 tid iid enc(cols) [pk]       secondary index entry → pk; a unique entry without NULL
//	                                ends after its columns, so a duplicate is one point read
//	10 tid FFFF xxh64(row) rowid    keyless tables: the row's hash → its row id
//
// pk is the primary key's columns encoded by storage/keys, or the 8-byte hidden row id.
//
// # Locks
//
// diskSpace.mu (the reserve's creation and removal) is a leaf: Pebble's writes take it through
// diskSpace.exhausted, and nothing but filesystem calls runs under it. kv and Pebble take their
// locks below storage's (the write lock, Store.mu, the catalog caches).
//
// # A full disk
//
// Pebble treats a failed write of its log as fatal, so the store keeps it from meeting a full
// disk (diskspace.go): a space reserve file in the data directory is freed at the first ENOSPC
// so that the write in flight completes, and from then on writes and commits fail with error
// 1114 (their transaction rolled back) while reads go on, until the filesystem has room for the
// reserve again. If Pebble's log fails all the same, every later write fails with error 1026
// and Options.OnSyncError is called.
//
// # Memory
//
// The block cache (Options.CacheBytes) and the memtables (Options.MemTableBytes, up to four
// queued) are allocated by Pebble with C malloc in a cgo build, outside the Go heap (Go heap
// memory without cgo); Store.Metrics reports what they hold.
package kv
