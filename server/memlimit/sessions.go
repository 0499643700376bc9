package memlimit

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"overloadsql/engine"
	"overloadsql/mysqlerr"
	"overloadsql/overload"
	"overloadsql/quota"
	"overloadsql/tables"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// Memory quotas of sessions (max_memory_usage_for_session), as ClickHouse's memory trackers.
//
// Each session has a quota.Account; its parent is its workload's account, whose parent is the
// server's (workloads.go says when a session moves between workloads). What a session keeps beyond a
// statement is what can fill the server while every statement is small: its user variables, its
// session variables and its prepared statements. The engine keeps the user variables in its
// session (sql.BaseSession's user variables, a field the server
// cannot reach), so the server does not see SetUserVariable. It counts them
// where the plans that set them are built instead (Accounts.Build, called by the server's plan builder
// for every plan that may set one, procedure bodies and prepared statements included):
//
//   - SET @v = ..., SET @v := ..., SET SESSION x = ... (also in a procedure's body, a
//     trigger's, or a prepared statement): each assigned value is measured after it is computed
//     and before it is stored, and reserved on the session's account; an assignment over the
//     quota fails (chargedValue). What a session variable holds is measured again after the
//     statement, so a value its check refused costs nothing.
//   - SELECT ... INTO @v, a CALL's OUT and INOUT parameters, and what a procedure's body stores
//     with SELECT ... INTO @v or FETCH ... INTO @v: the engine stores them while it builds the
//     statement's rows, before any is sent; the variables the plan names (and those a called
//     procedure's text names) are measured then, and the statement fails if they do not fit.
//   - Assignments the engine makes while rows are read (a trigger's SELECT ... INTO @v) are
//     charged when the statement's rows are closed, without refusing: the next assignment that
//     grows the session's variables is refused instead.
//
//   - PREPARE and DEALLOCATE PREPARE, when their plans are built; COM_STMT_PREPARE in
//     the server's connectionHandler.ComPrepare (KeepPrepared), by text, as the engine keeps them.
//
// A statement refused for memory puts back every user variable it named to its value before
// the statement (as MySQL's SET changes none of its variables when one fails), so the bytes it
// tried to keep are released. An overwritten variable's charge is replaced by its new size; the
// session's account is released when the session ends (connection closed or reset).
//
// Not counted: a running statement's own working memory (sorts, groupings, joins, the values it
// computes), data stored in tables and a procedure's local variables while it runs (held
// GET_LOCK names are counted, by package server/userlock). They are bounded by the memory guard (guard.go) and by the limits of docs/reference.md, "Limits";
// the server's account makes room for them (sessionShareOfLimit).

// sessionShareOfLimit is the share of the server's memory limit that the accounted memory of all
// sessions may take, less what the rest of the live heap holds: the rest of the limit is left for
// the running statements' working memory and the garbage between two collections, so that
// sessions filling their accounts are refused one by one before the heap reaches the limit and
// the memory guard stops everyone.
const sessionShareOfLimit = 0.6

// defaultSessionShare is max_memory_usage_for_session's share of the memory limit when it is 0.
const defaultSessionShare = 0.25

// sessionAllowance is what every session may keep without the share of all sessions refusing
// it: a few variables and prepared statements, so that ordinary sessions keep working while
// others fill the share. With max_connections (default 1024) sessions it is at most 64 MiB, taken
// from the part of the memory limit left to working memory.
const sessionAllowance = 64 << 10

// userVariableOverhead is what a user variable costs beyond its name and value: its entry in the
// session's map and the boxed value.
const userVariableOverhead = 64

