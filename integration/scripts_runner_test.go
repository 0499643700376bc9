package integration

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestScriptAssertionsCompareExactly: the script runner's comparison tells NULL from the text
// NULL, order and column names matter, and an error must carry the number, SQLSTATE and
// message asked for.
func TestScriptAssertionsCompareExactly(t *testing.T) {
	duplicate := &mysql.MySQLError{Number: 1060, SQLState: [5]byte{'4', '2', 'S', '2', '1'}, Message: "Duplicate column name 'a'"}
	for _, c := range []struct {
		name  string
		a     assertion
		cols  []string
		rows  [][]string
		err   error
		match bool
	}{
		{"same rows", assertion{rows: tsv("1\tNULL", "2\tx")}, nil, [][]string{{"1", sqlNull}, {"2", "x"}}, nil, true},
		{"NULL is not the text NULL", assertion{rows: tsv("NULL")}, nil, [][]string{{"NULL"}}, nil, false},
		{"the text NULL is not NULL", assertion{rows: [][]string{{"NULL"}}}, nil, [][]string{{sqlNull}}, nil, false},
		{"order", assertion{rows: column("1", "2")}, nil, column("2", "1"), nil, false},
		{"no rows wanted", assertion{}, nil, column("1"), nil, false},
		{"no rows", assertion{}, []string{"id"}, nil, nil, true},
		{"a row too few", assertion{rows: column("1", "2")}, nil, column("1"), nil, false},
		{"columns", assertion{columns: []string{"a", "a"}}, []string{"a", "b"}, nil, nil, false},
		{"plan line", assertion{contains: "IndexedTableAccess"}, nil, column(" └─ IndexedTableAccess(t)"), nil, true},
		{"plan line missing", assertion{contains: "IndexedTableAccess"}, nil, column(" └─ Table(t)"), nil, false},
		{"an error where rows are wanted", assertion{rows: column("1")}, nil, nil, duplicate, false},
		{"rows where an error is wanted", assertion{err: 1060}, nil, column("1"), nil, false},
		{"error number", assertion{err: 1060, state: "42S21", message: "Duplicate column name 'a'"}, nil, nil, duplicate, true},
		{"another number", assertion{err: 1061}, nil, nil, duplicate, false},
		{"another state", assertion{err: 1060, state: "42000"}, nil, nil, duplicate, false},
		{"another message", assertion{err: 1060, message: "Duplicate column name 'b'"}, nil, nil, duplicate, false},
		{"a message pattern", assertion{err: 1060, message: "Duplicate * name '*'"}, nil, nil, duplicate, true},
		{"a pattern is anchored", assertion{err: 1060, message: "column name"}, nil, nil, duplicate, false},
		{"a message too long", assertion{err: 1060, maxMessage: 10}, nil, nil, duplicate, false},
		{"any error", assertion{fails: true}, nil, nil, duplicate, true},
		{"no error where one is wanted", assertion{fails: true}, nil, nil, nil, false},
		{"not a server error", assertion{err: 1060}, nil, nil, errors.New("connection refused"), false},
	} {
		if got := mismatch(c.a, c.cols, c.rows, c.err); (got == "") != c.match {
			t.Errorf("%s: mismatch %q, want a match: %v", c.name, got, c.match)
		}
	}
}

// TestDocEngineCorrectionsNameExistingTests: every test docs/engine-corrections.md names
// exists in integration/: TestX as a test function, TestX/Y as the test function TestX and a
// script named Y.
func TestDocEngineCorrectionsNameExistingTests(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(docsDir, "engine-corrections.md"))
	if err != nil {
		t.Fatal(err)
	}
	funcs, scripts := map[string]bool{}, map[string]bool{}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				funcs[fn.Name.Name] = true
			}
		}
		// A script's name is the name field of a scriptTest literal, written as one or as an
		// element of a []scriptTest.
		nameOf := func(lit *ast.CompositeLit) {
			for _, kv := range lit.Elts {
				if kv, ok := kv.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "name" {
					if s, ok := kv.Value.(*ast.BasicLit); ok {
						scripts[strings.Trim(s.Value, `"`)] = true
					}
				}
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if fmt.Sprint(lit.Type) == "scriptTest" {
				nameOf(lit)
			}
			if at, ok := lit.Type.(*ast.ArrayType); ok && fmt.Sprint(at.Elt) == "scriptTest" {
				for _, e := range lit.Elts {
					if elem, ok := e.(*ast.CompositeLit); ok && elem.Type == nil {
						nameOf(elem)
					}
				}
			}
			return true
		})
	}
	// A -run pattern must match a test function (and a script after a slash), as go test
	// matches them.
	runs := regexp.MustCompile(`-run '([^']*)'`)
	for _, m := range runs.FindAllStringSubmatch(string(text), -1) {
		for _, alt := range strings.Split(m[1], "|") {
			fn, script, _ := strings.Cut(alt, "/")
			if !slices.ContainsFunc(slices.Collect(maps.Keys(funcs)), regexp.MustCompile(fn).MatchString) ||
				(script != "" && !slices.ContainsFunc(slices.Collect(maps.Keys(scripts)), regexp.MustCompile(script).MatchString)) {
				t.Errorf("docs/engine-corrections.md runs -run %s, which matches no test of integration/", alt)
			}
		}
	}
	named := regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9_]*(/[A-Za-z0-9_]+)?`).FindAllString(runs.ReplaceAllString(string(text), ""), -1)
	if len(named) == 0 {
		t.Fatal("docs/engine-corrections.md names no test")
	}
	for _, name := range named {
		fn, script, _ := strings.Cut(name, "/")
		if !funcs[fn] || (script != "" && !scripts[script]) {
			t.Errorf("docs/engine-corrections.md names %s, which is not a test of integration/", name)
		}
	}
}
