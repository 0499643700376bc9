// Package engine corrects and bounds the SQL engine overloadsql is built on (go-mysql-server):
// analyzer rules, wrapped engine rules, rewrites of the parsed statement and replaced functions.
//
// Each one is of one of two kinds:
//
//   - a correction: the engine gets a result wrong against MySQL 8 (rows, an error, a value),
//     and the correction makes it MySQL's;
//   - a bound: a limit on the work or the size a client can ask for (planning time, memory,
//     a loop deaf to KILL QUERY), as MySQL's limits where it has one (1017 columns, 61 tables
//     in a join, 64 indexes, max_allowed_packet), else one of overloadsql's.
//
// Each starts with the same three lines: its kind and the engine version it was checked
// against with its rule, then the end-to-end test (in integration/) that fails without it:
//
//	// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): <rule>.
//	// Test: <TestName> fails without it.
//
// docs/engine-corrections.md lists them all, with what MySQL and the engine do and the upstream
// issue, for the next upgrade of the engine to check each again.
//
// # Where they are
//
// The analyzer rules are in one table, ruleTable (rules.go): each with its id (after the
// engine's own ids), its kind and its stage, before the engine's rules or once after all of
// them, in the order they run. The engine keeps its rule lists process-wide, so [AddRules]
// adds them once per process, before the first engine is built. The engine's own rules that are
// wrapped are in the second table, engineRules, which [WrapEngineRules] applies to an analyzer.
//
// The rules that correct comparisons and joins share two walks of the plan (planwalk.go):
// correctComparisons before the engine's rules, correctExecution after them. The corrections of
// single comparisons that correctComparisons runs (exact numbers, text read as numbers, other
// collations, inexact index keys, row equalities, NOT IN with NULLs) are in package
// engine/compare, which imports nothing of this package; the IN lists with a spatial left side
// stay here (geometry.go).
//
// Outside the analyzer: [Rewrite] corrects each statement the engine's parser returns (the
// server's parser, the catalog's override, calls it); [CheckedFunctions] are the geometry
// functions checking their input and JSON_SEARCH stopping at KILL, which the server adds to the
// function provider of package engine/functions (the functions bounded by max_allowed_packet);
// engineprocedures.go removes the engine's test procedures.
//
// # What the server gives
//
// The package imports no package of the server. What a rule needs of the server is given at
// registration, in [Hooks]: the server's rule for RENAME TABLE, which runs at its place in the
// table, and the memory guard's request to stop a statement, which the long loops check beside
// the statement's cancellation. [InspectPlan] is the walk of a plan that also enters what the
// engine's walks do not (INSERT ... SELECT, subqueries, PREPARE), for the rules and the server.
// Package engine/functions imports neither this package nor the server: the server gives its
// bounded functions the same stop request, as a parameter of functions.NewBoundedProvider.
package engine