// Accounts are the server's account and those of the open sessions.
type Accounts struct {
	server       *quota.Account
	serverLimit  atomic.Int64 // bytes; recomputed at each check of the memory guard
	sessionLimit atomic.Int64 // bytes; 0 = none
	memoryLimit  atomic.Uint64
	derived      atomic.Bool // max_memory_usage_for_session is 0: the session limit is a share of the memory limit
	// refused counts the statements refused for a quota (system.events MemoryQuotaExceededQueries).
	refused atomic.Uint64
	// allowance is sessionAllowance (unit tests of the shared limits set 0).
	allowance int64

	// Uncache drops a statement the engine keeps in the session for PREPARE (by name) or for
	// COM_STMT_PREPARE (by text).
	Uncache func(sess sql.Session, key string)

	mu        sync.Mutex
	bySession map[sql.Session]*sessionMemory
	// workloads are the accounts of the configured workloads, by name (workloads.go).
	workloads map[string]*workloadMemory
}

func NewAccounts() *Accounts {
	a := &Accounts{bySession: map[sql.Session]*sessionMemory{}, workloads: map[string]*workloadMemory{}, allowance: sessionAllowance}
	a.server = quota.New("total", nil, a.serverLimit.Load)
	return a
}

// Adjust sets the limits from the memory limit the guard enforces (bytes, 0 = none), the
// live heap after the last collection, and max_memory_usage_for_session (0 = a share of limit).
func (a *Accounts) Adjust(limit, liveHeap, sessionSetting uint64) {
	a.memoryLimit.Store(limit)
	a.derived.Store(sessionSetting == 0)
	session := int64(sessionSetting)
	if sessionSetting == 0 {
		session = int64(defaultSessionShare * float64(limit))
	}
	a.sessionLimit.Store(session)
	if limit == 0 {
		a.serverLimit.Store(0)
		return
	}
	// The live heap holds the accounted bytes counted at the last collection; the rest of it is
	// what the accounts do not see.
	rest := max(int64(liveHeap)-a.server.Used(), 0)
	// At least 1: 0 would be no limit at all.
	a.serverLimit.Store(max(int64(sessionShareOfLimit*float64(limit))-rest, 1))
}

// begin opens the account of a new session of user; operator: it is on admin_listen. The
// account is under the server's until the session joins a workload (join).
func (a *Accounts) begin(sess sql.Session, user string, operator bool) *sessionMemory {
	m := &sessionMemory{
		accounts: a,
		user:     user,
		operator: operator,
		account:  quota.New("for session", a.server, a.sessionLimit.Load),
		charged:  map[string]int64{},
		protocol: map[string]int64{},
		locks:    map[string]int64{},
	}
	a.mu.Lock()
	a.bySession[sess] = m
	a.mu.Unlock()
	return m
}

// End closes a session's account: the session and its variables are gone.
func (a *Accounts) End(sess sql.Session) {
	a.mu.Lock()
	m := a.bySession[sess]
	delete(a.bySession, sess)
	a.mu.Unlock()
	if m != nil {
		m.close()
	}
}

// KeepLock charges the user-level lock the session of ctx holds under the lock table's key as
// size bytes from now on: growth that does not fit is error 241 and changes nothing; size 0
// gives the bytes back. Locks are counted apart from variables, so that no variable's name can
// stand for a lock's charge. A session the server did not open is not counted.
func (a *Accounts) KeepLock(ctx *sql.Context, key string, size int64) error {
	m := a.of(ctx)
	if m == nil {
		return nil
	}
	return m.keepIn(m.locks, "(user-level lock '"+key+"')", key, size, size > 0)
}

// of is the account of the session of ctx, nil for a session the server did not open (the
// event scheduler's).
func (a *Accounts) of(ctx *sql.Context) *sessionMemory {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bySession[ctx.Session]
}

// sessionMemory is one session's account and what each of its user variables is charged.
type sessionMemory struct {
	accounts *Accounts
	// operator: a session on admin_listen, whose own limit holds but which the share of all
	// sessions never refuses, so that an operator can always work on a full server.
	operator bool
	user     string
	account  *quota.Account
	mu       sync.Mutex
	charged  map[string]int64 // by lower-case name; prepared statements by preparedKey
	protocol map[string]int64 // statements prepared with COM_STMT_PREPARE, by text
	locks    map[string]int64 // held user-level locks, by the lock table's key
	// chosen is the session's SET workload ("" = its user's); want is the workload whose
	// account its account should be under ("" = none: the server's), under the one it is
	// under now (nil: the server's). They differ after a reload until the session's next
	// reservation places it (workloads.go).
	chosen string
	want   string
	under  *workloadMemory
}

