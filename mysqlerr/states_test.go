package mysqlerr

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
)

func TestNewTakesTheListedState(t *testing.T) {
	for _, c := range []struct {
		num   int
		state string
	}{
		{ERServerOverloaded, "HY000"},
		{mysql.ERConCount, "08004"},
		{mysql.ERAccessDeniedError, "28000"},
		{ERTableAccessDenied, "42000"},
		{mysql.ERWarnDataOutOfRange, "22003"},
		{ERGISInvalidData, "22023"},
		{mysql.ERQueryInterrupted, "70100"},
		{mysql.ERNetPacketTooLarge, "08S01"},
		{9999, "HY000"}, // not listed: MySQL's general SQLSTATE
	} {
		err := New(c.num, "message %d", 1)
		if err.Num != c.num || err.State != c.state || err.Message != "message 1" {
			t.Errorf("New(%d) = %d (%s) %q, want %d (%s) %q", c.num, err.Num, err.State, err.Message, c.num, c.state, "message 1")
		}
		if got := State(c.num); got != c.state {
			t.Errorf("State(%d) = %s, want %s", c.num, got, c.state)
		}
	}
}

// TestEveryDeclaredNumberIsListed keeps numbers.go and states.go together: a number declared
// for overloadsql to send has its SQLSTATE in states.
func TestEveryDeclaredNumberIsListed(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "numbers.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			lit, ok := spec.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.INT {
				t.Errorf("%s is not an integer literal", name.Name)
				continue
			}
			num, _ := strconv.Atoi(lit.Value)
			declared++
			if _, ok := states[num]; !ok {
				t.Errorf("%s (%d) has no SQLSTATE in states", name.Name, num)
			}
		}
		return false
	})
	if declared == 0 {
		t.Fatal("numbers.go declares no numbers")
	}
}

func TestStatesAreSQLStates(t *testing.T) {
	for num, state := range states {
		if len(state) != 5 {
			t.Errorf("states[%d] = %q, not five characters", num, state)
		}
	}
}
