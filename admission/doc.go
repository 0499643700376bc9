// Package admission decides when an ordinary statement may start to use the CPU. It knows
// nothing of SQL: callers take a slot before a statement runs and give it back when it ends.
//
// # Why
//
// Without admission every statement that arrives starts at once. On c processors with k > c
// CPU-heavy statements the Go scheduler time-slices all k of them, so every statement takes
// k/c times as long as alone, the tail grows with every arrival, and a short statement (an
// operator's SELECT 1) waits in the same run queue as the heavy ones. Rejecting statements at
// random (error 745) sheds load but does not protect the statements it admits. A bounded number
// of statements running at once, with the rest waiting in order, does: a statement that runs
// gets the CPU it needs, and a statement that waits holds nothing.
// (The statements that run still hold their processors for the Go runtime's 10 ms slices; the
// server has them step back for other goroutines within a millisecond: server/yield.go.)
//
// # The model
//
//	statements                         slots (adaptive: 1..ceiling)      Go scheduler
//	----------                         ----------------------------      ------------
//	admin / exempt ─────────────────────────────────────────────────────▶ run at once
//	ordinary ──▶ free slot? ── yes ──▶ [■][■][■][ ]  ── running ───────▶ GOMAXPROCS Ps
//	               │ no                   ▲  ▲                               │
//	               ▼                      │  └── Adjust, every tick:         │ runnable
//	      queue (FIFO, ≤ max queued)      │      backlog? one slot less      │ goroutines
//	      [w5][w4][w3]── head ────────────┘      saturated, no backlog?  ◀───┘
//	        │ deadline (queue_max_wait_ms)       one slot more
//	        │ queue full, or client gone
//	        ▼
//	      error (TOO_MANY_SIMULTANEOUS_QUERIES) / cancelled
//
// A Controller holds the slots, the running count and the queue under one mutex. Acquire takes
// a free slot when there is one and nobody waits (the fast path: a lock and an increment);
// otherwise the statement joins the tail of the queue and waits until a slot is handed to it,
// its deadline passes, or its context ends (the client went away). Release gives the slot to
// the head of the queue directly, so a newcomer never overtakes a waiter. A waiter that leaves
// (deadline, cancellation) is taken out of the queue at once.
//
// # How many slots
//
// The right number is not GOMAXPROCS: a statement that sleeps, waits for a lock or for a slow
// client holds a slot without using a CPU, and a fixed count would let such statements starve
// the CPU. So the count adapts, like CockroachDB's slot adjuster, from the Go scheduler's own
// run queue (runtime/metrics /sched/goroutines/runnable:goroutines), sampled every tick while
// statements run:
//
//   - Backlog: more goroutines are runnable than there are processors (the sampling goroutine
//     itself displaces one). Statements already queue in the Go scheduler, where nobody orders
//     them: one slot less, unless the running statements already exceed the count.
//   - Saturated and no backlog: every slot is taken and at most the one displaced goroutine is
//     runnable, so the running statements leave CPU unused: one slot more.
//   - Otherwise the count stays.
//
// The count starts at GOMAXPROCS, never goes below 1 and never above the ceiling
// (max_concurrent_statements, or a fixed bound when that is 0). For k CPU-bound statements on
// c processors it settles at c or c+1 (it moves between the two on one processor); for
// statements that block it grows by one a tick until nobody waits.
//
// # Standing queue
//
// In a closed loop (clients that send the next statement when the last one ends) a
// first-come-first-served queue that refuses nobody cannot shorten anyone's wait: by Little's
// law the time in the server is clients / throughput, however the slots are handed out. Only
// refusing some statements early shortens it. Which ones, and when, is CoDel's answer
// (Nichols and Jacobson; Facebook's and folly's request queues): a queue that absorbs a burst
// drains, and its shortest wait falls under a small target now and then; a queue whose
// shortest wait stayed above the target for a whole interval is standing, and its wait is
// pure delay. While the queue stands, it keeps one waiter per slot — enough for every slot
// that comes free to be taken at once, so the CPU does not idle — and refuses the others at
// once (Reason StandingQueue) instead of letting them wait; waiters beyond one per slot that
// queued before it stood (a burst that did not drain) or before the slot count fell are
// refused from the head, the oldest first, as CoDel drops. The shortest wait counts the
// statements that took a slot in the interval (0 for one that found a free slot) and the one
// still waiting at the head. It stops standing after an interval whose shortest wait was under
// the target and in which nobody was refused: refusals show that the demand that made it stand
// is still there. StandingInterval 0 turns it off.
//
// # Accounting
//
// A queued statement is work waiting for a CPU, like a runnable goroutine: QueueWait is the
// cumulative time statements spent queued (finished waits plus the waits in progress), which
// the overload sampler adds to the kernel's and the Go scheduler's wait. Slots, running and
// queued are gauges for system.metrics.
//
// # Time
//
// Deadlines run on a Clock, so tests replace it with a fake one and move time by hand; Adjust
// takes the scheduler's Load as an argument, so the adaptation is tested with made-up loads.
package admission
