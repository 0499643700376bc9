package integration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealCPUTestsAreGuarded keeps the rule that makes the suite safe to run with packages in
// parallel: a test whose figures come from real CPU contention is named TestReal... and starts
// with realCPU(t), so it runs only in the step that runs such tests alone (.ci/run). Every
// other test must hold whatever else runs on the cores.
func TestRealCPUTestsAreGuarded(t *testing.T) {
	for _, dir := range []string{".", "../overload"} {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("test files in %s: %v", dir, err)
		}
		for _, file := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "TestReal") || fn.Name.Name == "TestRealCPUTestsAreGuarded" {
					continue
				}
				if !startsWithRealCPU(fn.Body) {
					t.Errorf("%s: %s does not start with realCPU(t)", file, fn.Name.Name)
				}
			}
		}
	}
}

func startsWithRealCPU(body *ast.BlockStmt) bool {
	if body == nil || len(body.List) == 0 {
		return false
	}
	expr, ok := body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := expr.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	name, ok := call.Fun.(*ast.Ident)
	return ok && name.Name == "realCPU"
}
