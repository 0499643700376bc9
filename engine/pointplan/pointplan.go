package pointplan

import (
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Ids of the planner's two analyzer rules, after overloadsql's other rule ids (package engine).
const (
	planRuleID   analyzer.RuleId = 10_040
	unwrapRuleID analyzer.RuleId = 10_041
)

// maxShapes bounds the shapes a planner remembers; past it, it forgets them all and learns again.
const maxShapes = 4096

// A Definition is a table that names its definition: two tables with the same Version have the
// same columns, indexes and options. Only such tables are planned here.
type Definition interface {
	// DefinitionVersion is false for a definition that is changing (a DDL statement's).
	DefinitionVersion() (Version, bool)
}

// Version names one definition of one table.
type Version struct {
	Database, Table uint32
	// Version grows with each change of the table's definition.
	Version uint64
	// Digest is a hash of the stored definition, for versions of a change that was rolled back.
	Digest uint64
}

// Options configure a Planner.
type Options struct {
	// VerifyEvery: one statement in VerifyEvery of a learned shape is also analyzed by the
	// engine and the two plans compared; 1 compares every statement, 0 none.
	VerifyEvery uint64
	// Logger receives a plan that differed from the engine's.
	Logger *slog.Logger
}

// Planner is the analyzer extension; Install adds one to an analyzer.
type Planner struct {
	opts         Options
	trackProcess analyzer.RuleFunc

	mu     sync.RWMutex // a leaf lock
	shapes map[string]*shape

	planned, learned, differed atomic.Uint64
}

// shape is what the planner knows of one shape: plan is nil for a shape left to the engine.
type shape struct {
	plan *learnedPlan
	uses atomic.Uint64
}

// learnedPlan is the engine's plan of a shape, less the statement's constants.
type learnedPlan struct {
	index       string     // the index's ID
	columns     []string   // the index columns the range covers, lower-case "table.column"
	point       bool       // the lookup's IsPointLookup
	reverse     bool       // the lookup's IsReverse: it reads the range in descending order
	projections []string   // the table's projected columns; nil for none
	above       []sql.Node // the engine's plan above the lookup, top first
	// aliased says, for each node of above, whether its expressions hold an alias (which keeps
	// the context it is made in, and so is made anew for each statement).
	aliased []bool
	flags   []int // the query flags the engine's analysis set
}

// Install adds a planner to a: its planning rule runs first, its unwrapping rule last, and
// every rule between them passes over a finished plan. The engine shares its rule lists
// between analyzers: they are replaced, never modified.
func Install(a *analyzer.Analyzer, opts Options) *Planner {
	p := &Planner{opts: opts, shapes: map[string]*shape{}}
	for _, r := range analyzer.OnceAfterAll {
		if r.Id == analyzer.TrackProcessId {
			p.trackProcess = r.Apply
		}
	}
	for _, b := range a.Batches {
		rules := make([]analyzer.Rule, len(b.Rules))
		for i, r := range b.Rules {
			rules[i] = analyzer.Rule{Id: r.Id, Apply: passOver(r.Apply)}
		}
		b.Rules = rules
	}
	first, last := a.Batches[0], a.Batches[len(a.Batches)-1]
	first.Rules = append([]analyzer.Rule{{Id: planRuleID, Apply: p.plan}}, first.Rules...)
	last.Rules = append(last.Rules, analyzer.Rule{Id: unwrapRuleID, Apply: p.unwrap})
	return p
}

// passOver is rule, except that it returns a finished plan as it is: the plan is complete,
// and it shows the rule neither children nor expressions to work on.
func passOver(rule analyzer.RuleFunc) analyzer.RuleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		if _, ok := n.(*finished); ok {
			return n, transform.SameTree, nil
		}
		return rule(ctx, a, n, scope, sel, qFlags)
	}
}

