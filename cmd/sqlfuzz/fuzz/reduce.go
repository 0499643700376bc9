package fuzz

import (
	"context"
	"fmt"
	"time"
)

// The reducer makes a finding's reproduction small, after the run (it reuses the tables).
// First it tries the statement alone on the tables as they were before it (the snapshot: both
// servers agreed on them) and drops rows, halves then single ones, while the difference stays:
// same kind and same known-difference entry (or none) as the finding's first difference. When
// the snapshot does not reproduce it (the difference depends on what happened before, not
// only on the rows), it replays the history up to the statement and drops statements the
// same way, within the time budget.

// target is what a reproduction must show again.
type target struct {
	kind  string
	class *knownDifference
}

func (f *fuzzer) targetOf(fd *finding) target {
	return target{fd.diffs[0].kind, fd.classes[0]}
}

// shows reports whether diffs of a replay of fd's statement contain the target; units are the
// rows the replay started from (nil: a replay of the history, which keeps fd's data).
func (f *fuzzer) shows(fd *finding, tg target, o, m outcome, diffs []difference, units []unit) bool {
	probe := *fd
	probe.o, probe.m, probe.diffs = o, m, diffs
	if units != nil {
		probe.data = f.dataOf(fd.st.sql, rowsOf(units))
	}
	for i, c := range classifyAll(f.known, &probe) {
		if diffs[i].kind == tg.kind && c == tg.class {
			return true
		}
	}
	return false
}

// unit is one row of one table in a snapshot reproduction.
type unit struct {
	table string
	row   []string
}

func rowsOf(units []unit) map[string][][]string {
	rows := map[string][][]string{}
	for _, u := range units {
		rows[u.table] = append(rows[u.table], u.row)
	}
	return rows
}

func (f *fuzzer) replaySnapshot(ctx context.Context, fd *finding, tg target, units []unit) (bool, error) {
	rows := rowsOf(units)
	for _, t := range f.tables {
		for _, s := range tableSteps(t, rows[t.name]) {
			if err := f.both(ctx, s.o, s.m); err != nil {
				return false, err
			}
		}
	}
	o, m, diffs, _, err := f.play(ctx, fd.st)
	if err != nil {
		return false, err
	}
	return f.shows(fd, tg, o, m, diffs, units), nil
}

func (f *fuzzer) replayHistory(ctx context.Context, fd *finding, tg target, steps []step) (bool, error) {
	for _, t := range f.tables {
		drop := "DROP TABLE IF EXISTS " + t.name
		if err := f.both(ctx, drop, drop); err != nil {
			return false, err
		}
	}
	last := len(steps) - 1
	for _, s := range steps[:last] {
		// Statements that fail are part of the history too; only a broken connection stops.
		if _, err := f.o.run(ctx, s.o, false); err != nil {
			return false, err
		}
		if _, err := f.m.run(ctx, s.m, false); err != nil {
			return false, err
		}
	}
	o, m, diffs, _, err := f.play(ctx, steps[last].st)
	if err != nil {
		return false, err
	}
	return f.shows(fd, tg, o, m, diffs, nil), nil
}

// minimise drops elements of xs (never the ones keep marks) while test holds: chunks of half
// the list, then of a quarter, down to single elements, until the budget runs out.
func minimise[T any](xs []T, keep func(int, T) bool, test func([]T) (bool, error), deadline time.Time) ([]T, error) {
	for chunk := max(len(xs)/2, 1); chunk >= 1; chunk /= 2 {
		for i := 0; i < len(xs); {
			if time.Now().After(deadline) {
				return xs, nil
			}
			end := min(i+chunk, len(xs))
			removable := true
			for j := i; j < end; j++ {
				if keep(j, xs[j]) {
					removable = false
				}
			}
			if !removable {
				i = end
				continue
			}
			trial := append(append([]T(nil), xs[:i]...), xs[end:]...)
			ok, err := test(trial)
			if err != nil {
				return xs, err
			}
			if ok {
				xs = trial
			} else {
				i = end
			}
		}
		if chunk == 1 {
			break
		}
	}
	return xs, nil
}

// reduce finds fd's reproduction.
func (f *fuzzer) reduce(ctx context.Context, fd *finding) error {
	tg := f.targetOf(fd)
	deadline := time.Now().Add(f.opt.reduceTime)
	var units []unit
	for _, t := range f.tables {
		for _, r := range fd.before[t.name] {
			units = append(units, unit{t.name, r})
		}
	}
	test := func(us []unit) (bool, error) { return f.replaySnapshot(ctx, fd, tg, us) }
	ok, err := test(units)
	if err != nil {
		return err
	}
	if ok {
		n := len(units)
		units, err = minimise(units, func(int, unit) bool { return false }, test, deadline)
		if err != nil {
			return err
		}
		fd.note = fmt.Sprintf("replays from the tables' rows before the statement, reduced from %d rows to %d", n, len(units))
		fd.repro = f.snapshotRepro(fd, units)
		return nil
	}
	steps := append([]step(nil), f.history[:fd.histLen]...)
	htest := func(ss []step) (bool, error) { return f.replayHistory(ctx, fd, tg, ss) }
	ok, err = htest(steps)
	if err != nil {
		return err
	}
	if !ok {
		fd.note = "does not replay, neither from the tables' rows nor from the whole history: it depends on timing or on state the history does not rebuild"
		fd.repro = f.historyRepro(steps)
		return nil
	}
	n := len(steps)
	steps[n-1].final = true
	steps, err = minimise(steps, func(_ int, s step) bool { return s.final }, htest, deadline)
	if err != nil {
		return err
	}
	fd.note = fmt.Sprintf("does not replay from the tables' rows; replays from the history, reduced from %d statements to %d", n, len(steps))
	fd.repro = f.historyRepro(steps)
	return nil
}

// snapshotRepro writes the reproduction: the tables the statement names or that hold rows,
// their rows, the statement, and a read of the table it writes.
func (f *fuzzer) snapshotRepro(fd *finding, units []unit) []string {
	rows := map[string][][]string{}
	for _, u := range units {
		rows[u.table] = append(rows[u.table], u.row)
	}
	named := map[string]bool{}
	for _, t := range f.namedTables(fd.st.sql) {
		named[t.name] = true
	}
	var out []string
	for _, t := range f.tables {
		if !named[t.name] && len(rows[t.name]) == 0 {
			continue
		}
		out = append(out, t.createSQL(overload))
		if len(rows[t.name]) > 0 {
			out = append(out, insertSQL(t, rows[t.name]))
		}
	}
	out = append(out, fd.st.sql)
	if fd.st.writes != "" {
		out = append(out, "SELECT * FROM "+fd.st.writes)
	}
	return out
}

func (f *fuzzer) historyRepro(steps []step) []string {
	out := make([]string, 0, len(steps))
	for _, s := range steps {
		out = append(out, s.o)
	}
	return out
}