// keep charges variable name for holding size bytes from now on. With refuse, a growth that
// does not fit leaves the charge as it was and returns the session's error 241 (counted in
// MemoryQuotaExceededQueries); without, it is charged anyway.
func (m *sessionMemory) keep(name string, size int64, refuse bool) error {
	return m.keepIn(m.charged, name, name, size, refuse)
}

// keepIn is keep for key of charged, one of the session's maps; a refusal names what.
func (m *sessionMemory) keepIn(charged map[string]int64, what, name string, size int64, refuse bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delta := size - charged[name]
	switch {
	case delta > 0 && refuse:
		if err := m.reserve(delta); err != nil {
			return m.accounts.refusal(what, size, err)
		}
	case delta > 0:
		m.account.Charge(delta)
	default:
		m.account.Release(-delta)
	}
	if size == 0 {
		delete(charged, name)
	} else {
		charged[name] = size
	}
	return nil
}

// reserve reserves n bytes on the session's account. Within sessionAllowance, and for an
// operator, only the session's own limit can refuse them.
func (m *sessionMemory) reserve(n int64) error {
	if err := m.place(); err != nil {
		return err
	}
	if m.operator || m.account.Used()+n <= m.accounts.allowance {
		return m.account.ReserveOwn(n)
	}
	return m.account.Reserve(n)
}

func (m *sessionMemory) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	var total int64
	for _, n := range m.charged {
		total += n
	}
	for _, n := range m.protocol {
		total += n
	}
	for _, n := range m.locks {
		total += n
	}
	m.account.Release(total)
	clear(m.charged)
	clear(m.protocol)
	clear(m.locks)
}

// savedVariable is a user variable's value before a statement.
type savedVariable struct {
	typ   sql.Type // nil: the variable did not exist
	value any
}

// settle charges the variables names for what they hold now. With refuse, it stops at the first
// that does not fit and returns its error.
func (m *sessionMemory) settle(ctx *sql.Context, names []string, refuse bool) error {
	for _, name := range names {
		typ, v := variable(ctx, name)
		if err := m.keep(name, variableSize(name, typ, v), refuse); err != nil {
			return err
		}
	}
	return nil
}

// variable is the type and value of a user variable, or of a session's system variable for a
// name that starts with "@@"; a nil type when it does not exist.
func variable(ctx *sql.Context, name string) (sql.Type, any) {
	if sys, ok := strings.CutPrefix(name, "@@"); ok {
		v, err := ctx.GetSessionVariable(ctx, sys)
		if err != nil {
			return nil, nil
		}
		return types.Null, v
	}
	typ, v, _ := ctx.GetUserVariable(ctx, name)
	return typ, v
}

