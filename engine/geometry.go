package engine

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"overloadsql/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// Bound (go-mysql-server v0.20.1-0.20260819200441-c0b22e21d5fc): malformed WKB/EWKB/WKT fails
// with 3037 before the engine allocates or nests by its counts.
// Test: TestMalformedGeometriesAreRefused fails without it.
//
// Each value is read first by a walk of its structure that allocates nothing
// (checkWKB, checkWKT): a count that announces more elements than the bytes that follow can
// hold, or nesting deeper than maxGeometryNesting, fails with MySQL's error for invalid GIS
// data before the engine sees the value. The functions' first argument is checked
// (geometryFunction), and so is every value an INSERT or an UPDATE stores in a spatial column
// (checkedGeometryWrites); a column of another type cannot be changed to a spatial type.

// maxGeometryNesting is how deep geometries may nest: a GEOMETRYCOLLECTION counts one level,
// and so do a MULTIPOLYGON, a POLYGON and a ring in the text form. Real data nests a few
// levels (a collection of multipolygons is four).
const maxGeometryNesting = 64

func errInvalidGIS(function, why string) error {
	return mysqlerr.New(mysqlerr.ERGISInvalidData, "Invalid GIS data provided to function %s: %s.", function, why)
}

// WKB geometry types, and the fewest bytes an element of each takes inside a collection.
const (
	wkbPoint = 1 + iota
	wkbLineString
	wkbPolygon
	wkbMultiPoint
	wkbMultiLineString
	wkbMultiPolygon
	wkbGeometryCollection

	wkbHeader = 5  // byte order, type
	wkbCount  = 4  // a count
	wkbXY     = 16 // two float64
)

// checkWKB walks the WKB geometry at the start of b, checking each count against the bytes
// left, and returns its length. It reads no further than the counts allow and allocates
// nothing; it accepts what the engine's reader then reads.
func checkWKB(b []byte, depth int) (int, error) {
	if depth > maxGeometryNesting {
		return 0, fmt.Errorf("geometries nest more than %d deep", maxGeometryNesting)
	}
	if len(b) < wkbHeader {
		return 0, fmt.Errorf("%d bytes are too short for a geometry", len(b))
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if b[0] == 0 {
		order = binary.BigEndian
	}
	typ := order.Uint32(b[1:])
	n, err := checkWKBBody(b[wkbHeader:], order, typ, depth)
	return wkbHeader + n, err
}

// checkWKBBody walks the part of a geometry of type typ after its header.
func checkWKBBody(b []byte, order binary.ByteOrder, typ uint32, depth int) (int, error) {
	if typ == wkbPoint {
		if len(b) < wkbXY {
			return 0, fmt.Errorf("a point needs %d bytes, %d are left", wkbXY, len(b))
		}
		return wkbXY, nil
	}
	if typ < wkbLineString || typ > wkbGeometryCollection {
		return 0, fmt.Errorf("unknown geometry type %d", typ)
	}
	if len(b) < wkbCount {
		return 0, fmt.Errorf("a count needs %d bytes, %d are left", wkbCount, len(b))
	}
	count := uint64(order.Uint32(b))
	at := wkbCount
	// The fewest bytes an element takes.
	least := uint64(wkbCount)
	switch typ {
	case wkbLineString:
		least = wkbXY
	case wkbMultiPoint:
		least = wkbHeader + wkbXY
	case wkbMultiLineString, wkbMultiPolygon, wkbGeometryCollection:
		least = wkbHeader + wkbCount // a point takes more
	}
	if count*least > uint64(len(b)-at) {
		return 0, fmt.Errorf("a count of %d elements of at least %d bytes each, %d bytes are left", count, least, len(b)-at)
	}
	for range count {
		var n int
		var err error
		switch typ {
		case wkbLineString:
			n = wkbXY
		case wkbPolygon: // rings: linestrings without a header
			n, err = checkWKBBody(b[at:], order, wkbLineString, depth+1)
		default:
			n, err = checkWKB(b[at:], depth+1)
		}
		if err != nil {
			return 0, err
		}
		at += n
	}
	return at, nil
}

// checkEWKB checks a value stored in a spatial column: four bytes of SRID, then WKB.
func checkEWKB(b []byte) error {
	if len(b) < 4 {
		return nil // the engine refuses it itself
	}
	_, err := checkWKB(b[4:], 0)
	return err
}

// checkWKT checks the nesting of a geometry's text: the engine reads it again at each level of
// parentheses.
func checkWKT(s string) error {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			if depth++; depth > maxGeometryNesting {
				return fmt.Errorf("geometries nest more than %d deep", maxGeometryNesting)
			}
		case ')':
			depth--
		}
	}
	return nil
}

