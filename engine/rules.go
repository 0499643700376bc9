package engine

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

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
	collatedInID      analyzer.RuleId = 10_026
	virtualChecksID   analyzer.RuleId = 10_027
)

// kind is why a rule exists (see doc.go).
type kind int

const (
	// correction: the engine gets a result wrong against MySQL 8.
	correction kind = iota + 1
	// bound: a limit on the work or the size a client can ask for.
	bound
)

// stage is where in the engine's analysis a rule runs.
type stage int

const (
	// beforeDefault: before the engine's rules (analyzer.AlwaysBeforeDefault), which choose
	// index lookups from the comparisons, turn NOT IN into anti joins, and take their time over
	// each added column.
	beforeDefault stage = iota + 1
	// onceAfterAll: after every engine rule (analyzer.OnceAfterAll).
	onceAfterAll
)

// rule is one of overloadsql's analyzer rules.
type rule struct {
	id    analyzer.RuleId
	kind  kind
	stage stage
	apply ruleFunc
}

// ruleTable is the table of overloadsql's analyzer rules, in the order they run within each stage;
// renames is the server's rule for RENAME TABLE (Hooks.AtomicRenames), left out when nil.
func ruleTable(renames ruleFunc) []rule {
	table := []rule{
		{rowPairsID, bound, beforeDefault, boundRowComparisons}, // before the rows become pairs
		{comparisonsID, correction, beforeDefault, correctComparisons},
		{longInListsID, bound, beforeDefault, unindexedInLists},
		{tableWidthID, bound, beforeDefault, boundTableWidth},
		{indexCountID, bound, beforeDefault, boundIndexes},
		{tooManyTablesID, bound, beforeDefault, refuseTooManyTables},
		{virtualShiftsID, correction, beforeDefault, refuseVirtualColumnShifts},
		{derivedColumnsID, correction, beforeDefault, refuseDuplicateDerivedColumns},
		{virtualChecksID, correction, beforeDefault, virtualTableChecks},
		// First after all: it rebuilds every node that holds a LIKE, which would drop the
		// wrappers the later rules put around some nodes (textVariables).
		{cancellableLikeID, bound, onceAfterAll, cancellableLikes},
		{globalReadRuleID, correction, onceAfterAll, readGlobalOnlyVariablesGlobally},
		{showVariablesID, correction, onceAfterAll, showVariablesAsText},
		{atomicRenamesID, correction, onceAfterAll, renames},
		{executionID, correction, onceAfterAll, correctExecution},
		{geometryWritesID, bound, onceAfterAll, checkedGeometryWrites},
		{collatedInID, correction, onceAfterAll, collatedInLists},
	}
	return slices.DeleteFunc(table, func(r rule) bool { return r.apply == nil })
}

// engineRule is one of the engine's own rules, found by its name in every batch of an analyzer,
// whose function overloadsql wraps (WrapEngineRules).
type engineRule struct {
	name string
	kind kind
	wrap func(ruleFunc) ruleFunc
}

// engineRules is the table of the engine's rules that overloadsql wraps.
var engineRules = []engineRule{
	{"validateReadOnlyDatabase", correction, allowViewsOverReadOnlyTables},
	{"unnestInSubqueries", bound, limitUnnesting},
	{"unnestExistsSubqueries", bound, limitUnnesting},
	{"validateAlterTable", correction, loadVirtualTableChecks},
	{"resolveDropConstraint", correction, dropChecksOfVirtualTables},
	{"validateDropConstraint", correction, dropChecksOfVirtualTables},
}

// Hooks are what the rules need of the server that runs them.
type Hooks struct {
	// AtomicRenames is the server's rule that checks the renames of RENAME TABLE and ALTER
	// TABLE before anything changes; it runs at its place in the table (atomicRenamesID).
	AtomicRenames analyzer.RuleFunc
	// Stopped is the error of the statement running on ctx when the server asked it to stop (its
	// memory guard), nil otherwise. The rules' long loops (LIKE, JSON_SEARCH) check it beside
	// ctx's cancellation; the bounded functions (engine/functions) are given it by the server.
	Stopped func(ctx context.Context) error
}

// stopped is Hooks.Stopped, process-wide as the rules are; it answers nil until AddRules.
var stopped = func(context.Context) error { return nil }

// AddRules adds overloadsql's rules to the engine's rules that run on every statement. The
// engine keeps them in process-wide lists (its short paths for single-table INSERT and UPDATE
// use those lists directly), so they are added there, once per process, before an engine is
// built; servers started at the same time (tests) add them once between them, with the hooks of
// the first.
func AddRules(h Hooks) { rulesAdded.Do(func() { addRules(h) }) }

var rulesAdded sync.Once

func addRules(h Hooks) {
	if h.Stopped != nil {
		stopped = h.Stopped
	}
	for _, r := range ruleTable(ruleFunc(h.AtomicRenames)) {
		added := analyzer.Rule{Id: r.id, Apply: r.apply}
		switch r.stage {
		case beforeDefault:
			analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault, added)
		case onceAfterAll:
			analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, added)
		}
	}
}

// WrapEngineRules wraps the engine's rules of engineRules in every batch of a. The engine shares
// its rule lists between analyzers: they are replaced, never modified.
func WrapEngineRules(a *analyzer.Analyzer) {
	for _, r := range engineRules {
		wrapEngineRule(a, r.name, r.wrap)
	}
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

// Correction (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): CREATE VIEW in a
// writable database may read the read-only `system` tables (the engine refuses: read-only database).
// Test: TestErrorNumbersAndDiagnostics fails without it. Other statements keep the engine's check.
//
// allowViewsOverReadOnlyTables wraps the engine's validateReadOnlyDatabase.
func allowViewsOverReadOnlyTables(check ruleFunc) ruleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		view, ok := n.(*plan.CreateView)
		if !ok {
			return check(ctx, a, n, scope, sel, qFlags)
		}
		if ro, ok := view.Database().(sql.ReadOnlyDatabase); ok && ro.IsReadOnly() {
			return nil, transform.SameTree, analyzererrors.ErrReadOnlyDatabase.New(ro.Name())
		}
		return n, transform.SameTree, nil
	}
}

// wrapEngineRule replaces the function of the engine's rule called name, in every batch of a,
// by wrap of it. The engine shares its rule lists between analyzers: they are replaced, never
// modified.
func wrapEngineRule(a *analyzer.Analyzer, name string, wrap func(ruleFunc) ruleFunc) {
	for _, batch := range a.Batches {
		for i, r := range batch.Rules {
			if r.Id.String() != name {
				continue
			}
			wrapped := slices.Clone(batch.Rules)
			wrapped[i].Apply = wrap(r.Apply)
			batch.Rules = wrapped
			break
		}
	}
}
