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
//	statements                       slots (adaptive: 1..ceiling)        Go scheduler
//	----------                       ----------------------------        ------------
//	admin / exempt ─────────────────────────────────────────────────────▶ run at once
//	ordinary ─▶ its workload ─▶ free slot? ─ yes ─▶ [■][■][ ] ─ running ─▶ GOMAXPROCS Ps
//	            (session,          │ no               ▲   │                 ▲
//	             hint, user)       ▼                  │   │ held a slot     │ runnable
//	      queues, one per workload (FIFO each)        │   │ stall limit:    │ goroutines
//	      web:  [w3][w2] ─┐  pick: priority, then     │   ▼ stalled, no ────┘
//	      etl:  [e2][e1] ─┴▶ least CPU per weight ────┘     slot, runs on
//	        │ deadline (queue_max_wait_ms), queue full,
//	        │ standing queue, or client gone
//	        ▼
//	      error (TOO_MANY_SIMULTANEOUS_QUERIES) / cancelled
//
// A Controller holds the slots, the running count and the workloads' queues under one mutex.
// Acquire takes a free slot when there is one and no waiter could take it (the fast path: a
// lock and an increment); otherwise the statement joins the tail of its workload's queue and
// waits until a slot is handed to it, its deadline passes, or its context ends (the client went
// away). Each statement gets a Ticket and gives it back with Release; a slot that comes free
// goes directly to the waiter the order below picks, so a newcomer never overtakes a waiter it
// would come after. A waiter that leaves (deadline, cancellation) is taken out at once.
//
// # Workloads
//
// Every statement runs in a workload (ClickHouse's word; CockroachDB's tenants, MySQL's resource
// groups). A workload has a priority, a weight, and optionally bounds of its own on the
// statements it runs and queues. When a slot comes free, the next statement is the head of the
// queue of, among the workloads with waiters that are under their own bound:
//
//  1. the lowest priority value (strict: a better priority always goes first);
//  2. among equal priorities, the one that used the least CPU time per unit of weight
//     recently (weighted fair share, as in CockroachDB's admission queues: the CPU use is
//     decayed with a half-life of FairShareHalfLife, so over a few seconds workloads that
//     always have statements waiting get the CPU in the ratio of their weights);
//  3. then the head that has waited longest.
//
// Within a workload the order is arrival. A workload's CPU time is the process's CPU time
// (getrusage) while its statements ran, shared equally among the statements running at each
// tick: Go has no CPU clock per goroutine, and the Go scheduler gives runnable goroutines
// equal turns. The CPU time is a system call, so Run reads it every CPUReadEvery ticks (and
// when the last statement ends); what was used in between goes to the workloads by the time
// their statements ran at each tick. A workload removed from the configuration takes no new statements; those it
// runs and queues finish, then it is gone.
//
// The same order holds between statements that already run: a slot lets a statement share the
// processors, but the Go scheduler knows no workloads and gives every runnable goroutine a
// 10 ms turn. So the Controller keeps, for each workload with running statements, whether
// another workload with running statements ranks before it (1 and 2 above; ties outrank
// nobody), and a running statement reads that with one atomic load (Ticket.Outranked). The
// server has an outranked statement give its processor up when goroutines wait for one
// (server/yield.go): a better priority always runs first, and among equal priorities the one
// under its weighted fair share runs before the one over it, until their CPU use per weight
// crosses. The ranking is refreshed when a workload starts or stops running and at every Tick
// (the CPU use changes).
//
// The order is also kept when every slot is taken: a waiter whose workload ranks before some
// holder's (a better priority, or the same priority and under its fair share beside the
// holder's) does not wait for that holder's statement to end. It borrows the slot (it starts
// beyond the slot count), and the holder runs on but steps back from the processor for it, as
// above. Each holder lends at most once, borrowers lend to nobody, and so at most twice the
// slot count share the CPU: when every slot is lent, even a better priority waits for the first
// statement to end. A borrower whose slot comes free (a holder ended) holds it as its own and
// may lend it in turn. Ties borrow nothing, so a single workload (the default configuration)
// never borrows.
//
// # Stall limit
//
// A slot bounds how many statements share the CPU, so that each runs as fast as alone; a
// statement that keeps its slot for seconds turns the queue behind it into head-of-line
// blocking, and with queue_max_wait_ms the statements behind it fail. MariaDB's thread pool has
// the answer: a statement running longer than thread_pool_stall_limit is stalled, and another
// one may start. So a statement that has held its slot for StallLimit stops counting against
// the slot count, and the slot goes to the next waiter; the stalled statement runs on, sharing
// the CPU through the Go scheduler, where its wait shows in the Go and kernel parts of the
// overload measurement (package overload) as the seed's probabilistic rejection expects. While
// any statement runs stalled the slots no longer bound how many share the CPU, so holding the
// queue longer would only delay its waiters behind long statements: a waiter that has waited
// StallLimit then starts stalled too, unless its workload is at its own bound. A short statement
// behind any number of long ones therefore starts within about one stall limit. While nothing
// runs stalled the queue keeps its order however long the waits: a flood of short statements
// keeps its slots.
//
// The stall limit and the slot count act on different statements: the adaptive count (below)
// sees stalled CPU-bound statements as a Go run-queue backlog and falls to one slot, so the
// statements that still hold slots are few; a workload's own bound counts stalled statements,
// so an operator's cap on a workload holds.
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
// the overload sampler adds to the kernel's and the Go scheduler's wait. A stalled statement's
// wait is not queue wait: it waits in the Go run queue (or the kernel's), where the sampler
// measures it. Slots, running, stalled and queued are gauges for system.metrics; Workloads gives
// each workload's counts, queue wait and CPU time for system.workloads.
//
// # Time
//
// Deadlines run on a Clock, so tests replace it with a fake one and move time by hand; Tick
// (every millisecond while statements run or wait: Run) takes the scheduler's Load as an
// argument, so the stall limit, the CPU accounting and the adaptation are tested with made-up
// loads. A tick costs no system call but every CPUReadEvery-th; the statements themselves
// never pay for Tick (the server's yielder reads the run queue with GoScheduler.RunQueue, from
// runtime/metrics only).
package admission
