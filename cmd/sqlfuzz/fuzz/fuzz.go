package fuzz

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// finding is one statement on which the servers disagreed, with what is needed to reproduce
// it: the tables' rows before it (the two servers agreed on them, see resync) and the length
// of the history that led there.
type finding struct {
	n       int // statement number, from 1
	st      statement
	o, m    outcome
	diffs   []difference
	classes []*knownDifference // per difference; nil: unknown
	schema  string             // CREATE TABLE of the tables the statement names, overloadsql's spelling
	data    string             // the rows of those tables before the statement, as SQL literals
	before  map[string][][]string
	histLen int      // history[:histLen] ends with this statement
	repro   []string // the reproduction, once reduced
	note    string   // how the reproduction was found
}

func (f *finding) unknown() bool {
	for _, c := range f.classes {
		if c == nil {
			return true
		}
	}
	return false
}

// step is one statement of the history as each server got it (DDL names collations apart).
type step struct {
	o, m   string
	st     statement
	isStmt bool // a generated statement (not setup or resync)
	final  bool // the statement a reproduction ends with
}

type options struct {
	seed        uint64
	statements  int
	duration    time.Duration
	tables      int
	reduceTime  time.Duration
	maxReports  int
	verbose     bool
	keep        bool
	statementTO time.Duration
}

type fuzzer struct {
	opt      options
	o, m     *conn
	tables   []*table
	gen      *generator
	known    []*knownDifference
	snap     map[string][][]string // each table's rows as both servers hold them, as SQL literals
	history  []step
	findings []*finding
	ran      int
	out      io.Writer
}

func (f *fuzzer) both(ctx context.Context, o, m string) error {
	if err := f.o.exec(ctx, o); err != nil {
		return err
	}
	return f.m.exec(ctx, m)
}

// setup drops and creates the tables on both servers.
func (f *fuzzer) setup(ctx context.Context) error {
	f.snap = map[string][][]string{}
	for _, t := range f.tables {
		if err := f.createTable(ctx, t, nil); err != nil {
			return err
		}
	}
	return nil
}

// createTable drops and creates t on both servers and inserts rows (SQL literals), and logs
// the statements into the history.
func (f *fuzzer) createTable(ctx context.Context, t *table, rows [][]string) error {
	steps := tableSteps(t, rows)
	for _, s := range steps {
		if err := f.both(ctx, s.o, s.m); err != nil {
			return err
		}
	}
	f.history = append(f.history, steps...)
	f.snap[t.name] = rows
	f.gen.rows[t.name] = len(rows)
	return nil
}

// tableSteps are the statements that make t with rows on a server.
func tableSteps(t *table, rows [][]string) []step {
	drop := "DROP TABLE IF EXISTS " + t.name
	steps := []step{{o: drop, m: drop}, {o: t.createSQL(overload), m: t.createSQL(maria)}}
	if len(rows) > 0 {
		ins := insertSQL(t, rows)
		steps = append(steps, step{o: ins, m: ins})
	}
	return steps
}

func insertSQL(t *table, rows [][]string) string {
	vals := make([]string, len(rows))
	for i, r := range rows {
		vals[i] = "(" + strings.Join(r, ", ") + ")"
	}
	return fmt.Sprintf("INSERT INTO %s VALUES %s", t.name, strings.Join(vals, ", "))
}

// snapshotSQL reads t's rows so that they can be inserted again exactly: a FLOAT is read as
// the DOUBLE of its value (MariaDB prints FLOAT to 6 digits, which loses the value).
func snapshotSQL(t *table) string {
	cols := make([]string, len(t.cols))
	for i, c := range t.cols {
		cols[i] = c.name
		if c.kind == kFloat {
			cols[i] = c.name + " + 0e0"
		}
	}
	return fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), t.name)
}

// literalRows turns rows read as text into SQL literals.
func literalRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = quote(v)
		}
	}
	return out
}

