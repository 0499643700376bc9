// Package pointplan plans the commonest reads of an OLTP workload, SELECTs of one table whose
// WHERE clause pins an index to integer constants, without the engine's analysis.
//
// # Why
//
// The engine plans every statement from its syntax tree, prepared or not: binding, then some
// sixty analyzer rules, among them a costed choice of index built on statistics it derives
// each time. For `SELECT c FROM t WHERE id = ?` that analysis costs more than the read it
// plans. The statement's plan depends on its constants only through the lookup's key, so the
// rest of the plan can be learned once and reused.
//
// # The model
//
// A statement's bound plan (the engine's plan before analysis) has a shape: the table, its
// definition's version, the plain nodes above the WHERE clause with their expressions, and for
// each column of the WHERE clause its comparison (= or BETWEEN) and the type of its constants.
// Only plans of one stored table of this form have a shape:
//
//	plain nodes ← Filter(c1 = k1 AND c2 BETWEEN k2 AND k3 ...) ← table
//
// where every column of the WHERE clause and every constant in it is an integer, and the plain
// nodes are projections, sorts, DISTINCT and aggregations built only of columns, aliases and
// SUM, COUNT, MIN, MAX and AVG: expressions with no constant and no state, so that one plan
// serves every statement of the shape, concurrently. A shape is learned on its first
// statement: the engine analyzes that statement in full, and the plan it chose is kept as the
// shape's plan only if it is plain nodes over one index read through one range, with nothing
// left to filter, and if the plan this package builds for the same statement is identical to
// it. A shape whose plan is anything else is remembered as one to leave to the engine. A kept
// plan keeps its nodes' expressions, never the statement's table or context.
//
// A later statement of a learned shape is planned here: the learned plan, over the statement's
// own bound table, with the statement's constants converted to the index columns' types as the
// engine converts them. A constant the column's type cannot hold exactly goes to the engine,
// as does a BETWEEN whose bounds are reversed, and every statement while the session sets
// sql_select_limit. The engine's remaining rules pass over the finished plan without running
// (it is one opaque node: they would find nothing in it to change); the last rule unwraps it
// and tracks the process as the engine would.
//
// The engine still binds every statement, so privileges, name resolution and the
// transaction's view of the catalog are the engine's. A table's definition enters the shape
// through its version and a digest of its stored form, so a plan is never used for another
// definition of its table.
//
// One statement in VerifyEvery of each learned shape is planned both ways and compared; a
// difference is logged, and the shape goes back to the engine for good.
package pointplan