// Build builds plan n, which may set user variables, with their memory counted (see the top of
// this file); next builds the plan given.
func (a *Accounts) Build(ctx *sql.Context, n sql.Node, next func(sql.Node) (sql.RowIter, error)) (sql.RowIter, error) {
	m := a.of(ctx)
	if m == nil {
		return next(n)
	}
	names, duringRows, calls := userVariablesNamed(ctx, n)
	prepared, deallocated := preparedNamed(ctx, n)
	saved := make(map[string]savedVariable, len(names))
	for _, name := range names {
		typ, v := variable(ctx, name)
		saved[name] = savedVariable{typ, v}
	}
	charged, err := chargeAssignments(ctx, n, m)
	if err != nil {
		return nil, err
	}
	iter, err := next(charged)
	// A CALL's own statements were refused and put back by their own build: the CALL keeps
	// what the statements before them did, as in MySQL.
	refused := isQuotaError(err) && !calls
	if !refused {
		if serr := m.settle(ctx, names, err == nil); serr != nil {
			err, refused = serr, true
		}
	}
	if err == nil {
		for _, name := range deallocated {
			_ = m.keep(preparedKey(name), 0, false)
		}
		for name, size := range prepared {
			if perr := m.keep(preparedKey(name), size, true); perr != nil {
				// The engine cached the statement while it planned the PREPARE; a statement
				// prepared again under the same name was dropped then too, as in MySQL.
				if a.Uncache != nil {
					a.Uncache(ctx.Session, name)
				}
				_ = m.keep(preparedKey(name), 0, false)
				err, refused = perr, true
			}
		}
	}
	if !refused {
		if err != nil {
			return nil, err
		}
		if duringRows {
			return &settlingIter{RowIter: iter, memory: m, names: names}, nil
		}
		return iter, nil
	}
	if iter != nil {
		_ = iter.Close(ctx)
	}
	for _, name := range names {
		s := saved[name]
		if strings.HasPrefix(name, "@@") {
			// A system variable is checked as it is set: the refused one was not set, and
			// putting back the others would run their checks and hooks again.
			continue
		}
		if s.typ == nil {
			s.typ = types.Null
		}
		if serr := ctx.SetUserVariable(ctx, name, s.value, s.typ); serr != nil {
			return nil, serr
		}
	}
	_ = m.settle(ctx, names, false)
	return nil, err
}

// refusal counts a refused reservation (MemoryQuotaExceededQueries) and makes it error 241 for
// what tried to keep size bytes; an error that is not a quota's is returned as it is.
func (a *Accounts) refusal(what string, size int64, err error) error {
	var e *quota.ExceededError
	if !errors.As(err, &e) {
		return err
	}
	a.refused.Add(1)
	return a.quotaSQLError(what, size, e)
}

// isQuotaError reports whether err is a memory quota's error 241.
func isQuotaError(err error) bool {
	var se *mysql.SQLError
	return errors.As(sql.UnwrapError(err), &se) && se.Num == mysqlerr.ERMemoryLimitExceeded
}

// quotaSQLError is the error of an assignment of size bytes to variable that e refused.
func (a *Accounts) quotaSQLError(variable string, size int64, e *quota.ExceededError) *mysql.SQLError {
	var which, remedy string
	switch e.Account {
	case "for session":
		which = "max_memory_usage_for_session"
		if a.derived.Load() {
			which = "max_memory_usage_for_session = 0: 25% of the memory limit " + sizeText(a.memoryLimit.Load())
		}
		remedy = "free variables this session no longer needs (SET @v = NULL), or ask an admin to raise max_memory_usage_for_session"
	case "total":
		which = fmt.Sprintf("60%% of the memory limit %s, less %s the rest of the heap holds", sizeText(a.memoryLimit.Load()),
			sizeText(uint64(max(int64(sessionShareOfLimit*float64(a.memoryLimit.Load()))-e.Limit, 0))))
		remedy = "what all sessions keep fills the share of the memory limit for them: retry later, or free variables"
	default:
		which = "max_memory_usage of " + strings.TrimPrefix(e.Account, "for ")
		remedy = "the sessions of that workload hold their share: free variables, or ask an admin to raise its max_memory_usage"
	}
	return mysqlerr.New(mysqlerr.ERMemoryLimitExceeded,
		"Memory limit (%s) exceeded: would use %s (attempt to keep %s in %s), maximum: %s (%s); the statement changed no user variable; %s. (MEMORY_LIMIT_EXCEEDED)",
		e.Account, quotaSize(e.Used+e.Want), quotaSize(size), what(variable), quotaSize(e.Limit), which, remedy)
}

// what names what a refused charge was for, from its key.
func what(key string) string {
	switch {
	case strings.HasPrefix(key, " prepare "):
		return "prepared statement " + strings.TrimPrefix(key, " prepare ")
	case strings.HasPrefix(key, "@@"):
		return "system variable " + key
	case strings.HasPrefix(key, "("):
		return key[1 : len(key)-1]
	}
	return "user variable @" + key
}

