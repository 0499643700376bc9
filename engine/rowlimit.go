package engine

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): row equalities of more than
// maxRowPairs pairs in a statement fail with 1105 (quadratic planning).
// Test: TestLongRowComparisonsAreRefused fails without it.

const maxRowPairs = 1000

func boundRowComparisons(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	pairs := 0
	InspectPlan(ctx, n, func(sql.Node) bool { return true }, func(e sql.Expression) bool {
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
