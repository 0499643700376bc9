// Package quota keeps memory accounts with limits, in a tree, as ClickHouse's memory trackers
// (query, user, total) do: a session's account has the server's as its parent, and a workload's
// account may sit between them. Reserving bytes on an account reserves them on every account
// above it; the reservation is refused, and nothing is reserved anywhere, when any of them would
// go past its limit. The refusal names that account, so only the sessions under a full account
// are refused while the others go on.
//
// An account counts what its owner tells it: Reserve before keeping memory, Release when it is
// let go. It never reads the heap. What the server counts, and what it does not, is written
// where the accounts are used (server/memlimit/sessions.go) and in docs/reference.md.
//
// # Internal organization
//
//   - Account: used bytes (atomic), a limit read at each reservation (a Limit function, so a
//     reloaded setting or a limit recomputed from the heap applies at once), and its parent.
//   - Reserve adds to each level from the account up, each only if that level stays within its
//     limit (compare-and-swap, so no level is ever over its limit, even for an instant); when
//     one would not, it takes the bytes back from the levels it passed and returns
//     *ExceededError. While a reservation is on its way up, its bytes count on the levels it
//     passed: a concurrent one near a limit there may be refused where it would have fit a
//     moment later. Accounts err on the side of refusing, never of going over.
//   - Charge adds without checking, for memory the owner learns about only after it is kept:
//     the account may then be over its limit, and its next Reserve is refused until it releases.
//   - Move gives an account another parent (a session that joins another workload), taking
//     its bytes from the old chain and reserving them on the new one.
package quota
