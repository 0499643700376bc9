package memlimit

import (
	"sync/atomic"

	"overloadsql/quota"
	"overloadsql/server/config"

	"github.com/dolthub/go-mysql-server/sql"
)

// The workload level of the memory quotas ([[workloads]].max_memory_usage).
//
// A workload has an account between its sessions' accounts and the server's: what all its
// sessions keep counts there, and a reservation that would take it past max_memory_usage is
// refused with error 241 "Memory limit (for workload NAME) exceeded", for that workload's
// sessions only. A session's account is under the account of the workload its statements run
// in without a hint:
//
//   - at session start, its user's workload (users[].workload, else "default");
//   - after SET workload = 'name', that workload (after SET workload = '', its user's again).
//     The session takes what it keeps along; when the new workload cannot take it, the SET
//     fails with 241 and the session stays where it was. A session that keeps at most
//     sessionAllowance moves whatever the workload holds, as its first reservations would;
//   - a SET_VAR(workload = ...) hint does not move the account: it chooses where one statement
//     waits for a CPU slot, and what that statement keeps (SELECT ... INTO @v) stays with the
//     session, in the session's workload;
//   - after a reload: a session of a workload the reload removed is moved to the server's
//     account at once, with its bytes (forced: it must go somewhere, and the server's account
//     keeps them anyway), and so is a session that the reload moves to another workload. It
//     joins its new workload (its SET workload if that is still configured, else its user's) at
//     once when that workload can take what it keeps, else at its next reservation, which is
//     refused with 241 for that workload while it does not fit. A reload that changes a
//     workload's max_memory_usage applies to the next reservation.
//
// Sessions on admin_listen stay under the server's account: an operator's statements run in no
// workload, and its session's own limit is the only one that refuses it.
//
// Lock order: a session's sessionMemory.mu, then Accounts.mu (held only to look up a
// session or a workload account, never while a session's mutex is taken).

// workloadMemory is one workload's account. removed is set (under Accounts.mu) when a
// reload takes the workload out; its sessions are then moved out.
type workloadMemory struct {
	name    string
	account *quota.Account
	limit   atomic.Int64 // max_memory_usage, bytes; 0 = none
	removed atomic.Bool
}

// ConfigureWorkloads makes the workload accounts those of cfg: new ones are opened, the limits
// of the others take cfg's values at once, and the sessions of removed workloads move to the
// server's account; then every session joins the workload cfg puts it in (see the top of this
// file).
func (a *Accounts) ConfigureWorkloads(cfg *config.Config) {
	a.mu.Lock()
	seen := map[string]bool{}
	for _, w := range cfg.AllWorkloads() {
		seen[w.Name] = true
		wm := a.workloads[w.Name]
		if wm == nil {
			wm = &workloadMemory{name: w.Name}
			wm.account = quota.New("for workload "+w.Name, a.server, wm.limit.Load)
			a.workloads[w.Name] = wm
		}
		wm.limit.Store(int64(min(w.MaxMemoryUsage, 1<<62)))
	}
	for name, wm := range a.workloads {
		if !seen[name] {
			wm.removed.Store(true)
			delete(a.workloads, name)
		}
	}
	sessions := make([]*sessionMemory, 0, len(a.bySession))
	for _, m := range a.bySession {
		sessions = append(sessions, m)
	}
	a.mu.Unlock()
	for _, m := range sessions {
		m.mu.Lock()
		want := ""
		if !m.operator {
			want = cfg.UserWorkload(m.user)
			if _, ok := cfg.LookupWorkload(m.chosen); ok && m.chosen != "" {
				want = m.chosen
			}
		}
		if m.under != nil && (m.under.removed.Load() || m.under.name != want) {
			_ = m.account.Move(a.server, true)
			m.under = nil
		}
		m.want = want
		_ = m.place()
		m.mu.Unlock()
	}
}

// workload is the account of a configured workload; nil for "" and for a name no longer
// configured.
func (a *Accounts) workload(name string) *workloadMemory {
	if name == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.workloads[name]
}

// place puts the session's account under the account of the workload it should be under
// (want), with what it keeps, when it is not there yet. A session that keeps more than
// sessionAllowance is refused (*quota.ExceededError naming the workload) when the workload
// cannot take it, and stays where it was. Called with m.mu held.
func (m *sessionMemory) place() error {
	if m.under != nil && m.under.name == m.want && !m.under.removed.Load() || m.under == nil && m.want == "" {
		return nil
	}
	target := m.accounts.workload(m.want)
	parent := m.accounts.server
	if target != nil {
		parent = target.account
	}
	if err := m.account.Move(parent, m.account.Used() <= m.accounts.allowance); err != nil {
		return err
	}
	m.under = target
	return nil
}

// Join puts a session's account under workload name's (SET workload; "" = its user's, which
// the caller resolves) and remembers chosen as the session's own choice. When the workload
// cannot take what the session keeps, nothing changes and the error is 241.
func (a *Accounts) Join(sess sql.Session, name, chosen string) error {
	a.mu.Lock()
	m := a.bySession[sess]
	a.mu.Unlock()
	if m == nil || m.operator {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	before := m.want
	m.want = name
	if err := m.place(); err != nil {
		m.want = before
		return a.refusal("(the session's variables and prepared statements)", m.account.Used(), err)
	}
	m.chosen = chosen
	return nil
}

// Open opens the memory account of a new session of user, in workload (its user's);
// operator: the session is on admin_listen, and stays under the server's account.
func (a *Accounts) Open(sess sql.Session, user string, operator bool, workload string) {
	m := a.begin(sess, user, operator)
	if operator {
		return
	}
	m.mu.Lock()
	m.want = workload
	_ = m.place() // a new session keeps nothing: the move cannot be refused
	m.mu.Unlock()
}

// WorkloadUsage is what the sessions of workload name keep now, bytes (system.workloads
// memory_usage); 0 for a workload no longer configured.
func (a *Accounts) WorkloadUsage(name string) uint64 {
	if wm := a.workload(name); wm != nil {
		return uint64(max(wm.account.Used(), 0))
	}
	return 0
}