// Stats are a planner's counts: statements planned here, shapes learned, and plans that
// differed from the engine's when verified.
func (p *Planner) Stats() (planned, learned, differed uint64) {
	if p == nil {
		return 0, 0, 0
	}
	return p.planned.Load(), p.learned.Load(), p.differed.Load()
}

// finished is a plan made before the engine's rules run: they see a leaf that is resolved
// and has no expressions, and leave it alone. tracked says the engine's analysis made it,
// process tracking included.
type finished struct {
	plan    sql.Node
	tracked bool
}

var _ sql.Node = (*finished)(nil)

func (f *finished) Resolved() bool                     { return true }
func (f *finished) IsReadOnly() bool                   { return true }
func (f *finished) String() string                     { return f.plan.String() }
func (f *finished) Schema(ctx *sql.Context) sql.Schema { return f.plan.Schema(ctx) }
func (f *finished) Children() []sql.Node               { return nil }
func (f *finished) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

// plan is the first rule: it plans a statement of a learned shape, or learns a new shape.
func (p *Planner) plan(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	st, ok := readStatement(ctx, n)
	if !ok || selectLimitSet(ctx) {
		return n, transform.SameTree, nil
	}
	key := st.key(ctx)
	p.mu.RLock()
	sh := p.shapes[key]
	p.mu.RUnlock()
	if sh != nil && sh.plan == nil {
		return n, transform.SameTree, nil
	}
	if sh != nil {
		return p.planLearned(ctx, a, n, scope, sel, qFlags, key, st, sh)
	}
	// A new shape: the engine plans the statement in full, and the planner learns from it.
	var before sql.QueryFlags
	if qFlags != nil {
		before.Flags = qFlags.Flags.Copy()
	}
	full, err := p.analyze(ctx, a, n, scope, sel, qFlags)
	if err != nil {
		return n, transform.SameTree, err
	}
	learned, ita := readPlan(ctx, st, full)
	if learned != nil {
		if qFlags != nil {
			qFlags.Flags.ForEach(func(f int) {
				if !before.Flags.Contains(f) {
					learned.flags = append(learned.flags, f)
				}
			})
		}
		built, ok, err := st.build(ctx, learned)
		if err != nil || !ok || !samePlan(ctx, built, full, ita) {
			learned = nil
		}
	}
	p.remember(key, &shape{plan: learned})
	if learned != nil {
		p.learned.Add(1)
	}
	return &finished{plan: full, tracked: true}, transform.NewTree, nil
}

// planLearned plans st from its shape's learned plan; one statement in VerifyEvery is also
// planned by the engine, and a difference sends the shape back to the engine for good.
func (p *Planner) planLearned(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags, key string, st *statement, sh *shape) (sql.Node, transform.TreeIdentity, error) {
	built, ok, err := st.build(ctx, sh.plan)
	if err != nil || !ok {
		return n, transform.SameTree, err
	}
	if p.opts.VerifyEvery != 0 && sh.uses.Add(1)%p.opts.VerifyEvery == 0 {
		full, err := p.analyze(ctx, a, n, scope, sel, qFlags)
		if err != nil {
			return n, transform.SameTree, err
		}
		if _, ita := readPlan(ctx, st, full); ita == nil || !samePlan(ctx, built, full, ita) {
			p.differed.Add(1)
			if p.opts.Logger != nil {
				p.opts.Logger.Error("a learned point plan differed from the engine's plan; the engine plans its shape from now on",
					"shape", key, "learned", sql.DebugString(ctx, built), "engine", sql.DebugString(ctx, full))
			}
			p.remember(key, &shape{})
			return &finished{plan: full, tracked: true}, transform.NewTree, nil
		}
	}
	for _, f := range sh.plan.flags {
		qFlags.Set(f)
	}
	p.planned.Add(1)
	return &finished{plan: built}, transform.NewTree, nil
}

