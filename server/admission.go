package server

import (
	"context"
	"errors"
	"math"
	"strconv"
	"time"

	"overloadsql/admission"
	"overloadsql/mysqlerr"
	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/statement"
	"overloadsql/server/wire"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// admissionTick is how often the slot count adapts while statements run or wait.
const admissionTick = time.Millisecond

// takeSlot gives a statement a CPU slot in its workload before it runs (see package
// admission). A non-nil ticket must be released when the statement ends. Sessions on the admin
// listener and exempt statements never wait and take none, nor does any statement with
// admission_control off; the statement is classified only when no slot is free, so the common
// case costs a lock and an increment. While the statement waits, a client that closes its
// connection takes it out of the queue at once.
func (i *interceptor) takeSlot(ctx context.Context, c *mysql.Conn, stmt *statement.Summary) (*admission.Ticket, error) {
	if wire.IsAdminConn(c.Conn) || i.s.cfg.Load().AdmissionControl == config.AdmissionOff {
		return nil, nil
	}
	workload, err := i.s.statementWorkload(c, stmt)
	if err != nil {
		return nil, err
	}
	ctrl := i.s.admission
	if t, ok := ctrl.TryAcquire(workload); ok {
		return t, nil
	}
	if stmt.Exempt(currentDatabase(c)).Exempt {
		return nil, nil
	}
	maxWait := queueMaxWait(c, stmt, i.hintConstraints(c))
	ctx, stop := wire.CancelWhenPeerCloses(ctx, c.Conn)
	t, err := ctrl.Acquire(ctx, workload, maxWait)
	stop()
	if err == nil {
		return t, nil
	}
	var rejected *admission.RejectedError
	if errors.As(err, &rejected) {
		if rejected.Reason == admission.UnknownWorkload { // removed by a reload just now
			return nil, errUnknownWorkload(i.s.cfg.Load(), workload, "")
		}
		msg := admissionMessage(rejected)
		i.s.counters.admissionRejected.Add(1)
		i.s.counters.failedQueries.Add(1)
		i.s.admissionLog.note(msg)
		return nil, mysqlerr.New(mysqlerr.ERTooManySimultaneousQueries, "%s", msg)
	}
	// The client went away (or the connection is closing): nobody reads an answer.
	return nil, mysqlerr.New(mysql.ERQueryInterrupted, "Query execution was interrupted while waiting for a CPU slot: %v", err)
}

// ticketKey is the context key of a running statement's admission ticket.
type ticketKey struct{}

// withTicket is ctx for a statement that runs with the admission ticket t, so that
// the yielder finds the statement's workload standing (ticketOf).
func withTicket(ctx context.Context, t *admission.Ticket) context.Context {
	return context.WithValue(ctx, ticketKey{}, t)
}

// ticketOf is the admission ticket of the statement ctx runs, nil when it took none (admin
// sessions, exempt statements, admission off).
func ticketOf(ctx context.Context) *admission.Ticket {
	t, _ := ctx.Value(ticketKey{}).(*admission.Ticket)
	return t
}

// admissionMessage is the text of error 202, in ClickHouse's words with the counts and the
// settings that decide them.
func admissionMessage(e *admission.RejectedError) string {
	bound := strconv.Itoa(e.MaxSlots)
	if e.MaxSlots == 0 {
		bound = "0, adaptive only"
	}
	why, advice := "", "Retry later, or raise queue_max_wait_ms, max_queued_statements or max_concurrent_statements."
	switch {
	case e.Reason == admission.QueueFull:
		why = "the queue is full"
	case e.Reason == admission.WorkloadQueueFull:
		why = "the queue of workload " + e.Workload + " is full (its max_queued_statements = " + strconv.Itoa(e.WorkloadMaxQueued) + ")"
		advice = "Retry later, or raise the workload's max_queued_statements."
	case e.WorkloadMaxConcurrent > 0 && e.WorkloadRunning >= e.WorkloadMaxConcurrent:
		why = "workload " + e.Workload + " ran its max_concurrent_statements = " + strconv.Itoa(e.WorkloadMaxConcurrent) +
			" statements for all of queue_max_wait_ms = " + millis(e.MaxWait)
		advice = "Retry later, or raise the workload's max_concurrent_statements or queue_max_wait_ms."
	case e.Reason == admission.StandingQueue:
		why = "the queue is standing (the shortest wait for a CPU slot stayed over queue_codel_target_ms = " + millis(e.StandingTarget) +
			" for queue_codel_interval_ms = " + millis(e.StandingInterval) + ") and holds one statement per CPU slot"
		advice = "Retry later with a back-off; queue_codel_interval_ms = 0 lets statements wait up to queue_max_wait_ms."
	case e.MaxWait <= 0:
		why = "no CPU slot was free and queue_max_wait_ms = 0 does not wait"
	default:
		why = "no CPU slot came free within queue_max_wait_ms = " + millis(e.MaxWait)
	}
	return "Too many simultaneous queries: " + why + ". Workload " + e.Workload + ": running " + strconv.Itoa(e.WorkloadRunning) +
		", queued " + strconv.Itoa(e.WorkloadQueued) + ". Running: " + strconv.Itoa(e.Running) +
		" on " + strconv.Itoa(e.Slots) + " CPU slots (max_concurrent_statements = " + bound + "), " + strconv.Itoa(e.Stalled) +
		" past admission_stall_limit_ms = " + millis(e.StallLimit) + ", queued: " +
		strconv.Itoa(e.Queued) + " (max_queued_statements = " + strconv.Itoa(e.MaxQueued) + ")" +
		". " + advice + " (TOO_MANY_SIMULTANEOUS_QUERIES)"
}

// millis prints d in milliseconds, as the settings give them.
func millis(d time.Duration) string { return number(float64(d) / float64(time.Millisecond)) }

// queueMaxWait is the statement's queue_max_wait_ms: its SET_VAR hint, else the session's value.
// A hint that breaks one of constraints (a non-admin's; nil for admins) is ignored, with the
// engine's warning (access.PlanCheck's warnIgnoredHints).
func queueMaxWait(c *mysql.Conn, stmt *statement.Summary, constraints map[string]config.Constraint) time.Duration {
	var sess sql.Session
	if cl := clientOf(c); cl != nil {
		sess = cl.session
	}
	ms := sessionFloat(sess, config.QueueMaxWaitSetting)
	for _, h := range stmt.Hints() {
		f, err := strconv.ParseFloat(h.Value, 64)
		if h.Name == config.QueueMaxWaitSetting && err == nil && f >= 0 && f <= config.MaxQueueMaxWaitMs && !math.IsNaN(f) &&
			access.IgnoredHint(constraints, h) == nil {
			ms = f
		}
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// admissionLimits are the controller's limits in cfg.
func admissionLimits(cfg *config.Config) admission.Limits {
	return admission.Limits{MaxSlots: cfg.MaxConcurrentStatements, MaxQueued: cfg.MaxQueuedStatements,
		StandingInterval: cfg.QueueCodelInterval, StandingTarget: cfg.QueueCodelTarget,
		StallLimit: cfg.AdmissionStallLimit, Workloads: admissionWorkloads(cfg)}
}
