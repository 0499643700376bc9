// Package storage keeps the engine's (go-mysql-server's) databases on disk, in one Pebble
// store: a provider, databases, tables, indexes and sessions with transactions. It imports
// nothing of the server. Its sub-packages, which never import storage:
//
//   - storage/kv: the Pebble store itself (the data directory, its format, key layout,
//     durability and full disk);
//   - storage/catalog: the schema, as descriptors of databases and tables, their stored form,
//     their decoding into the engine's schema, the DDL edits of a descriptor, and the caches
//     of decoded descriptors and of the committed catalog's reads;
//   - storage/keys: the order-preserving encoding of index keys;
//   - storage/rowcodec: the stored form of a row.
//
// # Data flow
//
// A server opens one Store (Open, which opens kv.Store) on its data directory and hands the engine the store's
// Provider; each connection gets a Session (Store.NewSession). The engine asks the session for
// a transaction at the start of a statement (StartTransaction) and commits it at the end in
// autocommit mode; around every statement the server calls Session.BeginStatement and
// Session.EndStatement, which set the statement's undo mark and undo a failed statement.
//
// The engine's handle (Transaction) only points at the session's txn, the real state: the
// engine sets handles aside (CALL) and drops them after a failed autocommit statement without
// a rollback, so StartTransaction hands back the session's open txn and EndStatement rolls
// back what a failed autocommit statement left.
//
// A txn reads a Pebble snapshot taken at its first read. At its first write (BeginStatement
// of a writing statement, or the first editor) it takes the write lock, drops the snapshot
// and opens an indexed batch: from then on it reads the latest committed state (nothing else
// commits while it holds the lock) plus its own writes. Every write goes into the batch and
// appends an undo record (the key's old value or its absence, and the row-count change); a
// savepoint or statement mark is an index into the undo log, and rolling back to it writes
// the old values back into the batch. COMMIT adds the row counts and AUTO_INCREMENT values to
// the batch and applies it with one log sync (Options.Sync: SyncCommit syncs every commit;
// SyncNone syncs every SyncInterval, and still syncs DDL); ROLLBACK drops the batch. Either
// releases the write lock.
//
// Table, database and catalog reads go through the session's txn, found from the context at
// each call, so that DDL is transactional: a DDL method reads the descriptor from the txn,
// edits a clone (catalog.Table's methods) and writes it back into the same batch, so CREATE
// TABLE with its indexes and foreign keys, a multi-clause ALTER, a RENAME of several tables
// commit or roll back whole. Row iterators open their Pebble iterator at their first row,
// after the statement's editors took the lock; a batch iterator is frozen at creation, so a
// scan does not see the writes of the statement it feeds (Halloween protection), while the
// unique and foreign-key checks, which are point reads, do.
//
// Editors check every unique key (the primary key, then each unique index) before they write,
// and fail with the engine's UniqueKeyError carrying the existing row, which REPLACE and
// INSERT ... ON DUPLICATE KEY UPDATE use. Tables without a primary key get a hidden row id;
// the engine deletes their rows by value, which a hash index (xxh64 of the stored row) finds.
//
// ALTER: columns have stable tags (package rowcodec stores tag, kind, value), so a rename, a
// move, a new nullable column, a comment or a default change only rewrites the descriptor. A
// change of type, nullability, primary key or a dropped column rewrites the table: the engine
// streams the rows in the new schema into RewriteInserter, which writes them with their
// index entries under a fresh table id; its Close points the table's name at the new id. The
// old id becomes obsolete: its data is deleted after the commit, and whatever a crash leaves
// of it is deleted at the next Open. TRUNCATE is the same move to an empty id.
//
// Indexes are ordered by storage/keys, an encoding whose byte order is the engine's
// comparison (NULL first, collation weights, exact decimals). A lookup turns the engine's
// ranges into key ranges. A key range may be wider than its range (after a prefix column, a
// column not bounded, a bound converted to the column's type); overlapping widened ranges are
// merged so that no row comes twice. Under Options.PreciseLookups (PreciseMatch) a lookup
// returns exactly the rows of its ranges, filtering the rows of a wider key range by the
// ranges, and the engine drops the filters the ranges cover; the server sets it, because its
// analyzer corrects the comparisons whose ranges the engine builds wrong. Without it, or on a
// table with virtual columns (computed after the read), a lookup returns the rows of its key
// ranges and the engine keeps its filter above the lookup.
//
// The key layout is kv's (storage/kv/doc.go); pk is the primary key's columns encoded by
// storage/keys, or the 8-byte hidden row id.
//
// # Locks
//
// Lock order: the write lock (WriteLock: the store's own, or the server's through
// Options.WriteLock), then Store.mu (counters; a leaf), then the locks of catalog.Cache and
// catalog.ReadCache (leaves, storage/catalog/doc.go). No lock is held while waiting for the
// write lock; kv's and Pebble's own locks are below all of these. A session is used by one
// goroutine at a time, so its txn needs no lock.
//
// # The catalog cache
//
// Planning a statement reads the same few catalog keys many times (the database, the table's
// name and descriptor, whether the name is a view). A snapshot reader takes them from a cache
// of the committed catalog (catalog.ReadCache), which a commit that changes the catalog
// invalidates: a sequence count around the apply tells a reader whether its snapshot holds
// exactly the cached generation. Writers read their batch.
//
// # A full disk
//
// The store (kv) refuses writes and commits on a full disk with error 1114; a transaction
// checks kv.Store.Admit at its first write and at its commit, and is rolled back when refused.
//
// # Memory
//
// A writer's batch plus undo log (bounded by Options.MaxTransactionBytes; a transaction over it
// fails with error 1197 and is rolled back) is Go heap memory. The block cache and memtables
// are kv's (storage/kv/doc.go).
package storage