// analyze runs every batch of the engine's analysis on n, as the analyzer would, without the
// planner's own rules.
func (p *Planner) analyze(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, error) {
	engineOnly := func(id analyzer.RuleId) bool { return id != planRuleID && id != unwrapRuleID && sel(id) }
	for _, b := range a.Batches {
		var err error
		if n, _, err = b.Eval(ctx, a, n, scope, engineOnly, qFlags); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (p *Planner) remember(key string, sh *shape) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.shapes) >= maxShapes {
		clear(p.shapes)
	}
	p.shapes[key] = sh
}

// unwrap is the last rule: it returns the plan inside a finished node, tracking its process
// where the engine's analysis did not.
func (p *Planner) unwrap(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	f, ok := n.(*finished)
	if !ok {
		return n, transform.SameTree, nil
	}
	if f.tracked || p.trackProcess == nil || !sel(analyzer.TrackProcessId) {
		return f.plan, transform.NewTree, nil
	}
	tracked, _, err := p.trackProcess(ctx, a, f.plan, scope, sel, qFlags)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return tracked, transform.NewTree, nil
}

// selectLimitSet says whether the session limits SELECTs (sql_select_limit other than its
// default), which the engine's analysis adds to the plan.
func selectLimitSet(ctx *sql.Context) bool {
	isDefault, _ := sql.HasDefaultValue(ctx, ctx.Session, "sql_select_limit")
	return !isDefault
}

// comparison is one condition of the WHERE clause: column = lo, or column BETWEEN lo AND hi.
type comparison struct {
	column  string // lower-case "table.column"
	between bool
	lo, hi  *expression.Literal
}

// statement is a bound plan of the planner's form.
type statement struct {
	above    []sql.Node // the nodes above the Filter, top first
	table    *plan.ResolvedTable
	version  Version
	where    []comparison
	hasIndex sql.IndexAddressableTable
}

// readStatement reads a bound plan of the form above ← Filter(comparisons) ← table, where
// above is a chain of plain nodes.
func readStatement(ctx *sql.Context, n sql.Node) (*statement, bool) {
	var above []sql.Node
	for plainNode(ctx, n) {
		above = append(above, n)
		n = n.Children()[0]
	}
	filter, ok := n.(*plan.Filter)
	if !ok {
		return nil, false
	}
	rt, ok := filter.Child.(*plan.ResolvedTable)
	if !ok {
		return nil, false
	}
	def, ok := rt.Table.(Definition)
	if !ok {
		return nil, false
	}
	version, ok := def.DefinitionVersion()
	if !ok {
		return nil, false
	}
	indexed, ok := rt.Table.(sql.IndexAddressableTable)
	if !ok {
		return nil, false
	}
	if _, ok := rt.Table.(sql.ProjectedTable); !ok {
		return nil, false
	}
	table := strings.ToLower(rt.Name())
	st := &statement{above: above, table: rt, version: version, hasIndex: indexed}
	for _, e := range expression.SplitConjunction(ctx, filter.Expression) {
		c, ok := readComparison(ctx, e, table)
		if !ok {
			return nil, false
		}
		for _, seen := range st.where {
			if seen.column == c.column {
				return nil, false
			}
		}
		st.where = append(st.where, c)
	}
	return st, true
}

// readComparison reads column = integer, integer = column, or column BETWEEN integer AND integer,
// of an integer column of table.
func readComparison(ctx *sql.Context, e sql.Expression, table string) (comparison, bool) {
	var gf *expression.GetField
	var c comparison
	switch e := e.(type) {
	case *expression.Equals:
		l, r := e.Left(), e.Right()
		if _, ok := l.(*expression.Literal); ok {
			l, r = r, l
		}
		var ok1, ok2 bool
		gf, ok1 = l.(*expression.GetField)
		c.lo, ok2 = r.(*expression.Literal)
		if !ok1 || !ok2 {
			return c, false
		}
		c.hi = c.lo
	case *expression.Between:
		var ok1, ok2, ok3 bool
		gf, ok1 = e.Val.(*expression.GetField)
		c.lo, ok2 = e.Lower.(*expression.Literal)
		c.hi, ok3 = e.Upper.(*expression.Literal)
		if !ok1 || !ok2 || !ok3 {
			return c, false
		}
		c.between = true
	default:
		return c, false
	}
	if !strings.EqualFold(gf.Table(), table) || !types.IsInteger(gf.Type(ctx)) ||
		!integerLiteral(ctx, c.lo) || !integerLiteral(ctx, c.hi) {
		return c, false
	}
	c.column = table + "." + strings.ToLower(gf.Name())
	return c, true
}