// geometryInput is a geometry's binary or text form, checked before the engine reads it.
type geometryInput struct {
	value    sql.Expression
	function string // named in the error
	check    func(b []byte) error
}

var _ sql.Expression = (*geometryInput)(nil)

// geometryFunction is the check of the first argument of the engine's function name when it
// reads a geometry from it: ST_GeomFromWKB and the other ST_...FromWKB functions, and
// ST_GeomFromText and the other ST_...FromText (or ...FromTxt) functions; false for the others.
func geometryFunction(name string) (func([]byte) error, bool) {
	if !strings.HasPrefix(name, "st_") {
		return nil, false
	}
	switch {
	case strings.HasSuffix(name, "fromwkb"):
		return func(b []byte) error { _, err := checkWKB(b, 0); return err }, true
	case strings.HasSuffix(name, "fromtext"), strings.HasSuffix(name, "fromtxt"):
		return func(b []byte) error { return checkWKT(string(b)) }, true
	}
	return nil, false
}

func (g *geometryInput) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := g.value.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	var b []byte
	switch v := v.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return v, nil // a geometry, or what the engine refuses itself
	}
	if err := g.check(b); err != nil {
		return nil, errInvalidGIS(g.function, err.Error())
	}
	return v, nil
}

func (g *geometryInput) Resolved() bool                   { return g.value.Resolved() }
func (g *geometryInput) String() string                   { return g.value.String() }
func (g *geometryInput) Type(ctx *sql.Context) sql.Type   { return g.value.Type(ctx) }
func (g *geometryInput) IsNullable(ctx *sql.Context) bool { return g.value.IsNullable(ctx) }
func (g *geometryInput) Children() []sql.Expression       { return []sql.Expression{g.value} }

func (g *geometryInput) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(g, len(children), 1)
	}
	return &geometryInput{value: children[0], function: g.function, check: g.check}, nil
}

func (g *geometryInput) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	if c, ok := g.value.(sql.CollationCoercible); ok {
		return c.CollationCoercibility(ctx)
	}
	return sql.Collation_binary, 5
}

// isSpatial reports whether t is one of the spatial types.
func isSpatial(t sql.Type) bool {
	switch t.(type) {
	case types.GeometryType, types.PointType, types.LineStringType, types.PolygonType,
		types.MultiPointType, types.MultiLineStringType, types.MultiPolygonType, types.GeomCollType:
		return true
	}
	return false
}

// storedGeometry is value, checked as the EWKB a spatial column stores.
func storedGeometry(ctx *sql.Context, value sql.Expression) sql.Expression {
	if _, ok := value.(*geometryInput); ok || isSpatial(value.Type(ctx)) {
		return value
	}
	return &geometryInput{value: value, function: "st_geomfromwkb", check: checkEWKB}
}