// quotaSize prints bytes as sizeText does, and under 1 MiB in bytes.
func quotaSize(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%d bytes", max(b, 0))
	}
	return sizeText(uint64(b))
}

// settlingIter charges, when the rows close, the variables the engine may have set while they
// were read (a trigger's SELECT ... INTO @v).
type settlingIter struct {
	sql.RowIter
	memory *sessionMemory
	names  []string
}

func (it *settlingIter) Close(ctx *sql.Context) error {
	err := it.RowIter.Close(ctx)
	_ = it.memory.settle(ctx, it.names, false)
	return err
}

// KeepsMemory reports whether a node of a plan may change what its session keeps: set
// user or session variables, or prepare or deallocate a statement (see the top of this file).
// The server's plan builder asks it of every node, so it only looks at the node's type and fields.
func KeepsMemory(n sql.Node) bool {
	switch n := n.(type) {
	case *plan.PrepareQuery, *plan.DeallocateQuery:
		return true
	case *plan.Set:
		for _, e := range n.Exprs {
			if _, ok := assigned(e); ok {
				return true
			}
		}
	case *plan.Into:
		for _, e := range n.IntoVars {
			if _, ok := e.(*expression.UserVar); ok {
				return true
			}
		}
	case *plan.Call:
		return true
	}
	return false
}

