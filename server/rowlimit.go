package server

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Long row comparisons. The server writes `(a, b, ...) = (c, d, ...)` as the AND of its pairs
// (rowcompare.go), and the engine's planning of such a chain grows with the square of its
// length, deaf to KILL QUERY and to the client leaving: a row of 40 000 columns (a 160 KB
// statement, no operators for the expression limits to count) planned for about two minutes,
// 4000 for 1.1 s. boundRowComparisons, an analyzer rule that runs before that rewrite, refuses a
// statement whose row equalities hold more than maxRowPairs pairs in all, with the expression
// limits' error: the same budget as their 2000 operators, a pair being an equality and an AND.

const maxRowPairs = 1000

func boundRowComparisons(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	pairs := 0
	inspectPlan(ctx, n, func(sql.Node) bool { return true }, func(e sql.Expression) bool {
		if eq, ok := e.(*expression.Equals); ok {
			pairs += rowPairCount(eq.Left(), eq.Right())
		}
		return pairs <= maxRowPairs
	})
	if pairs > maxRowPairs {
		return nil, transform.SameTree, mysqlerr.New(mysql.ERUnknownError,
			"expression too complex: row comparisons of more than %d pairs of values in one statement; "+
				"each pair is planned as an equality, and the engine's planning of them grows faster than their number and cannot be stopped. "+
				"Compare fewer columns at once", maxRowPairs)
	}
	return n, transform.SameTree, nil
}

// rowPairCount is how many equalities the rows left and right, of the same length, make (nested
// rows paired in turn); 0 when they are not such rows.
func rowPairCount(left, right sql.Expression) int {
	l, lok := left.(expression.Tuple)
	r, rok := right.(expression.Tuple)
	if !lok || !rok || len(l) != len(r) || len(l) < 2 {
		return 0
	}
	count := 0
	for i := range l {
		if inner := rowPairCount(l[i], r[i]); inner > 0 {
			count += inner
		} else {
			count++
		}
	}
	return count
}
