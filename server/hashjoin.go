package server

import (
	"fmt"
	"hash/maphash"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Hash join keys. The engine joins on an equality without an index (`x.d = y.d`, `EXISTS (...
// WHERE y.d = x.d)`, `IN (SELECT ...)`) by a hash join: it reads the inner table once, the first
// time through keeping every row (the join condition decides), and files its rows in a Go map by
// the value of their key, which later rows of the outer table look up. It uses the values
// themselves as the map's keys, so values that are equal in SQL but not to Go's `==` miss each
// other: a DECIMAL is a pointer to its digits, so equal decimals never met (a self join on a
// DECIMAL column found the pairs of the first row only), nor did strings equal in their
// collation ('a' and 'A' under utf8mb4_0900_ai_ci); a JSON key panicked.
//
// hashJoinKeys, part of the analyzer rule correctExecution (planwalk.go) that runs after the
// engine's, has both sides of each hash lookup file and find rows by a hash of their value
// converted to the probing side's type (as the engine converts them), written the way the engine's
// GROUP BY writes it: strings by their collation's weights, other values by their text (a
// DECIMAL's has no trailing zeros). Values equal in SQL get one key; a collision only lets the
// join condition, still evaluated on every pair found, reject a row.
func hashJoinKeys(ctx *sql.Context, lookup *plan.HashLookup) (sql.Node, transform.TreeIdentity, error) {
	if _, done := lookup.LeftProbeKey.(hashKey); done {
		return lookup, transform.SameTree, nil
	}
	probe := lookup.LeftProbeKey.Type(ctx)
	keyed, err := lookup.WithExpressions(ctx, hashKey{lookup.RightEntryKey, probe}, hashKey{lookup.LeftProbeKey, probe})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return keyed, transform.NewTree, nil
}

// hashKeySeed is the seed of every hash join key, so that both sides of a join hash alike.
var hashKeySeed = maphash.MakeSeed()

// hashKey is a hash join's key: the hash of key's value converted to probe, the type of the
// probing side; NULL when the value is.
type hashKey struct {
	key   sql.Expression
	probe sql.Type
}

func (k hashKey) Resolved() bool                   { return k.key.Resolved() }
func (k hashKey) String() string                   { return k.key.String() }
func (k hashKey) Type(ctx *sql.Context) sql.Type   { return types.Uint64 }
func (k hashKey) IsNullable(ctx *sql.Context) bool { return k.key.IsNullable(ctx) }
func (k hashKey) Children() []sql.Expression       { return []sql.Expression{k.key} }

func (k hashKey) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return hashKey{key: children[0], probe: k.probe}, nil
}

func (k hashKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.key.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	v, _, err = k.probe.Convert(ctx, v)
	if types.ErrValueNotNil.Is(err) { // the probing side is a NULL literal, as the engine allows
		return nil, nil
	}
	if err != nil || v == nil {
		return nil, err
	}
	var h maphash.Hash
	h.SetSeed(hashKeySeed)
	if tuple, ok := v.([]any); ok {
		elems, _ := k.probe.(types.TupleType)
		for i, x := range tuple {
			h.WriteByte(0) // separates the elements
			if err := writeKeyValue(ctx, &h, elems[i], x); err != nil {
				return nil, err
			}
		}
	} else if err := writeKeyValue(ctx, &h, k.probe, v); err != nil {
		return nil, err
	}
	return h.Sum64(), nil
}

// writeKeyValue writes v, of type t, to h: the same bytes for values equal in SQL.
func writeKeyValue(ctx *sql.Context, h *maphash.Hash, t sql.Type, v any) error {
	if st, ok := t.(sql.StringType); ok && v != nil {
		s, err := types.ConvertToString(ctx, v, st, nil)
		if err != nil {
			return fmt.Errorf("hash join key: %w", err)
		}
		return st.Collation().WriteWeightString(h, s)
	}
	if f, ok := v.(float64); ok && f == 0 { // -0 = 0
		v = float64(0)
	}
	_, err := fmt.Fprintf(h, "%v", v)
	return err
}