func quote(v string) string {
	if v == "NULL" {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(v) + "'"
}

// compareTable reads t on both servers and returns the difference of their contents, if any,
// and MariaDB's rows as literals.
func (f *fuzzer) compareTable(ctx context.Context, t *table) (*difference, [][]string, error) {
	q := "SELECT * FROM " + t.name
	o, err := f.o.run(ctx, q, true)
	if err != nil {
		return nil, nil, err
	}
	m, err := f.m.run(ctx, q, true)
	if err != nil {
		return nil, nil, err
	}
	if m.errNum != 0 {
		return nil, nil, fmt.Errorf("mariadb: %s: %s", q, m)
	}
	snap, err := f.m.run(ctx, snapshotSQL(t), true)
	if err != nil {
		return nil, nil, err
	}
	if snap.errNum != 0 {
		return nil, nil, fmt.Errorf("mariadb: %s: %s", snapshotSQL(t), snap)
	}
	rows := literalRows(snap.rows)
	if o.errNum != 0 {
		return &difference{"table", fmt.Sprintf("%s: overloadsql cannot read it: %s", t.name, o)}, rows, nil
	}
	if d, ok := compareRows(&o, &m, false); !ok {
		return &difference{"table", t.name + ": " + d.detail}, rows, nil
	}
	return nil, rows, nil
}

// statementSteps is the history entry of a generated statement.
func statementSteps(st statement) step { return step{o: st.sql, m: st.sql, st: st, isStmt: true} }

// play runs one generated statement on both servers and returns its differences, comparing
// the table it writes after it. It does not change the snapshot.
func (f *fuzzer) play(ctx context.Context, st statement) (o, m outcome, diffs []difference, after [][]string, err error) {
	query := st.writes == ""
	if o, err = f.o.run(ctx, st.sql, query); err != nil {
		return
	}
	if m, err = f.m.run(ctx, st.sql, query); err != nil {
		return
	}
	diffs = compareOutcomes(st, &o, &m)
	if st.writes != "" {
		var d *difference
		if d, after, err = f.compareTable(ctx, f.table(st.writes)); err != nil {
			return
		}
		if d != nil {
			diffs = append(diffs, *d)
		}
	}
	return
}

func (f *fuzzer) table(name string) *table {
	for _, t := range f.tables {
		if t.name == name {
			return t
		}
	}
	panic("no table " + name)
}

// namedTables are the tables a statement names.
func (f *fuzzer) namedTables(sqlText string) []*table {
	var out []*table
	for _, t := range f.tables {
		if regexp.MustCompile(`\b` + t.name + `\b`).MatchString(sqlText) {
			out = append(out, t)
		}
	}
	return out
}

func (f *fuzzer) schemaOf(sqlText string) string {
	var ddl []string
	for _, t := range f.namedTables(sqlText) {
		ddl = append(ddl, t.createSQL(overload))
	}
	return strings.Join(ddl, ";\n")
}

// dataOf writes the rows of the tables a statement names, one table a line.
func (f *fuzzer) dataOf(sqlText string, rows map[string][][]string) string {
	var lines []string
	for _, t := range f.namedTables(sqlText) {
		if len(rows[t.name]) > 0 {
			lines = append(lines, insertSQL(t, rows[t.name]))
		}
	}
	return strings.Join(lines, "\n")
}

// run plays statements until the count or the time is reached. After a statement that leaves
// a table different, both servers get MariaDB's rows of it again (resync), so that one
// difference does not make every later statement differ.
func (f *fuzzer) run(ctx context.Context) error {
	if err := f.setup(ctx); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	deadline := time.Now().Add(f.opt.duration)
	for n := 1; n <= f.opt.statements && time.Now().Before(deadline); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := f.gen.next()
		before := f.snap
		o, m, diffs, after, err := f.play(ctx, st)
		if err != nil {
			return fmt.Errorf("statement %d: %w", n, err)
		}
		f.ran = n
		f.history = append(f.history, statementSteps(st))
		if len(diffs) > 0 {
			fd := &finding{n: n, st: st, o: o, m: m, diffs: diffs, schema: f.schemaOf(st.sql), data: f.dataOf(st.sql, before), before: before, histLen: len(f.history)}
			fd.classes = classifyAll(f.known, fd)
			f.findings = append(f.findings, fd)
		}
		if st.writes != "" {
			snap := make(map[string][][]string, len(f.snap))
			for k, v := range f.snap {
				snap[k] = v
			}
			snap[st.writes] = after
			f.snap = snap
			f.gen.rows[st.writes] = len(after)
			for _, d := range diffs {
				if d.kind == "table" {
					if err := f.createTable(ctx, f.table(st.writes), after); err != nil {
						return fmt.Errorf("statement %d: resync %s: %w", n, st.writes, err)
					}
					break
				}
			}
		}
	}
	return nil
}

// cleanup drops the tables on both servers.
func (f *fuzzer) cleanup(ctx context.Context) {
	for _, t := range f.tables {
		drop := "DROP TABLE IF EXISTS " + t.name
		_ = f.both(ctx, drop, drop)
	}
}

// classifyAll classifies each of a finding's differences. A table that differs after a
// statement that failed on one server only is the consequence of that failure and shares its
// classification.
func classifyAll(known []*knownDifference, fd *finding) []*knownDifference {
	classes := make([]*knownDifference, len(fd.diffs))
	var outcome *knownDifference
	hasOutcome := false
	for i, d := range fd.diffs {
		classes[i] = classify(known, fd, d)
		if d.kind == "outcome" {
			outcome, hasOutcome = classes[i], true
		}
	}
	for i, d := range fd.diffs {
		if d.kind == "table" && hasOutcome && classes[i] == nil {
			classes[i] = outcome
		}
	}
	return classes
}