// checkedGeometryWrites, an analyzer rule, checks each value that an INSERT (its rows, and the
// assignments of ON DUPLICATE KEY UPDATE) or an UPDATE stores in a spatial column, and refuses
// ALTER TABLE statements that would read the values of another type as geometries.
func checkedGeometryWrites(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			return checkedInsert(ctx, n)
		case *plan.UpdateSource:
			exprs, same := checkedGeometryAssignments(ctx, n.UpdateExprs.AllExpressions())
			for i, e := range exprs { // stored generated columns
				checked, sameDefault, err := checkedDefaults(ctx, e)
				if err != nil {
					return nil, transform.SameTree, err
				}
				if sameDefault == transform.NewTree {
					if same { // exprs is still the node's own
						exprs, same = slices.Clone(exprs), false
					}
					exprs[i] = checked
				}
			}
			if same {
				return n, transform.SameTree, nil
			}
			out, err := n.WithExpressions(ctx, exprs...)
			return out, transform.NewTree, err
		case *plan.ModifyColumn:
			old := n.TargetSchema().IndexOfColName(n.Column())
			if isSpatial(n.NewColumn().Type) && old >= 0 && !isSpatial(n.TargetSchema()[old].Type) {
				return nil, transform.SameTree, mysqlerr.New(mysql.ERNotSupportedYet,
					"This version of overloadsql doesn't yet support 'changing a column of another type to a spatial type'")
			}
			checkedColumnExpressions(ctx, n.NewColumn())
		case *plan.AddColumn:
			checkedColumnExpressions(ctx, n.Column())
		}
		return n, transform.SameTree, nil
	})
}

// checkedDefaults checks the values of the defaults and generated values of spatial columns
// in e, which the engine converts to the column's type as it evaluates them.
func checkedDefaults(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if e == nil { // a column without a default, in CREATE TABLE
		return e, transform.SameTree, nil
	}
	return transform.Expr(ctx, e, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		d, ok := e.(*sql.ColumnDefaultValue)
		if !ok || d == nil || d.Expr == nil || d.OutType == nil || !isSpatial(d.OutType) {
			return e, transform.SameTree, nil
		}
		checked := storedGeometry(ctx, d.Expr)
		if checked == d.Expr {
			return e, transform.SameTree, nil
		}
		out := *d
		out.Expr = checked
		return &out, transform.NewTree, nil
	})
}

// checkedColumnExpressions checks the values that a spatial column's default and generation
// expressions give the rows an ALTER TABLE fills.
func checkedColumnExpressions(ctx *sql.Context, c *sql.Column) {
	if c == nil || !isSpatial(c.Type) {
		return
	}
	for _, d := range []**sql.ColumnDefaultValue{&c.Default, &c.Generated} {
		if *d == nil || (*d).Expr == nil {
			continue
		}
		checked := **d
		checked.Expr = storedGeometry(ctx, checked.Expr)
		*d = &checked
	}
}

// checkedGeometryAssignments is exprs with each value assigned to a spatial column checked.
func checkedGeometryAssignments(ctx *sql.Context, exprs []sql.Expression) ([]sql.Expression, bool) {
	var out []sql.Expression // a copy of exprs, made at the first change
	for i, e := range exprs {
		set, ok := e.(*expression.SetField)
		if !ok || !isSpatial(set.LeftChild.Type(ctx)) {
			continue
		}
		if _, ok := set.RightChild.(*sql.ColumnDefaultValue); ok {
			continue // SET g = DEFAULT: the engine looks for it; its rows are checked on insert
		}
		if checked := storedGeometry(ctx, set.RightChild); checked != set.RightChild {
			if out == nil {
				out = slices.Clone(exprs)
			}
			out[i] = expression.NewSetField(set.LeftChild, checked)
		}
	}
	if out == nil {
		return exprs, true
	}
	return out, false
}

// checkedInsert has the rows an INSERT stores checked in its spatial columns.
func checkedInsert(ctx *sql.Context, n *plan.InsertInto) (sql.Node, transform.TreeIdentity, error) {
	if n.Source == nil {
		return n, transform.SameTree, nil
	}
	if _, done := n.Source.(geometryRows); done {
		return n, transform.SameTree, nil
	}
	schema := n.Destination.Schema(ctx)
	var columns []int
	for i, c := range schema {
		if isSpatial(c.Type) {
			columns = append(columns, i)
		}
	}
	exprs, sameDup := checkedGeometryAssignments(ctx, n.OnDupExprs.AllExpressions())
	if len(columns) == 0 && sameDup {
		return n, transform.SameTree, nil
	}
	out := *n
	dup, err := n.OnDupExprs.WithExpressions(exprs)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out.OnDupExprs = dup
	// The source's defaults and generated values (INSERT ... SELECT reads no VALUES).
	source, _, err := transform.NodeExprs(ctx, n.Source, checkedDefaults)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out.Source = source
	if len(columns) > 0 {
		out.Source = geometryRows{child: source, width: len(schema), columns: columns}
	}
	return &out, transform.NewTree, nil
}

