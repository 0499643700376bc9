package server

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

func TestPreparedStatementNamesAreFolded(t *testing.T) {
	p := systemParser{next: sql.NewMysqlParser()}
	for _, c := range []struct {
		query string
		want  string
	}{
		{"PREPARE Stmt1 FROM 'SELECT 1'", "stmt1"},
		{"EXECUTE STMT1", "stmt1"},
		{"EXECUTE `sTmT1` USING @a", "stmt1"},
		{"DEALLOCATE PREPARE Stmt1", "stmt1"},
		{"DROP PREPARE `ÄBC`", "äbc"},
	} {
		stmt, err := p.ParseSimple(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		var got string
		switch s := stmt.(type) {
		case *ast.Prepare:
			got = s.Name
		case *ast.Execute:
			got = s.Name
		case *ast.Deallocate:
			got = s.Name
		}
		if got != c.want {
			t.Errorf("%s: name %q, want %q", c.query, got, c.want)
		}
	}
}
