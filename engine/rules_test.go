package engine

import (
	"testing"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
)

// TestRuleTable: every rule of the table has its own id, above the engine's, a kind and a stage;
// the server's rule is left out when the server gives none.
func TestRuleTable(t *testing.T) {
	for _, c := range []struct {
		name    string
		renames ruleFunc
		want    int
	}{
		{"with the server's rule", showVariablesAsText, 16}, // any rule stands for the server's
		{"without", nil, 15},
	} {
		table := ruleTable(c.renames)
		if len(table) != c.want {
			t.Errorf("%s: %d rules, want %d", c.name, len(table), c.want)
		}
		ids := map[analyzer.RuleId]bool{}
		for _, r := range table {
			if ids[r.id] {
				t.Errorf("%s: id %d twice", c.name, r.id)
			}
			ids[r.id] = true
			if r.id <= 10_000 {
				t.Errorf("%s: id %d is among the engine's", c.name, r.id)
			}
			if r.kind != correction && r.kind != bound {
				t.Errorf("%s: rule %d is neither a correction nor a bound", c.name, r.id)
			}
			if r.stage != beforeDefault && r.stage != onceAfterAll {
				t.Errorf("%s: rule %d has no stage", c.name, r.id)
			}
			if r.apply == nil {
				t.Errorf("%s: rule %d has no function", c.name, r.id)
			}
		}
	}
}

// TestWrappedEngineRulesExist: every engine rule that engineRules wraps is in the engine's
// analyzer under its name; one renamed by an upgrade would be wrapped nowhere, silently.
func TestWrappedEngineRulesExist(t *testing.T) {
	a := analyzer.NewDefault(memory.NewDBProvider(memory.NewDatabase("main")))
	for _, r := range engineRules {
		found := false
		for _, batch := range a.Batches {
			for _, rule := range batch.Rules {
				if rule.Id.String() == r.name {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("the engine's analyzer has no rule %s to wrap", r.name)
		}
		if r.kind != correction && r.kind != bound {
			t.Errorf("%s is neither a correction nor a bound", r.name)
		}
	}
}
