package server

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Row comparisons. In SQL, `(a, b) = (c, d)` is `a = c AND b = d`: NULL when no pair differs
// and a pair holds a NULL. The engine compared the rows as whole values instead: `(NULL, 1) =
// (NULL, 1)` was true, `(1, 2) <> (1, NULL)` true, and `(1, NULL) = (1, 2)` failed with 1105
// "value not nil". correctComparisons, the analyzer rule that runs before the engine's
// (planwalk.go), writes each `=` of two rows of the same length as the AND of its pairs
// (rowComparison; `<>` is NOT of `=`), rows nested in rows too; the pairs are what an index
// lookup on the columns uses anyway. `<=>` and the ordering comparisons (`<`, ...) of rows are
// left as they are.

// rowComparison is the AND of pairs, the equalities rowPairs found, each compared exactly.
func rowComparison(ctx *sql.Context, pairs []sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	for i, p := range pairs {
		exact, _, err := exactComparison(ctx, p)
		if err != nil {
			return nil, transform.SameTree, err
		}
		pairs[i] = exact
	}
	return expression.JoinAnd(pairs...), transform.NewTree, nil
}

// rowPairs is the equalities of the columns of rows left and right, the columns of nested rows
// paired in turn; false when left and right are not rows of the same length.
func rowPairs(left, right sql.Expression) ([]sql.Expression, bool) {
	l, lok := left.(expression.Tuple)
	r, rok := right.(expression.Tuple)
	if !lok || !rok || len(l) != len(r) || len(l) < 2 {
		return nil, false
	}
	var pairs []sql.Expression
	for i := range l {
		if inner, ok := rowPairs(l[i], r[i]); ok {
			pairs = append(pairs, inner...)
			continue
		}
		pairs = append(pairs, expression.NewEquals(l[i], r[i]))
	}
	return pairs, true
}
