// Package data is the server's side of the user databases in package storage: opening the
// store on data_dir, the engine's database provider over it, the write lock that orders the
// store's writers, innodb_lock_wait_timeout, SYSTEM BACKUP, and the store's metrics.
//
// The model:
//
//   - Open opens the one storage.Store on data_dir; a directory that does not open is a
//     StoreOpenError whose Code is the process's exit code, one per cause (ExitStoreLocked ...
//     ExitStoreOther, docs/storage.md). A new directory's database main gets collation_server.
//   - Provider is what the engine sees: the store's databases plus the virtual `system`, which
//     can be neither created nor dropped.
//   - WriteLock is held by the one connection whose transaction may write stored tables, from
//     its first writing statement to the end of its transaction; the others wait in arrival
//     order, at most innodb_lock_wait_timeout seconds (LockWaitTimeout: the statement's SET_VAR
//     hint, else the session's; then error 1205), and a KILL stops a wait (Interrupt, 1317).
//     LockWaits shows a waiting statement in the process list (LockWaitProcesses) as running.
//     The server takes the lock before a statement that may write; StoreLock is the same lock
//     given to the store, for a write the statement's summary did not foresee.
//   - Backup writes SYSTEM BACKUP TO 'dir': a Pebble checkpoint inside secure_file_priv
//     (access.SecureFiles), never inside data_dir.
//   - OffHeap measures the store's memory outside the Go heap (a cgo build's block cache and
//     memtables), at most once a second, for the memory guard.
//   - RENAME TABLE and ALTER TABLE ... RENAME TO are all or nothing, as in MySQL: AtomicRenames,
//     an analyzer rule, checks every pair before anything changes (1146, 1050) and runs an
//     ALTER TABLE's rename after its other changes; RefuseRenameElsewhere, asked by the
//     privilege check, refuses a rename into or out of another database than the current one
//     (1235), which the engine would make in the current one.
//   - Gauges, Events and Histograms are the store's rows of system.asynchronous_metrics,
//     system.events and /metrics; WriteLock.Events the write lock's.
//
// Transactions themselves are the storage's (storage/doc.go); when a statement takes the write
// lock, and how its start and end are marked on the storage session, is the server's
// transactions.go. The package imports storage, server/access, server/config,
// server/statement, mysqlerr and the engine's analyzer, never server.
package data
