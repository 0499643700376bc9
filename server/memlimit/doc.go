// Package memlimit keeps the server's memory within its limits: the memory guard, which stops
// statements when the heap crosses the server's memory limit, and the sessions' memory quotas,
// which refuse what a session would keep beyond its share.
//
// The model:
//
//   - The limit is max_server_memory_usage, or 90% of the cgroup's memory limit (else the
//     host's memory) when it is 0 (Limit). The Go heap gets the limit less what the store holds
//     outside the heap (in a cgo build, Pebble's block cache and memtables), at least half.
//   - Guard checks the heap every 10 ms. Over the limit, every ordinary statement registered in
//     Statements (the interceptor registers each one that is not on admin_listen) is stopped
//     with error 1041: a read is cancelled at once; a write is asked to stop (Stop, which the
//     functions that build big values read) and cancelled 250 ms later if it still runs. New
//     ordinary statements are refused with 1041 until the heap is under
//     overload.MemoryResumeRatio of the limit; exempt statements always run. The guard also
//     keeps the runtime's soft memory limit (debug.SetMemoryLimit) at the heap's limit.
//   - Accounts are the memory quotas (package quota), as ClickHouse's memory trackers: a tree
//     of the server's account, one per workload ([[workloads]].max_memory_usage) and one per
//     session (max_memory_usage_for_session). They count what a session keeps between
//     statements (user variables, session variables, prepared statements), charged where the
//     plans that set them are built (Build, which the server's plan builder calls for every plan
//     KeepsMemory says may change them). A reservation that does not fit is refused with error
//     241 and the statement changes no user variable. The server's account may hold 60% of the
//     limit less the rest of the live heap; each check of the guard recomputes it (Adjust).
//
// sessions.go has what is counted and when, workloads.go how a session moves between
// workloads. The package imports quota, overload, mysqlerr, server/config, server/statement
// and server/access (for its plan walk), never server.
package memlimit