// userVariablesNamed are the user variables a plan may set, in lower case: the left sides of
// SET, the variables of INTO, a CALL's parameters and every @name in the called procedure's
// text. duringRows says whether some may be set while the rows are read (in a trigger); calls,
// whether the plan calls a procedure.
func userVariablesNamed(ctx *sql.Context, n sql.Node) (names []string, duringRows, calls bool) {
	seen := map[string]bool{}
	add := func(name string) {
		name = strings.ToLower(name)
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	engine.InspectPlan(ctx, n, func(n sql.Node) bool {
		switch n := n.(type) {
		case *plan.Set:
			for _, e := range n.Exprs {
				if name, ok := assigned(e); ok {
					add(name)
				}
			}
		case *plan.Into:
			for _, e := range n.IntoVars {
				if uv, ok := e.(*expression.UserVar); ok {
					add(uv.Name)
				}
			}
		case *plan.Call:
			calls = true
			for _, e := range n.Params {
				if uv, ok := e.(*expression.UserVar); ok {
					add(uv.Name)
				}
			}
			if n.Procedure != nil {
				for _, name := range userVariablesInText(n.Procedure.CreateProcedureString) {
					add(name)
				}
			}
		case *plan.TriggerExecutor, *plan.TriggerBeginEndBlock:
			duringRows = true
		}
		return true
	}, func(sql.Expression) bool { return true })
	return names, duringRows, calls
}

// preparedOverhead is what a prepared statement is charged beyond twice its text (the text and
// the parsed statement the engine keeps): the engine's own structures for one statement (see
// Memory quotas in docs/reference.md).
const preparedOverhead = 1024

func preparedSize(text string) int64 { return preparedOverhead + 2*int64(len(text)) }

// preparedKey is the name under which a prepared statement is charged: no variable name starts
// with a space.
func preparedKey(name string) string { return " prepare " + strings.ToLower(name) }

// preparedNamed are the statements a plan prepares (PREPARE name FROM ..., with the size of its
// text, or of the user variable it names) and deallocates.
func preparedNamed(ctx *sql.Context, n sql.Node) (prepared map[string]int64, deallocated []string) {
	transform.Inspect(n, func(n sql.Node) bool {
		switch n := n.(type) {
		case *plan.PrepareQuery:
			if prepared == nil {
				prepared = map[string]int64{}
			}
			text := ""
			if n.PrepStmt != nil {
				text = n.PrepStmt.Expr
			}
			if name, ok := strings.CutPrefix(text, "@"); ok {
				if _, v, _ := ctx.GetUserVariable(ctx, name); v != nil {
					text, _ = v.(string)
				}
			}
			prepared[strings.ToLower(n.Name)] = preparedSize(text)
			return false
		case *plan.DeallocateQuery:
			deallocated = append(deallocated, strings.ToLower(n.Name))
		}
		return true
	})
	return prepared, deallocated
}

// KeepPrepared charges a statement prepared with COM_STMT_PREPARE (its text query) to the
// session's account. The engine keeps what it prepared from a text for as long as the session
// lasts, and the protocol layer forgets a closed statement by itself (open are the connection's
// prepared statements now): the texts no open statement uses any more are first dropped from
// the engine's cache (an execution of such a text prepares it again) and released. A new text
// that does not fit gets error 241.
func (a *Accounts) KeepPrepared(sess sql.Session, open map[uint32]*mysql.PrepareData, query string) error {
	a.mu.Lock()
	m := a.bySession[sess]
	a.mu.Unlock()
	if m == nil {
		return nil
	}
	inUse := make(map[string]bool, len(open))
	for _, p := range open {
		inUse[p.PrepareStmt] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for text, size := range m.protocol {
		if !inUse[text] {
			if a.Uncache != nil {
				a.Uncache(sess, text)
			}
			m.account.Release(size)
			delete(m.protocol, text)
		}
	}
	if _, ok := m.protocol[query]; ok {
		return nil
	}
	size := preparedSize(query)
	if err := m.reserve(size); err != nil {
		if a.Uncache != nil {
			a.Uncache(sess, query)
		}
		return a.refusal("(a prepared statement)", size, err)
	}
	m.protocol[query] = size
	return nil
}

// assigned is the name of what a SET expression assigns when the quotas count it: a user
// variable's name, or "@@" and the name of a session's system variable (a string one may hold
// up to max_allowed_packet).
func assigned(e sql.Expression) (string, bool) {
	sf, ok := e.(*expression.SetField)
	if !ok {
		return "", false
	}
	switch v := sf.LeftChild.(type) {
	case *expression.UserVar:
		return v.Name, true
	case *expression.SystemVar:
		if v.Scope != nil && v.Scope.IsSessionOnly() {
			return "@@" + v.Name, true
		}
	}
	return "", false
}

// userVariablesInText are the names of the @name user variables in SQL text, `@name`,
// @'name', @"name" and @`name` included, @@system variables left out. Names in string
// literals and comments are included: one more variable measured, never one less.
func userVariablesInText(text string) []string {
	var names []string
	for i := 0; i < len(text); i++ {
		if text[i] != '@' {
			continue
		}
		if i+1 < len(text) && text[i+1] == '@' {
			// A system variable: skip its name.
			i++
			for i+1 < len(text) && isNameByte(text[i+1]) {
				i++
			}
			continue
		}
		j := i + 1
		if j < len(text) && (text[j] == '\'' || text[j] == '"' || text[j] == '`') {
			end := strings.IndexByte(text[j+1:], text[j])
			if end < 0 {
				break
			}
			names = append(names, text[j+1:j+1+end])
			i = j + 1 + end
			continue
		}
		for j < len(text) && isNameByte(text[j]) {
			j++
		}
		if j > i+1 {
			names = append(names, text[i+1:j])
		}
		i = j - 1
	}
	return names
}

func isNameByte(c byte) bool {
	return c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// chargeAssignments is n with the value of each SET of a user variable measured and reserved
// before it is stored (chargedValue), in the statement and in the triggers of an INSERT.
func chargeAssignments(ctx *sql.Context, n sql.Node, m *sessionMemory) (sql.Node, error) {
	out, _, err := transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			if n.Source == nil {
				return n, transform.SameTree, nil
			}
			src, err := chargeAssignments(ctx, n.Source, m)
			if err != nil {
				return nil, transform.SameTree, err
			}
			return n.WithSource(src), transform.NewTree, nil
		case *plan.Set:
			exprs := make([]sql.Expression, len(n.Exprs))
			changed := false
			for i, e := range n.Exprs {
				exprs[i] = e
				if name, ok := assigned(e); ok {
					sf := e.(*expression.SetField)
					exprs[i] = expression.NewSetField(sf.LeftChild, &chargedValue{Expression: sf.RightChild, name: strings.ToLower(name), memory: m})
					changed = true
				}
			}
			if !changed {
				return n, transform.SameTree, nil
			}
			set, err := n.WithExpressions(ctx, exprs...)
			return set, transform.NewTree, err
		}
		return n, transform.SameTree, nil
	})
	return out, err
}