func integerLiteral(ctx *sql.Context, l *expression.Literal) bool {
	return types.IsInteger(l.Type(ctx)) && l.Value() != nil
}

// key is the statement's shape.
func (st *statement) key(ctx *sql.Context) string {
	var b strings.Builder
	v := st.version
	for _, n := range []uint64{uint64(v.Database), uint64(v.Table), v.Version, v.Digest} {
		b.WriteString(strconv.FormatUint(n, 36))
		b.WriteByte('.')
	}
	for _, n := range st.above {
		writeNode(ctx, &b, n)
		if _, ok := n.(*plan.GroupBy); ok && sql.LoadSqlMode(ctx).OnlyFullGroupBy() {
			// The engine checks the select list against GROUP BY only in this mode.
			b.WriteString("only_full_group_by")
		}
	}
	for _, c := range st.where {
		b.WriteByte('|')
		b.WriteString(strconv.Quote(c.column))
		if c.between {
			b.WriteString(" between ")
			b.WriteString(c.lo.Type(ctx).String())
			b.WriteByte(' ')
			b.WriteString(c.hi.Type(ctx).String())
		} else {
			b.WriteString(" = ")
			b.WriteString(c.lo.Type(ctx).String())
		}
	}
	return b.String()
}

// readPlan reads the engine's plan of st: a chain of plain nodes ← a static lookup of one
// range, whose range covers exactly st's columns. It is nil for a plan of any other form.
func readPlan(ctx *sql.Context, st *statement, full sql.Node) (*learnedPlan, *plan.IndexedTableAccess) {
	learned := &learnedPlan{}
	root := full
	for plainNode(ctx, root) {
		// A learned node keeps neither the statement's table nor its context.
		kept, aliased, err := withChild(nil, root, lookupHole, true)
		if err != nil {
			return nil, nil
		}
		learned.above = append(learned.above, kept)
		learned.aliased = append(learned.aliased, aliased)
		root = root.Children()[0]
	}
	ita, ok := root.(*plan.IndexedTableAccess)
	if !ok || !ita.IsStatic() {
		return nil, nil
	}
	lookup := plan.GetIndexLookup(ita)
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) != 1 || len(ranges[0]) != len(st.where) || lookup.IsEmptyRange ||
		lookup.IsSpatialLookup || lookup.VectorOrderAndLimit.OrderBy != nil {
		return nil, nil
	}
	exprs := lookup.Index.Expressions()
	if len(exprs) < len(st.where) {
		return nil, nil
	}
	for _, e := range exprs[:len(st.where)] {
		col := strings.ToLower(e)
		if st.comparison(col) == nil {
			return nil, nil
		}
		learned.columns = append(learned.columns, col)
	}
	learned.index = lookup.Index.ID()
	learned.point = lookup.IsPointLookup
	learned.reverse = lookup.IsReverse
	if pt, ok := projected(ita.TableNode.UnderlyingTable()); ok {
		learned.projections = pt.Projections()
	}
	return learned, ita
}

// projected finds the projected table inside the engine's table wrappers.
func projected(t sql.Table) (sql.ProjectedTable, bool) {
	for {
		if pt, ok := t.(sql.ProjectedTable); ok {
			return pt, true
		}
		w, ok := t.(sql.TableWrapper)
		if !ok {
			return nil, false
		}
		t = w.Underlying()
	}
}

func (st *statement) comparison(column string) *comparison {
	for i := range st.where {
		if st.where[i].column == column {
			return &st.where[i]
		}
	}
	return nil
}

