package fuzz

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestKnownDifferencesFileParses(t *testing.T) {
	b, err := os.ReadFile("../known-differences.toml")
	if err != nil {
		t.Fatal(err)
	}
	known, err := parseKnown(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(known) < 10 {
		t.Fatalf("%d known differences, want the list of them", len(known))
	}
	for _, k := range known {
		if len(k.Reason) < 40 {
			t.Errorf("%s: reason %q says too little", k.ID, k.Reason)
		}
	}
}

func TestParseKnownRefuses(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no id", "[[difference]]\nreason = 'r'\nstatus = 'documented'\nkind = 'rows'\n", "id and reason are required"},
		{"no reason", "[[difference]]\nid = 'a'\nstatus = 'documented'\nkind = 'rows'\n", "id and reason are required"},
		{"bad status", "[[difference]]\nid = 'a'\nreason = 'r'\nstatus = 'fixed'\nkind = 'rows'\n", "status \"fixed\""},
		{"no pattern", "[[difference]]\nid = 'a'\nreason = 'r'\nstatus = 'documented'\n", "has no pattern"},
		{"bad pattern", "[[difference]]\nid = 'a'\nreason = 'r'\nstatus = 'documented'\nkind = '('\n", "missing closing )"},
		{"unknown key", "[[difference]]\nid = 'a'\nreason = 'r'\nstatus = 'documented'\nkind = 'rows'\nwhere = 'x'\n", "unknown keys"},
		{"twice", "[[difference]]\nid = 'a'\nreason = 'r'\nstatus = 'documented'\nkind = 'rows'\n[[difference]]\nid = 'a'\nreason = 'r'\nstatus = 'documented'\nkind = 'rows'\n", "listed twice"},
		{"pattern not text", "[[difference]]\nid = 'a'\nreason = 'r'\nstatus = 'documented'\nkind = 3\n", "string or an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseKnown(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	known, err := parseKnown(`
[[difference]]
id = "in-list"
status = "bug, open"
reason = "r"
kind = "^rows$"
statement = ["IN \\(", "'"]
schema = "VARCHAR"

[[difference]]
id = "refused"
status = "bug, open"
reason = "r"
kind = "^outcome$"
overloadsql = "^error 1105"
mariadb = "^ok"
`)
	if err != nil {
		t.Fatal(err)
	}
	fd := &finding{st: statement{sql: "SELECT * FROM fz1 WHERE c IN ('a', 1)"}, schema: "CREATE TABLE fz1 (c VARCHAR(3))"}
	if k := classify(known, fd, difference{kind: "rows"}); k == nil || k.ID != "in-list" {
		t.Errorf("rows difference of an IN list of text: %v, want in-list", k)
	}
	if k := classify(known, fd, difference{kind: "order"}); k != nil {
		t.Errorf("order difference: %v, want none (kind does not match)", k.ID)
	}
	fd.st.sql = "SELECT * FROM fz1 WHERE c IN (1, 2)"
	if k := classify(known, fd, difference{kind: "rows"}); k != nil {
		t.Errorf("IN list without text: %v, want none (one pattern of the list fails)", k.ID)
	}

	// A table that differs after a statement one server refused shares the refusal's class.
	fd = &finding{
		st:    statement{sql: "INSERT INTO fz1 VALUES (1)", writes: "fz1"},
		o:     outcome{errNum: 1105, errMsg: "no"},
		m:     outcome{affected: 1},
		diffs: []difference{{kind: "outcome"}, {kind: "table"}},
	}
	classes := classifyAll(known, fd)
	if classes[0] == nil || classes[0].ID != "refused" || classes[1] != classes[0] {
		t.Errorf("classes %v, want refused twice", classes)
	}
	fd.classes = classes
	if fd.unknown() {
		t.Error("a finding whose differences are all known is unknown")
	}
	fd.classes = []*knownDifference{classes[0], nil}
	if !fd.unknown() {
		t.Error("a finding with an unknown difference is known")
	}
}

func TestNormalValue(t *testing.T) {
	for _, tc := range []struct{ v, ta, tb, want string }{
		{"1e+300", "DOUBLE", "DOUBLE", "1e+300"},
		{"1e300", "DOUBLE", "DOUBLE", "1e+300"},
		{"-0", "DOUBLE", "DOUBLE", "0"},
		{"0.30000000000000004", "DOUBLE", "DOUBLE", "0.3"},
		{"16777216", "FLOAT", "FLOAT", "1.67772e+07"},
		{"1.6777216e+07", "FLOAT", "FLOAT", "1.67772e+07"},
		{"2.0000", "DECIMAL", "DECIMAL", "2"},
		{"2", "BIGINT", "DECIMAL", "2"},
		{"-0.000", "DECIMAL", "DECIMAL", "0"},
		{"10.1250", "DECIMAL", "DECIMAL", "10.125"},
		{"100", "DECIMAL", "DECIMAL", "100"},
		{"a ", "VARCHAR", "VARCHAR", "a "},
		{"NULL", "DOUBLE", "DOUBLE", "NULL"},
	} {
		if got := normalValue(tc.v, tc.ta, tc.tb); got != tc.want {
			t.Errorf("normalValue(%q, %s, %s) = %q, want %q", tc.v, tc.ta, tc.tb, got, tc.want)
		}
	}
}

func TestCompareOutcomes(t *testing.T) {
	rows := func(rs ...string) [][]string {
		var out [][]string
		for _, r := range rs {
			out = append(out, strings.Split(r, ","))
		}
		return out
	}
	q := func(rs ...string) *outcome {
		return &outcome{query: true, types: []string{"INT", "VARCHAR"}, rows: rows(rs...)}
	}
	for _, tc := range []struct {
		name    string
		st      statement
		o, m    *outcome
		want    string // kind of the first difference, "" for none
		contain string
	}{
		{"same rows, order undefined", statement{}, q("1,a", "2,b"), q("2,b", "1,a"), "", ""},
		{"same rows, order defined", statement{ordered: true}, q("1,a", "2,b"), q("2,b", "1,a"), "order", "row 1"},
		{"missing row", statement{}, q("1,a"), q("1,a", "2,b"), "rows", "only in mariadb: (2, b)"},
		{"duplicate row", statement{}, q("1,a", "1,a"), q("1,a"), "rows", "only in overloadsql: (1, a)"},
		{"error against success", statement{}, &outcome{errNum: 1105}, q(), "outcome", "overloadsql error 1105, mariadb ok"},
		{"two error numbers", statement{}, &outcome{errNum: 1105}, &outcome{errNum: 1264}, "errno", "error 1264"},
		{"same error", statement{}, &outcome{errNum: 1264}, &outcome{errNum: 1264}, "", ""},
		{"affected rows", statement{writes: "t"}, &outcome{affected: 2}, &outcome{affected: 3}, "affected", "overloadsql 2, mariadb 3"},
		{"warnings", statement{writes: "t"}, &outcome{warnings: 1}, &outcome{warnings: 0}, "warnings", "overloadsql 1"},
		{"warnings not read", statement{writes: "t"}, &outcome{warnings: -1}, &outcome{warnings: 0}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diffs := compareOutcomes(tc.st, tc.o, tc.m)
			if tc.want == "" {
				if len(diffs) != 0 {
					t.Fatalf("differences %v, want none", diffs)
				}
				return
			}
			if len(diffs) == 0 || diffs[0].kind != tc.want || !strings.Contains(diffs[0].detail, tc.contain) {
				t.Fatalf("differences %v, want %s saying %q", diffs, tc.want, tc.contain)
			}
		})
	}
}

func TestGeneratorIsSeeded(t *testing.T) {
	draw := func(seed uint64) []statement {
		tables := newSchema(newGenerator(seed, nil).r, 3)
		g := newGenerator(seed+1, tables)
		for _, t := range tables {
			g.rows[t.name] = 20 // as a run reads them after each write
		}
		out := make([]statement, 300)
		for i := range out {
			out[i] = g.next()
		}
		return out
	}
	a, b, c := draw(7), draw(7), draw(8)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("one seed drew two streams of statements")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("two seeds drew one stream")
	}
	kinds := map[string]int{}
	for _, st := range a {
		verb := strings.Fields(st.sql)[0]
		kinds[verb]++
		if (verb == "SELECT") != (st.writes == "") {
			t.Errorf("%q: writes = %q", st.sql, st.writes)
		}
		if st.ordered && !strings.Contains(st.sql, "ORDER BY") {
			t.Errorf("%q is ordered without ORDER BY", st.sql)
		}
		// A LIMIT picks rows by an order that ends in id, which is unique: the rows are defined.
		if i := strings.Index(st.sql, " LIMIT "); i > 0 {
			order := st.sql[strings.Index(st.sql, "ORDER BY"):i]
			if !strings.HasSuffix(strings.TrimSuffix(order, " DESC"), "id") {
				t.Errorf("%q limits rows by an order that may tie", st.sql)
			}
		}
	}
	for _, verb := range []string{"SELECT", "INSERT", "UPDATE", "DELETE"} {
		if kinds[verb] < 10 {
			t.Errorf("%d %s statements of 300", kinds[verb], verb)
		}
	}
}

func TestSchemaSpellsCollationsPerServer(t *testing.T) {
	tb := &table{name: "t", cols: []column{
		{name: "id", kind: kInt},
		{name: "a", kind: kVarchar, n: 4, coll: collBin, nullable: true},
		{name: "b", kind: kChar, n: 2, coll: collAICI},
		{name: "c", kind: kDecimal, p: 6, s: 2, nullable: true},
	}, pk: true, indexes: []index{{name: "k1", unique: true, cols: []string{"a", "c"}}}}
	want := map[side]string{
		overload: "CREATE TABLE t (id INT NOT NULL, a VARCHAR(4) COLLATE utf8mb4_0900_bin, b CHAR(2) COLLATE utf8mb4_0900_ai_ci NOT NULL, c DECIMAL(6,2), PRIMARY KEY (id), UNIQUE KEY k1 (a, c))",
		maria:    "CREATE TABLE t (id INT NOT NULL, a VARCHAR(4) COLLATE utf8mb4_nopad_bin, b CHAR(2) COLLATE utf8mb4_uca1400_nopad_ai_ci NOT NULL, c DECIMAL(6,2), PRIMARY KEY (id), UNIQUE KEY k1 (a, c))",
	}
	for s, w := range want {
		if got := tb.createSQL(s); got != w {
			t.Errorf("%s:\n got %s\nwant %s", s, got, w)
		}
	}
}

func TestMinimise(t *testing.T) {
	xs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	holds := func(ys []int) (bool, error) { return slices.Contains(ys, 3) && slices.Contains(ys, 7), nil }
	none := func(int, int) bool { return false }
	future := time.Now().Add(time.Minute)
	got, err := minimise(xs, none, holds, future)
	if err != nil || !reflect.DeepEqual(got, []int{3, 7}) {
		t.Fatalf("minimise = %v, %v; want [3 7]", got, err)
	}
	got, _ = minimise(xs, func(_ int, x int) bool { return x == 9 }, holds, future)
	if !reflect.DeepEqual(got, []int{3, 7, 9}) {
		t.Fatalf("minimise keeping 9 = %v, want [3 7 9]", got)
	}
	got, _ = minimise(xs, none, holds, time.Now().Add(-time.Second))
	if !reflect.DeepEqual(got, xs) {
		t.Fatalf("minimise past its deadline = %v, want the input", got)
	}
	boom := errors.New("replay failed")
	if _, err := minimise(xs, none, func([]int) (bool, error) { return false, boom }, future); !errors.Is(err, boom) {
		t.Fatalf("minimise err = %v, want the replay's", err)
	}
}

func TestQuoteRoundTripsText(t *testing.T) {
	for v, want := range map[string]string{
		"NULL":  "NULL",
		"a'b":   "'a''b'",
		`a\b`:   `'a\\b'`,
		"1e300": "'1e300'",
	} {
		if got := quote(v); got != want {
			t.Errorf("quote(%q) = %s, want %s", v, got, want)
		}
	}
}
