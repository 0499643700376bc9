// Package catalog is the schema of package storage's databases: the descriptors of databases
// and tables (their columns, indexes, checks and foreign keys), their stored form, their
// decoding into the engine's schema, and the caches that spare a statement the reads and the
// decoding. It knows nothing of transactions or of Pebble: storage reads and writes the
// descriptors through its transactions, under the keys of kv's key layout (storage/kv/doc.go).
// storage imports catalog, never the reverse.
//
// # Descriptors
//
// A database descriptor (Database) is JSON under 02 db 'D'; a table descriptor (Table) is its
// version (big-endian u64), then JSON, under 02 db 'T' tid; 02 db 'N' lower(name) points a
// table's name at its id. The JSON field names are the stored format: data directories written
// by earlier builds must still decode.
//
// A column's tag is its identity in the row codec (package rowcodec): it never changes while
// the column lives, so a rename or a move changes only the descriptor. Table.NextTag and
// Table.NextIndex hand out tags and index ids that are never reused in the table. A table's
// data lives under Table.ID; a rewrite or TRUNCATE gives the table a fresh id.
//
// Version grows by one with every change of a table's descriptor. It is not a lock or a
// clock: it lets Cache tell a changed descriptor from the one it decoded.
//
// # DDL
//
// The descriptors are keys in the same store as the rows, and storage writes them in the same
// batch as every other write of the transaction, so DDL commits or rolls back with it: CREATE
// TABLE with its indexes and foreign keys, a multi-clause ALTER, a RENAME of several tables.
// A DDL method of storage reads the table's descriptor from its transaction, edits a Clone
// with Table's methods (AddColumn, ModifyColumn, AddIndex, AddCheck, AddForeignKey, ...;
// NewTable for CREATE TABLE, Rewritten for an ALTER that rewrites the rows), raises Version,
// refuses key columns without a key encoding (CheckKeyTypes) and writes the clone into the
// batch. An edit that fails returns the engine's or MySQL's error and may leave the clone half
// changed; the clone is then dropped. The edits never touch rows or index entries, which are
// storage's, and nothing here keeps a descriptor beyond what was read from a transaction.
//
// # Decoding
//
// Decode turns a Table into a Decoded: the engine's schema (column types parsed, generated
// expressions resolved), the row codec over the columns' tags, and the schema positions of the
// primary key and of each index's columns. A Decoded is immutable and shared.
//
// # Caches
//
// Cache keeps Decoded tables by (database, id, version, xxh64 of the stored bytes): a
// rolled-back DDL can leave another descriptor under the same id and version, so the content
// is part of the key. It also keeps the last decoding of each database descriptor, reused
// while the bytes are the same. Its callers read the bytes from their own transaction, so the
// cache is right for every view.
//
// ReadCache keeps the committed catalog's point reads for snapshot readers of one catalog
// generation: a commit that changes the catalog brackets its apply with BeginChange and
// EndChange, making the generation count odd while it applies; a reader whose count is the
// same and even before and after it takes its snapshot reads and fills that generation's
// entries. Writers read their batch, never the cache.
//
// # Locks
//
// Cache.mu and ReadCache.mu are leaves: nothing else is locked or called while either is held,
// so storage may call in under its own locks (the write lock, storage/doc.go).
package catalog