// build is st's plan from a learned plan: ok is false when st is for the engine to plan (a
// constant its column's type cannot hold exactly, bounds in reverse order).
func (st *statement) build(ctx *sql.Context, learned *learnedPlan) (sql.Node, bool, error) {
	var index sql.Index
	indexes, err := st.hasIndex.GetIndexes(ctx)
	if err != nil {
		return nil, false, err
	}
	for _, idx := range indexes {
		if idx.ID() == learned.index {
			index = idx
			break
		}
	}
	if index == nil {
		return nil, false, nil
	}
	if len(learned.columns) != len(st.where) {
		return nil, false, nil
	}
	columnTypes := index.ColumnExpressionTypes(ctx)
	row := make(sql.MySQLRange, len(learned.columns))
	for i, col := range learned.columns {
		c := st.comparison(col)
		if c == nil {
			return nil, false, nil
		}
		typ := columnTypes[i].Type
		lo, ok := exactly(ctx, typ, c.lo)
		if !ok {
			return nil, false, nil
		}
		hi := lo
		if c.between {
			if hi, ok = exactly(ctx, typ, c.hi); !ok {
				return nil, false, nil
			}
			if cmp, err := typ.Compare(ctx, lo, hi); err != nil || cmp > 0 {
				return nil, false, err
			}
		}
		row[i] = sql.ClosedRangeColumnExpr(lo, hi, typ)
	}
	lookup := sql.NewIndexLookup(index, sql.MySQLRangeCollection{row}, learned.point, false, false, learned.reverse)
	table := st.table.Table
	if learned.projections != nil {
		if table, err = table.(sql.ProjectedTable).WithProjections(ctx, learned.projections); err != nil {
			return nil, false, err
		}
	}
	rt, err := st.table.ReplaceTable(ctx, table)
	if err != nil {
		return nil, false, err
	}
	var built sql.Node
	if built, err = plan.NewStaticIndexedAccessForTableNode(ctx, rt, lookup); err != nil {
		return nil, false, err
	}
	for i := len(learned.above) - 1; i >= 0; i-- {
		if built, _, err = withChild(ctx, learned.above[i], built, learned.aliased[i]); err != nil {
			return nil, false, err
		}
	}
	return built, true, nil
}

// exactly converts l to typ, and says whether typ holds l's value exactly.
func exactly(ctx *sql.Context, typ sql.Type, l *expression.Literal) (any, bool) {
	v, inRange, err := typ.Convert(ctx, l.Value())
	return v, err == nil && inRange == sql.InRange
}

// samePlan says whether built is the engine's plan full, whose lookup is ita: the same
// printed plan, the same ranges with the same values, and the same schema.
func samePlan(ctx *sql.Context, built, full sql.Node, ita *plan.IndexedTableAccess) bool {
	root := built
	for len(root.Children()) == 1 {
		root = root.Children()[0]
	}
	bita, ok := root.(*plan.IndexedTableAccess)
	if !ok {
		return false
	}
	bl, fl := plan.GetIndexLookup(bita), plan.GetIndexLookup(ita)
	return sql.DebugString(ctx, built) == sql.DebugString(ctx, full) &&
		reflect.DeepEqual(bl.Ranges, fl.Ranges) && bl.IsPointLookup == fl.IsPointLookup && bl.IsReverse == fl.IsReverse &&
		bl.Index.ID() == fl.Index.ID() && built.Schema(ctx).Equals(full.Schema(ctx))
}

// plainNode says whether n is a node the planner's plans may have above the table: a
// projection, a sort, DISTINCT or an aggregation, whose expressions are all plain.
func plainNode(ctx *sql.Context, n sql.Node) bool {
	switch n.(type) {
	case *plan.Project, *plan.Sort, *plan.Distinct, *plan.GroupBy:
	default:
		return false
	}
	if e, ok := n.(sql.Expressioner); ok {
		for _, x := range e.Expressions() {
			if !plainExpression(ctx, x) {
				return false
			}
		}
	}
	return true
}

