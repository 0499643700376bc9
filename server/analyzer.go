package server

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"overloadsql/server/data"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/analyzer/analyzererrors"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Ids of overloadsql's analyzer rules, after the engine's own rule ids.
const (
	globalReadRuleID  analyzer.RuleId = 10_002
	showVariablesID   analyzer.RuleId = 10_004
	atomicRenamesID   analyzer.RuleId = 10_006
	comparisonsID     analyzer.RuleId = 10_007
	tableWidthID      analyzer.RuleId = 10_009
	executionID       analyzer.RuleId = 10_010
	tooManyTablesID   analyzer.RuleId = 10_015
	virtualShiftsID   analyzer.RuleId = 10_016
	geometryWritesID  analyzer.RuleId = 10_020
	derivedColumnsID  analyzer.RuleId = 10_030
	cancellableLikeID analyzer.RuleId = 10_022
	indexCountID      analyzer.RuleId = 10_023
	longInListsID     analyzer.RuleId = 10_024
	rowPairsID        analyzer.RuleId = 10_025
)

// addAnalyzerRules adds overloadsql's rules to the engine's rules that run last on every
// statement. The engine keeps them in a process-wide list (its short paths for single-table
// INSERT and UPDATE use that list directly), so they are added there, once per process, before
// an engine is built; servers started at the same time (tests) add them once between them.
func addAnalyzerRules() { analyzerRulesAdded.Do(appendAnalyzerRules) }

var analyzerRulesAdded sync.Once

func appendAnalyzerRules() {
	// Before the engine's rules, which choose index lookups from the comparisons, turn NOT IN
	// into anti joins, and take their time over each added column.
	analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault,
		analyzer.Rule{Id: rowPairsID, Apply: boundRowComparisons}, // before the rows become pairs
		analyzer.Rule{Id: comparisonsID, Apply: correctComparisons},
		analyzer.Rule{Id: longInListsID, Apply: unindexedInLists},
		analyzer.Rule{Id: tableWidthID, Apply: boundTableWidth},
		analyzer.Rule{Id: indexCountID, Apply: boundIndexes},
		analyzer.Rule{Id: tooManyTablesID, Apply: refuseTooManyTables},
		analyzer.Rule{Id: virtualShiftsID, Apply: refuseVirtualColumnShifts},
		analyzer.Rule{Id: derivedColumnsID, Apply: refuseDuplicateDerivedColumns})
	analyzer.OnceAfterAll = append(analyzer.OnceAfterAll,
		// First: it rebuilds every node that holds a LIKE, which would drop the wrappers the
		// later rules put around some nodes (textVariables).
		analyzer.Rule{Id: cancellableLikeID, Apply: cancellableLikes},
		analyzer.Rule{Id: globalReadRuleID, Apply: readGlobalOnlyVariablesGlobally},
		analyzer.Rule{Id: showVariablesID, Apply: showVariablesAsText},
		analyzer.Rule{Id: atomicRenamesID, Apply: data.AtomicRenames},
		analyzer.Rule{Id: executionID, Apply: correctExecution},
		analyzer.Rule{Id: geometryWritesID, Apply: checkedGeometryWrites})
}

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): SHOW VARIABLES prints
// floating-point values as numbers (the engine writes a negative float wrong: -1 as "1" or "s").
// Test: TestGlobalOnlyVariablesReadTheGlobal fails without it.
func showVariablesAsText(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if sv, ok := n.(*plan.ShowVariables); ok {
		return textVariables{sv}, transform.NewTree, nil
	}
	return n, transform.SameTree, nil
}

// textVariables is SHOW VARIABLES with its float values formatted before the engine sees them.
type textVariables struct {
	*plan.ShowVariables
}

var _ sql.ExecBuilderNode = textVariables{}

// BuildRowIter runs the engine's SHOW VARIABLES and formats its float values.
func (t textVariables) BuildRowIter(ctx *sql.Context, b sql.NodeExecBuilder, row sql.Row) (sql.RowIter, error) {
	iter, err := b.Build(ctx, t.ShowVariables, row)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	for {
		r, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			iter.Close(ctx)
			return nil, err
		}
		for i, v := range r {
			if f, ok := v.(float64); ok {
				r[i] = strconv.FormatFloat(f, 'f', -1, 64)
			}
		}
		rows = append(rows, r)
	}
	if err := iter.Close(ctx); err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): `@@name` of a
// global-only variable reads the global value (the engine reads the session's copy from its start).
// Test: TestGlobalOnlyVariablesReadTheGlobal fails without it.
//
// SET statements are left alone: their targets keep the engine's scope checks (1229), and
// statements without "@@" are not walked.
func readGlobalOnlyVariablesGlobally(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !strings.Contains(ctx.Query(), "@@") {
		return n, transform.SameTree, nil
	}
	if _, ok := n.(*plan.Set); ok {
		return n, transform.SameTree, nil
	}
	return transform.NodeExprs(ctx, n, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		v, ok := e.(*expression.SystemVar)
		if !ok || v.SpecifiedScope != "" {
			return e, transform.SameTree, nil
		}
		if scope, ok := v.Scope.(*sql.MysqlScope); !ok || scope.Type != sql.SystemVariableScope_Session {
			return e, transform.SameTree, nil
		}
		def, _, ok := sql.SystemVariables.GetGlobal(v.Name)
		if !ok {
			return e, transform.SameTree, nil
		}
		if mv, ok := def.(*sql.MysqlSystemVariable); !ok || mv.Scope == nil || !mv.Scope.IsGlobalOnly() {
			return e, transform.SameTree, nil
		}
		global := *v
		global.Scope = sql.GetMysqlScope(sql.SystemVariableScope_Global)
		return &global, transform.NewTree, nil
	})
}

// readOnlyRuleName is the engine's rule that refuses statements writing to a read-only database.
const readOnlyRuleName = "validateReadOnlyDatabase"

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): CREATE VIEW in a
// writable database may read the read-only `system` tables (the engine refuses: read-only database).
// Test: TestErrorNumbersAndDiagnostics fails without it. Other statements keep the engine's check.
func allowViewsOverReadOnlyTables(a *analyzer.Analyzer) {
	for _, batch := range a.Batches {
		for i, rule := range batch.Rules {
			if rule.Id.String() != readOnlyRuleName {
				continue
			}
			check := rule.Apply
			// The engine shares its rule lists between analyzers: replace, never modify, them.
			rules := slices.Clone(batch.Rules)
			rules[i].Apply = func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
				view, ok := n.(*plan.CreateView)
				if !ok {
					return check(ctx, a, n, scope, sel, qFlags)
				}
				if ro, ok := view.Database().(sql.ReadOnlyDatabase); ok && ro.IsReadOnly() {
					return nil, transform.SameTree, analyzererrors.ErrReadOnlyDatabase.New(ro.Name())
				}
				return n, transform.SameTree, nil
			}
			batch.Rules = rules
			break
		}
	}
}

// wrapEngineRule replaces the function of the engine's rule called name, in every batch of a,
// by wrap of it. The engine shares its rule lists between analyzers: they are replaced, never
// modified.
func wrapEngineRule(a *analyzer.Analyzer, name string, wrap func(ruleFunc) ruleFunc) {
	for _, batch := range a.Batches {
		for i, rule := range batch.Rules {
			if rule.Id.String() != name {
				continue
			}
			rules := slices.Clone(batch.Rules)
			rules[i].Apply = wrap(rule.Apply)
			batch.Rules = rules
			break
		}
	}
}