// chargedValue is the value assigned to user variable name: computed, then reserved on the
// session's account before the engine stores it.
type chargedValue struct {
	sql.Expression
	name   string
	memory *sessionMemory
}

func (c *chargedValue) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.Expression.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	// The engine stores the value with the type it approximates from it; a NULL still exists.
	if err := c.memory.keep(c.name, variableSize(c.name, types.Null, v), true); err != nil {
		return nil, err
	}
	return v, nil
}

func (c *chargedValue) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	e, err := c.Expression.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	return &chargedValue{Expression: e, name: c.name, memory: c.memory}, nil
}

// variableSize is what a user variable of that name holding v costs; 0 when it does not exist
// (typ nil).
func variableSize(name string, typ sql.Type, v any) int64 {
	if typ == nil {
		return 0
	}
	return userVariableOverhead + int64(len(name)) + valueSize(v)
}

// valueSize is the bytes a value of the engine holds: strings and byte slices by their length,
// JSON documents and geometries by their parts, other values by their fixed size.
func valueSize(v any) int64 {
	var size int64
	stack := []any{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := v.(type) {
		case nil:
		case string:
			size += 16 + int64(len(v))
		case []byte:
			size += 24 + int64(len(v))
		case types.JSONDocument:
			stack = append(stack, v.Val)
		case *types.LazyJSONDocument:
			size += 24 + int64(len(v.Bytes))
		case map[string]any:
			for k, e := range v {
				size += 48 + int64(len(k))
				stack = append(stack, e)
			}
		case []any:
			size += 24
			for _, e := range v {
				size += 16
				stack = append(stack, e)
			}
		case decimal.Decimal:
			size += 32 + int64(len(v.Coefficient().Bits())*8)
		case types.Point:
			size += 24
		case types.LineString:
			size += 24 + 24*int64(len(v.Points))
		case types.MultiPoint:
			size += 24 + 24*int64(len(v.Points))
		case types.Polygon:
			for _, l := range v.Lines {
				stack = append(stack, l)
			}
		case types.MultiLineString:
			for _, l := range v.Lines {
				stack = append(stack, l)
			}
		case types.MultiPolygon:
			for _, p := range v.Polygons {
				stack = append(stack, p)
			}
		case types.GeomColl:
			for _, g := range v.Geoms {
				stack = append(stack, g)
			}
		default:
			size += 16
		}
	}
	return size
}

// Events are the quotas' rows of system.events.
func (a *Accounts) Events() []overload.Event {
	return []overload.Event{
		{Name: "MemoryQuotaExceededQueries", Value: a.refused.Load(), Description: "Statements refused with error 241 (MEMORY_LIMIT_EXCEEDED) because what they set or prepared did not fit in the session's quota (max_memory_usage_for_session), its workload's (max_memory_usage) or the share of the memory limit for all sessions."},
	}
}

// Gauges are the quotas' rows of system.metrics.
func (a *Accounts) Gauges() []tables.Gauge {
	return []tables.Gauge{
		{Name: "MemoryTrackingSessions", Value: a.server.Used(), Description: "Bytes the memory quotas count now: what all sessions keep between statements (user variables, session variables, prepared statements)."},
		{Name: "MemoryTrackingSessionsLimit", Value: a.serverLimit.Load(), Description: "Bytes all sessions may keep now: 60% of the memory limit less what the rest of the live heap holds; 0 = no limit."},
	}
}
