// Package userlock is the server's table of user-level locks, the named locks of GET_LOCK,
// RELEASE_LOCK, RELEASE_ALL_LOCKS, IS_FREE_LOCK and IS_USED_LOCK, with MySQL 8's rules:
//
//   - A lock has a name of at most 64 characters, compared without regard to case. A session
//     holds any number of locks and may take one it holds again; each GET_LOCK is undone by one
//     RELEASE_LOCK, and RELEASE_ALL_LOCKS returns how many it undid. The locks do not follow
//     transactions; the session's end (the connection closed or reset) releases them.
//   - GET_LOCK(name, timeout) waits up to timeout seconds (negative: without end) and returns 1
//     for the lock and 0 when the time ran out. The wait ends at once when the statement is
//     killed, the client goes away or the statement's time runs out: the statement fails as
//     any interrupted statement does. A wait that would close a cycle of sessions each waiting
//     for a lock the next holds is error 3058 (ER_USER_LOCK_DEADLOCK) instead. A released
//     lock goes to the session that has waited longest, as MySQL's metadata locks grant it.
//
// The table holds only names that are held or waited for: a name is forgotten when its last
// holder and waiter are gone, so what it keeps is bounded by the locks held now, and each held
// lock is charged to its session's memory account (Charge), the account of user variables.
//
// Lock order: Table.mu is a leaf; Charge runs without it.
package userlock
