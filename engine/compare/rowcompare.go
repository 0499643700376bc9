package compare

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `(a, b) = (c, d)` is `a = c
// AND b = d`: NULL when a pair holds NULL and none differs.
// Test: TestComparisons/RowComparisonsWithNulls fails without it; upstream dolthub/dolt#11024.
//
// correctComparisons writes each `=` of two rows of the same length as the AND of its pairs
// (rowComparison; `<>` is NOT of `=`); `<=>` and the ordering comparisons are left as they are.

// rowComparison is the AND of pairs, the equalities rowPairs found, each corrected as a
// comparison (correctedComparison).
func rowComparison(ctx *sql.Context, pairs []sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	for i, p := range pairs {
		exact, _, err := correctedComparison(ctx, p)
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
