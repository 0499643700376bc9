package functions

import (
	"context"
	"fmt"
	"strings"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
)

// BoundedProvider is the engine's database provider with the functions of boundedFunctions and
// boundedAggregates replaced by checked ones (the engine looks functions up in its provider
// first, then among its built-ins), and those given to Override.
type BoundedProvider struct {
	sql.CollatedDatabaseProvider
	functions map[string]sql.Function
}

var _ sql.FunctionProvider = BoundedProvider{}

// NewBoundedProvider is databases with the bounded functions. limit is max_allowed_packet, read
// at each call. stopped is the error of the statement running on ctx when the server asked it
// to stop (its memory guard), nil otherwise; a bounded function checks it beside ctx's
// cancellation, before it builds a value and after. A nil stopped never stops.
func NewBoundedProvider(databases sql.CollatedDatabaseProvider, limit func() int, stopped func(ctx context.Context) error) BoundedProvider {
	if stopped == nil {
		stopped = func(context.Context) error { return nil }
	}
	builtin := map[string]sql.Function{}
	for _, f := range function.BuiltIns {
		builtin[f.FunctionName()] = f
	}
	fns := map[string]sql.Function{}
	for name, sz := range boundedFunctions {
		orig, ok := builtin[name]
		if !ok {
			panic(fmt.Sprintf("functions: the engine has no function %s to bound", name))
		}
		fns[name] = sql.FunctionN{Name: name, Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			call, err := orig.NewInstance(ctx, args)
			if err != nil {
				return nil, err
			}
			return &boundedCall{call: call, name: name, size: sz, limit: limit, stopped: stopped}, nil
		}}
	}
	for name, sz := range boundedAggregates {
		orig, ok := builtin[name]
		if !ok {
			panic(fmt.Sprintf("functions: the engine has no aggregate %s to bound", name))
		}
		fns[name] = sql.FunctionN{Name: name, Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			call, err := orig.NewInstance(ctx, args)
			if err != nil {
				return nil, err
			}
			agg, ok := call.(sql.Aggregation)
			if !ok {
				return nil, fmt.Errorf("functions: %s is not an aggregate", name)
			}
			return &boundedAggregate{Aggregation: agg, name: name, size: sz, limit: limit}, nil
		}}
	}
	return BoundedProvider{CollatedDatabaseProvider: databases, functions: fns}
}

// Override makes e's provider, a BoundedProvider, answer the names of fns with them, before the
// bounded functions and the engine's built-in functions of the same names.
func Override(e *sqle.Engine, fns []sql.Function) {
	p, ok := e.Analyzer.Catalog.DbProvider.(BoundedProvider)
	if !ok {
		panic(fmt.Sprintf("functions: the engine's provider is a %T, not the BoundedProvider", e.Analyzer.Catalog.DbProvider))
	}
	for _, f := range fns {
		p.functions[f.FunctionName()] = f
	}
}

// Function implements sql.FunctionProvider: the bounded functions and those given to Override;
// the engine's built-ins for every other name.
func (p BoundedProvider) Function(_ *sql.Context, _, name string) (sql.Function, bool) {
	f, ok := p.functions[strings.ToLower(name)]
	return f, ok
}
