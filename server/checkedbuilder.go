package server

import (
	"overloadsql/server/access"
	"overloadsql/server/memlimit"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
)

// checkedBuilder is the engine's priority builder, asked first for the iterator of every node:
// at the first node of a statement (access.CheckedPlans) it checks the statement's whole plan
// with access.PlanCheck, and builds it with the engine's builder, through the session's memory
// account when the plan may change what the session keeps; for every other node it only yields
// (yielder).
type checkedBuilder struct {
	yielder    yielder
	base       *rowexec.BaseBuilder
	s          *Server
	privileges access.PlanCheck
}

var _ sql.NodeExecBuilder = checkedBuilder{}

func (b checkedBuilder) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	if !b.s.checkedPlans.First(ctx) {
		return b.yielder.Build(ctx, n, r)
	}
	n, variables, err := b.check(ctx, n)
	if err != nil {
		return nil, err
	}
	ctx = access.Checked(ctx)
	if variables {
		return b.s.sessionAccounts.Build(ctx, n, func(n sql.Node) (sql.RowIter, error) { return b.base.Build(ctx, n, r) })
	}
	return b.base.Build(ctx, n, r)
}

// check checks a statement's plan, and gives the plan to build it with, and whether the plan
// sets user variables (whose memory the session's account charges).
func (b checkedBuilder) check(ctx *sql.Context, n sql.Node) (sql.Node, bool, error) {
	variables := false
	n, err := b.privileges.Check(ctx, n, func(n sql.Node) { variables = variables || memlimit.KeepsMemory(n) })
	return n, variables, err
}