// geometryRows are the rows of an INSERT's source with the values of its spatial columns
// checked. A row is the destination's columns, after the values of an outer scope.
type geometryRows struct {
	child   sql.Node
	width   int
	columns []int
}

var (
	_ sql.Node            = geometryRows{}
	_ sql.ExecBuilderNode = geometryRows{}
)

func (g geometryRows) Resolved() bool                     { return g.child.Resolved() }
func (g geometryRows) String() string                     { return g.child.String() }
func (g geometryRows) Schema(ctx *sql.Context) sql.Schema { return g.child.Schema(ctx) }
func (g geometryRows) Children() []sql.Node               { return []sql.Node{g.child} }
func (g geometryRows) IsReadOnly() bool                   { return g.child.IsReadOnly() }
func (g geometryRows) CheckPrivileges(ctx *sql.Context, op sql.PrivilegedOperationChecker) bool {
	return true // the source's own nodes are checked
}

func (g geometryRows) WithChildren(ctx *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(g, len(children), 1)
	}
	return geometryRows{child: children[0], width: g.width, columns: g.columns}, nil
}

func (g geometryRows) BuildRowIter(ctx *sql.Context, b sql.NodeExecBuilder, row sql.Row) (sql.RowIter, error) {
	iter, err := b.Build(ctx, g.child, row)
	if err != nil {
		return nil, err
	}
	return &geometryRowIter{iter: iter, g: g}, nil
}

type geometryRowIter struct {
	iter sql.RowIter
	g    geometryRows
}

func (it *geometryRowIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := it.iter.Next(ctx)
	if err != nil {
		return row, err
	}
	first := len(row) - it.g.width
	for _, i := range it.g.columns {
		if first+i < 0 || first+i >= len(row) {
			continue
		}
		var b []byte
		switch v := row[first+i].(type) {
		case []byte:
			b = v
		case string:
			b = []byte(v)
		default:
			continue
		}
		if err := checkEWKB(b); err != nil {
			return nil, errInvalidGIS("st_geomfromwkb", err.Error())
		}
	}
	return row, nil
}

func (it *geometryRowIter) Close(ctx *sql.Context) error { return it.iter.Close(ctx) }

// checkedGeometryList, part of the analyzer rule correctComparisons (planwalk.go) that runs
// before the engine's, checks the values of an IN list whose left side is spatial: the engine
// converts each of them to the left side's type (a hashed list while it plans the statement). A
// row (g, 1) IN ((..., 1)) is checked in the spatial places of its rows.
func checkedGeometryList(ctx *sql.Context, in *expression.InTuple) (sql.Expression, transform.TreeIdentity, error) {
	list, ok := in.Right().(expression.Tuple)
	if !ok {
		return in, transform.SameTree, nil
	}
	left := in.Left()
	var spatial []int // places of a row's spatial values; -1: the left side itself
	if row, isRow := left.(expression.Tuple); isRow {
		for i, x := range row {
			if isSpatial(x.Type(ctx)) {
				spatial = append(spatial, i)
			}
		}
	} else if isSpatial(left.Type(ctx)) {
		spatial = []int{-1}
	}
	if len(spatial) == 0 {
		return in, transform.SameTree, nil
	}
	checked := make(expression.Tuple, len(list))
	for i, x := range list {
		checked[i] = x
		if spatial[0] == -1 {
			checked[i] = storedGeometry(ctx, x)
			continue
		}
		row, isRow := x.(expression.Tuple)
		if !isRow {
			continue
		}
		values := slices.Clone(row)
		for _, at := range spatial {
			if at < len(values) {
				values[at] = storedGeometry(ctx, values[at])
			}
		}
		checked[i] = expression.NewTuple(values...)
	}
	return expression.NewInTuple(left, checked), transform.NewTree, nil
}