// plainExpression says whether e is built of columns, aliases and the aggregations SUM, COUNT,
// MIN, MAX and AVG: expressions that hold no constant and no state of their own, so that one
// plan serves every statement of its shape, concurrently.
func plainExpression(ctx *sql.Context, e sql.Expression) bool {
	return !transform.InspectExpr(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
		switch e.(type) {
		case *expression.GetField, *expression.Alias, *aggregation.Sum, *aggregation.Count,
			*aggregation.Min, *aggregation.Max, *aggregation.Avg:
			return false
		}
		return true
	})
}

// writeNode writes the part of a shape's key that a plain node is: its kind and its
// expressions, sort orders included.
func writeNode(ctx *sql.Context, b *strings.Builder, n sql.Node) {
	write := func(kind string, exprs ...[]sql.Expression) {
		b.WriteString(kind)
		for _, list := range exprs {
			b.WriteByte('(')
			for _, e := range list {
				b.WriteString(strconv.Quote(sql.DebugString(ctx, e)))
				b.WriteByte(',')
			}
			b.WriteByte(')')
		}
	}
	switch n := n.(type) {
	case *plan.Project:
		write("project", n.Projections)
	case *plan.Distinct:
		write("distinct")
	case *plan.GroupBy:
		write("groupby", n.SelectDeps, n.GroupByExprs)
	case *plan.Sort:
		b.WriteString("sort(")
		for _, c := range n.SortConditions {
			b.WriteString(strconv.Quote(c.DebugString(ctx)))
			b.WriteByte(',')
		}
		b.WriteByte(')')
	}
}

// lookupHole stands for the lookup under a learned plan's nodes.
var lookupHole = plan.NewEmptyTableWithSchema(sql.Schema{})

// withChild is n over child, made in ctx, and whether n's expressions hold an alias. A Project
// and an alias keep the context they were made in (they print themselves in it), so a Project
// is made anew, with the same expressions and options, and, if aliased, so is every alias in
// n's expressions.
func withChild(ctx *sql.Context, n, child sql.Node, aliased bool) (sql.Node, bool, error) {
	if p, ok := n.(*plan.Project); ok {
		projections := p.Projections
		if aliased {
			var err error
			if projections, aliased, err = inContext(ctx, projections); err != nil {
				return nil, false, err
			}
		}
		return plan.NewProject(ctx, projections, child).WithCanDefer(p.CanDefer).
			WithIncludesNestedIters(p.IncludesNestedIters).WithAliasDeps(p.AliasDeps), aliased, nil
	}
	e, ok := n.(sql.Expressioner)
	if aliased = aliased && ok; aliased {
		exprs, remade, err := inContext(ctx, e.Expressions())
		if err != nil {
			return nil, false, err
		}
		if aliased = remade; remade {
			if n, err = e.WithExpressions(ctx, exprs...); err != nil {
				return nil, false, err
			}
		}
	}
	n, err := n.WithChildren(ctx, child)
	return n, aliased, err
}

// inContext is exprs with their aliases made in ctx, and whether there were any (if not, it is
// exprs itself).
func inContext(ctx *sql.Context, exprs []sql.Expression) ([]sql.Expression, bool, error) {
	made, remade := exprs, false
	for i, e := range exprs {
		x, same, err := transform.Expr(ctx, e, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			a, ok := e.(*expression.Alias)
			if !ok {
				return e, transform.SameTree, nil
			}
			alias := expression.NewAlias(ctx, a.Name(), a.Child)
			if a.Unreferencable() {
				alias = alias.AsUnreferencable()
			}
			return alias.WithId(a.Id()).(*expression.Alias), transform.NewTree, nil
		})
		if err != nil {
			return nil, false, err
		}
		if same == transform.NewTree {
			if !remade {
				made, remade = append([]sql.Expression(nil), exprs...), true
			}
			made[i] = x
		}
	}
	return made, remade, nil
}
