package compare

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Comparison corrects one expression, its children already corrected: a row equality becomes
// the AND of its pairs, each corrected as a comparison (rowComparison, rowcompare.go); a NOT,
// notEqualUnindexed (notequal.go); an IN list of text and numbers, mixedInList (mixedin.go);
// any other expression, correctedComparison.
func Comparison(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch e := e.(type) {
	case *expression.Not:
		return notEqualUnindexed(ctx, e)
	case *expression.Equals:
		if pairs, ok := rowPairs(e.Left(), e.Right()); ok {
			return rowComparison(ctx, pairs)
		}
	case *expression.InTuple:
		if out, ok, err := mixedInList(ctx, e); ok || err != nil {
			return out, transform.NewTree, err
		}
	}
	return correctedComparison(ctx, e)
}

// correctedComparison is one comparison corrected by exactComparison (exactcompare.go), then by
// otherCollationUnindexed (othercollation.go), then by inexactKeysUnindexed (convertedkeys.go).
func correctedComparison(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	out, same, err := exactComparison(ctx, e)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, same2, err := otherCollationUnindexed(ctx, out)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, same = inexactKeysUnindexed(ctx, out, same && same2)
	return out, same, nil
}
