package admission

type waiterState int

const (
	waiting waiterState = iota
	granted
	expired
	cancelled
	shed // refused from the queue when it stood with more than one waiter per slot
)

// waiter is one statement in a workload's queue. state, ticket and the links are guarded by
// the Controller's mutex; ready is closed exactly once, when the waiter leaves the queue.
type waiter struct {
	ready      chan struct{}
	w          *workload
	at         int64 // enqueue time, ns since the Controller's epoch
	state      waiterState
	ticket     *Ticket // set when granted
	prev, next *waiter
}

// queue is a FIFO of waiters, a doubly linked list through the waiters so that a push allocates
// nothing and a waiter that leaves early is taken out in constant time. It and holders are
// written out twice on purpose: container/list allocates an element per push (on every
// statement's fast path), and one generic list over both element types calls its links through
// the instantiation's dictionary, which BenchmarkQueue shows slower.
type queue struct {
	head, tail *waiter
	len        int
}

func (q *queue) push(w *waiter) {
	w.prev, w.next = q.tail, nil
	if q.tail == nil {
		q.head = w
	} else {
		q.tail.next = w
	}
	q.tail = w
	q.len++
}

func (q *queue) remove(w *waiter) {
	if w.prev == nil {
		q.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		q.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.prev, w.next = nil, nil
	q.len--
}

// holders are the tickets that hold a slot, in the order they got it: the oldest is the first
// to reach the stall limit. A doubly linked list, so a release from the middle is constant time.
type holders struct {
	head, tail *Ticket
}

func (h *holders) push(t *Ticket) {
	t.prev, t.next = h.tail, nil
	if h.tail == nil {
		h.head = t
	} else {
		h.tail.next = t
	}
	h.tail = t
}

func (h *holders) remove(t *Ticket) {
	if t.prev == nil {
		h.head = t.next
	} else {
		t.prev.next = t.next
	}
	if t.next == nil {
		h.tail = t.prev
	} else {
		t.next.prev = t.prev
	}
	t.prev, t.next = nil, nil
}
