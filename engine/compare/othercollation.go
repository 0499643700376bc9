package compare

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): a text column compared
// with constants in another collation (`b = 'A' COLLATE utf8mb4_bin`, `b = BINARY 'a'`,
// `b = x'41'` on a utf8mb4_general_ci b) compares in that collation through an index on the
// column as without one. (The engine's planner takes every comparison of text with text for one
// an index lookup answers exactly, and under the storage's precise lookups drops it from the
// plan, while the lookup's ranges are in the column's collation: it returns 'a' for 'A'.)
// Test: TestCollatedIn/OtherCollationsAreNotLookedUp fails without it.
//
// otherCollationUnindexed, part of the analyzer rule correctComparisons (engine/planwalk.go) that
// runs before the engine's, wraps such a column in unindexed (exactcompare.go), so that the
// engine evaluates the comparison on every row it reads. MySQL does not look such a comparison
// up in the column's index either. A comparison in the column's own collation (a literal
// without COLLATE, whose collation is weaker) keeps its index.
func otherCollationUnindexed(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	sides, ok := comparisonSides(e)
	if !ok {
		return e, transform.SameTree, nil
	}
	column := -1
	for i, side := range sides {
		if _, ok := side.(*expression.GetField); ok && column < 0 {
			column = i
			continue
		}
		if holdsColumn(ctx, side) {
			return e, transform.SameTree, nil // a join's condition, or a column in an expression
		}
	}
	if column < 0 {
		return e, transform.SameTree, nil
	}
	typ, ok := sides[column].Type(ctx).(sql.StringType)
	if !ok || !types.IsTextOnly(typ) || typ.Collation() == sql.Collation_binary {
		return e, transform.SameTree, nil
	}
	coll, coercibility := sql.GetCoercibility(ctx, sides[column])
	other := false
	for i, side := range sides {
		if i == column {
			continue
		}
		if st, ok := side.Type(ctx).(sql.StringType); ok && (types.IsBinaryType(st) || st.Collation() == sql.Collation_binary) {
			other = true // the engine compares text with a binary string as bytes
		}
		c, k := sql.GetCoercibility(ctx, side)
		coll, coercibility = sql.ResolveCoercibility(coll, coercibility, c, k)
	}
	if !other && coll == typ.Collation() {
		return e, transform.SameTree, nil
	}
	sides[column] = unindexed{column: sides[column]}
	out, err := withSides(ctx, e, sides)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return out, transform.NewTree, nil
}

// holdsColumn says whether e reads a column.
func holdsColumn(ctx *sql.Context, e sql.Expression) bool {
	return transform.InspectExpr(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
		_, ok := e.(*expression.GetField)
		return ok
	})
}
