package fuzz

import (
	"fmt"
	"strings"
)

// difference is one way the two servers disagreed on one statement.
//
// Kinds: "outcome" (one succeeded, the other failed), "errno" (both failed, with different
// error numbers), "columns" (different numbers of result columns), "rows" (different result
// rows), "order" (the same rows in another order where ORDER BY defines it), "affected"
// (different affected-row counts), "warnings" (different warning counts, with -warnings),
// "table" (a table's contents differ after the statement).
type difference struct {
	kind   string
	detail string
}

func (d difference) String() string { return d.kind + ": " + d.detail }

// compareOutcomes returns the differences between the two servers' answers to one statement;
// it normalises the rows in place.
func compareOutcomes(st statement, o, m *outcome) []difference {
	if o.class() != m.class() {
		if o.errNum != 0 && m.errNum != 0 {
			return []difference{{"errno", fmt.Sprintf("overloadsql %s, mariadb %s", o.class(), m.class())}}
		}
		return []difference{{"outcome", fmt.Sprintf("overloadsql %s, mariadb %s", o.class(), m.class())}}
	}
	var diffs []difference
	if o.errNum == 0 {
		if o.query {
			if d, ok := compareRows(o, m, st.ordered); !ok {
				diffs = append(diffs, d)
			}
		} else if o.affected != m.affected {
			diffs = append(diffs, difference{"affected", fmt.Sprintf("overloadsql %d, mariadb %d", o.affected, m.affected)})
		}
	}
	if o.warnings >= 0 && m.warnings >= 0 && o.warnings != m.warnings {
		diffs = append(diffs, difference{"warnings", fmt.Sprintf("overloadsql %d, mariadb %d", o.warnings, m.warnings)})
	}
	return diffs
}

// compareRows compares two results, in order when ordered, as multisets otherwise.
func compareRows(o, m *outcome, ordered bool) (difference, bool) {
	if len(o.types) != len(m.types) {
		return difference{"columns", fmt.Sprintf("overloadsql %d columns, mariadb %d", len(o.types), len(m.types))}, false
	}
	normalise(o, m)
	so, sm := sortedRows(o.rows), sortedRows(m.rows)
	if d := multisetDiff(so, sm); d != "" {
		return difference{"rows", d}, false
	}
	if ordered {
		for i := range o.rows {
			if rowText(o.rows[i]) != rowText(m.rows[i]) {
				return difference{"order", fmt.Sprintf("row %d: overloadsql %s, mariadb %s", i+1, rowText(o.rows[i]), rowText(m.rows[i]))}, false
			}
		}
	}
	return difference{}, true
}

// multisetDiff describes how two sorted row lists differ ("" when equal): the counts and up
// to five rows found on one side only.
func multisetDiff(so, sm [][]string) string {
	var onlyO, onlyM []string
	i, j := 0, 0
	for i < len(so) || j < len(sm) {
		switch {
		case j == len(sm):
			onlyO = append(onlyO, rowText(so[i]))
			i++
		case i == len(so):
			onlyM = append(onlyM, rowText(sm[j]))
			j++
		default:
			a, b := strings.Join(so[i], "\x00"), strings.Join(sm[j], "\x00")
			switch {
			case a == b:
				i++
				j++
			case a < b:
				onlyO = append(onlyO, rowText(so[i]))
				i++
			default:
				onlyM = append(onlyM, rowText(sm[j]))
				j++
			}
		}
	}
	if len(onlyO) == 0 && len(onlyM) == 0 {
		return ""
	}
	list := func(rows []string) string {
		if len(rows) > 5 {
			return strings.Join(rows[:5], " ") + fmt.Sprintf(" and %d more", len(rows)-5)
		}
		return strings.Join(rows, " ")
	}
	s := fmt.Sprintf("overloadsql %d rows, mariadb %d", len(so), len(sm))
	if len(onlyO) > 0 {
		s += "; only in overloadsql: " + list(onlyO)
	}
	if len(onlyM) > 0 {
		s += "; only in mariadb: " + list(onlyM)
	}
	return s
}
