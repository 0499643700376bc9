package integration

import "strings"

// longRowComparisons is LongRowComparisonsAreRefused: a row equality is planned as the AND of
// its pairs, in time that grew with the square of its length, deaf to KILL QUERY and to the
// client leaving: (a, a, ...) = (1, 1, ...) of 40 000 columns (160 KB, no operator for the
// expression limits to count) planned for about two minutes. A statement's row equalities now
// hold at most 1000 pairs in all (1105, expression too complex), answered within answerBound.
func longRowComparisons() scriptTest {
	row := func(n int, v string) string { return "(" + strings.TrimSuffix(strings.Repeat(v+",", n), ",") + ")" }
	return scriptTest{
		name:  "LongRowComparisonsAreRefused",
		app:   true,
		setup: []string{"CREATE TABLE r (id INT PRIMARY KEY, a INT)", "INSERT INTO r VALUES (1, 1), (2, 2)"},
		assertions: []assertion{
			{query: "SELECT COUNT(*) FROM r WHERE " + row(40000, "a") + " = " + row(40000, "1"), err: 1105, message: "*expression too complex*"},
			{query: "SELECT COUNT(*) FROM r WHERE " + row(600, "a") + " = " + row(600, "1") + " AND " + row(600, "id") + " <> " + row(600, "2"),
				err: 1105, message: "*expression too complex*"},
			{query: "SELECT COUNT(*) FROM r WHERE " + row(1000, "a") + " = " + row(1000, "1"), rows: column("1")},
		},
	}
}
