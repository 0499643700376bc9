package storage

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
)

// runner runs SQL on a store through the engine, one session, with the statement boundaries
// the server sets.
type runner struct {
	t     testing.TB
	store *Store
	e     *statementEngine
	ctx   *sql.Context
	sess  *Session
}

func newRunner(t testing.TB, s *Store, db string) *runner {
	a := analyzer.NewDefault(s.Provider())
	a.Catalog.MySQLDb.AddRootAccount()
	a.Catalog.InfoSchema = information_schema.NewInformationSchemaDatabase()
	e := sqle.New(a, new(sqle.Config))
	a.Runner = e
	a.ExecBuilder.Runner = e
	sess := s.NewSession(enginetest.NewBaseSession())
	ctx := sql.NewContext(context.Background(), sql.WithSession(sess))
	ctx.SetCurrentDatabase(db)
	return &runner{t: t, store: s, e: &statementEngine{Engine: e}, ctx: ctx, sess: sess}
}

// exec runs q and returns its rows.
func (r *runner) exec(q string) ([]sql.Row, error) {
	ctx := r.ctx.WithQuery(q)
	_, iter, _, err := r.e.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	for {
		row, err := iter.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = iter.Close(ctx)
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, iter.Close(ctx)
}

func (r *runner) must(q string) []sql.Row {
	r.t.Helper()
	rows, err := r.exec(q)
	if err != nil {
		r.t.Fatalf("%s: %v", q, err)
	}
	return rows
}

func (r *runner) close() { r.sess.Close() }

// memStore opens a store with o on an in-memory filesystem and a runner on its main database;
// both close when the test ends.
func memStore(t testing.TB, o Options) (*Store, *runner) {
	t.Helper()
	o.FS = vfs.NewMem()
	s, err := Open("data", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	r := newRunner(t, s, "main")
	t.Cleanup(r.close)
	return s, r
}

func rowsString(rows []sql.Row) string {
	return fmt.Sprint(rows)
}
