package engine

import (
	"strings"

	"overloadsql/engine/compare"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Rewrite is what the corrections do to each statement the engine's parser returns, before the
// engine plans it: foldPreparedNames, compare.ExactDecimalLiterals and balanceSetOps (which also gives
// the columns of nested set operations distinct names, distinctSetOpColumns). The server's
// parser applies it to every parse of the engine: the handler's and the planner's, the body of a
// stored procedure on every CALL, the body of a trigger and the statements of events.
func Rewrite(stmt ast.Statement) ast.Statement {
	return balanceSetOps(compare.ExactDecimalLiterals(foldPreparedNames(stmt)))
}

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): PREPARE, EXECUTE and
// DEALLOCATE PREPARE names ignore case (the engine keeps them as written: 1243).
// Test: TestMySQLCompat/PreparedStatementNamesIgnoreCase fails without it.
//
// PreparedName is the name under which the engine keeps a prepared statement: the name in lower
// case, since MySQL's names of prepared statements are case-insensitive (PREPARE S ...; EXECUTE
// s), and the engine keeps them as written.
func PreparedName(name string) string { return strings.ToLower(name) }

// foldPreparedNames gives PREPARE, EXECUTE and DEALLOCATE PREPARE the name under which the
// engine keeps the statement.
func foldPreparedNames(stmt ast.Statement) ast.Statement {
	switch s := stmt.(type) {
	case *ast.Prepare:
		s.Name = PreparedName(s.Name)
	case *ast.Execute:
		s.Name = PreparedName(s.Name)
	case *ast.Deallocate:
		s.Name = PreparedName(s.Name)
	case *ast.DDL:
		if body := compare.RoutineBody(s); body != nil {
			_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
				if inner, ok := node.(ast.Statement); ok && node != body {
					foldPreparedNames(inner)
				}
				return true, nil
			}, body)
		}
	}
	return stmt
}
