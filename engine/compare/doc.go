// Package compare corrects single comparison expressions so that they compare as MySQL 8
// compares (go-mysql-server rounds, clamps, reads text as a number, or looks a key up in an
// index that does not answer the comparison exactly).
//
// # The model
//
// Each correction takes one expression of a plan, its children already corrected, and returns
// it or a rewrite of it that gives MySQL's result; none looks beyond that expression. Package
// engine's analyzer rule correctComparisons (engine/planwalk.go) runs them, through
// [Comparison], on every expression of a plan, bottom-up, before the engine's rules choose
// index lookups from the comparisons and turn NOT IN into anti joins, and [NullSafeNotIn] on
// each filter. [Comparison] dispatches:
//
//   - a row equality `(a, b) = (c, d)`: the AND of its pairs, each corrected (rowcompare.go);
//   - a NOT: `x <> v` on a fractional column kept off its index (notequal.go);
//   - an IN list of text and numbers: the OR of its equalities, each corrected (mixedin.go);
//   - any other expression, correctedComparison: exactComparison (exactcompare.go: text read
//     as a number, DOUBLE where MySQL compares as DOUBLE, exact DECIMALs where the engine would
//     round or clamp), then otherCollationUnindexed (othercollation.go), then
//     inexactKeysUnindexed (convertedkeys.go: a constant or a join key the column's type does
//     not hold exactly).
//
// A comparison the engine would answer wrong through an index keeps its rows right by reading
// the table: the column is wrapped in unindexed (exactcompare.go), which evaluates as the column
// and which the engine's planner does not take for a column to look up. The comparisons a
// correction does not concern, the common case, are returned as they were (transform.SameTree).
//
// [ExactDecimalLiterals] is the statement rewrite half of the exact-DECIMAL correction: it
// types each decimal literal of a comparison in the parsed statement, before the engine's
// planner converts it to the column's type; package engine's Rewrite applies it.
//
// Each correction starts with its kind, the engine version it was checked against, and the
// end-to-end test (in integration/) that fails without it; docs/engine-corrections.md lists
// them with the rest of package engine's.
//
// # Imports
//
// The package imports the engine (go-mysql-server, vitess) and nothing of overloadsql: package
// engine imports it, never the reverse.
package compare
