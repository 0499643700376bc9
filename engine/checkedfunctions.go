package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	gmsjson "github.com/dolthub/go-mysql-server/sql/expression/function/json"
)

// CheckedFunctions are the engine's functions replaced by this package's: the geometry
// functions checking their first argument (geometryFunction, geometry.go) and JSON_SEARCH
// stopping at KILL (cancellableJSONSearch, like.go). The server gives them to its function
// provider (functions.Override, package engine/functions).
func CheckedFunctions() []sql.Function {
	builtin := map[string]sql.Function{}
	for _, f := range function.BuiltIns {
		builtin[f.FunctionName()] = f
	}
	var fns []sql.Function
	for name, orig := range builtin {
		check, ok := geometryFunction(name)
		if !ok {
			continue
		}
		fns = append(fns, sql.FunctionN{Name: name, Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			if len(args) > 0 {
				args = append([]sql.Expression{&geometryInput{value: args[0], function: name, check: check}}, args[1:]...)
			}
			return orig.NewInstance(ctx, args)
		}})
	}
	search, ok := builtin["json_search"]
	if !ok {
		panic("engine: the engine has no function json_search to make cancellable")
	}
	fns = append(fns, sql.FunctionN{Name: "json_search", Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
		e, err := search.NewInstance(ctx, args)
		if s, ok := e.(*gmsjson.JSONSearch); ok && err == nil {
			return cancellableJSONSearch{s}, nil
		}
		return e, err
	}})
	return fns
}
