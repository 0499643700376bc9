package functions

import (
	"context"
	"errors"
	"testing"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// collatedProvider is the engine's in-memory provider, with the collated CREATE DATABASE the
// provider's interface asks for (unused here).
type collatedProvider struct {
	sql.MutableDatabaseProvider
}

func (collatedProvider) CreateCollatedDatabase(*sql.Context, string, sql.CollationID) error {
	return errors.New("collatedProvider: no collated databases in the tests")
}

func databases() sql.CollatedDatabaseProvider {
	return collatedProvider{memory.NewDBProviderWithOpts()}
}

// repeatCall is REPEAT('ab', 3) as p makes it.
func repeatCall(t *testing.T, ctx *sql.Context, p BoundedProvider) sql.Expression {
	t.Helper()
	f, ok := p.Function(ctx, "", "REPEAT")
	if !ok {
		t.Fatal("the provider does not answer REPEAT")
	}
	call, err := f.NewInstance(ctx, []sql.Expression{
		expression.NewLiteral("ab", types.LongText),
		expression.NewLiteral(int64(3), types.Int64),
	})
	if err != nil {
		t.Fatal(err)
	}
	return call
}

func TestBoundedProviderAnswersTheBoundedNames(t *testing.T) {
	ctx := sql.NewEmptyContext()
	p := NewBoundedProvider(databases(), func() int { return 1 << 20 }, nil)
	for _, name := range []string{"repeat", "LPAD", "json_object", "JSON_ARRAYAGG"} {
		if _, ok := p.Function(ctx, "", name); !ok {
			t.Errorf("the provider does not answer %s", name)
		}
	}
	if _, ok := p.Function(ctx, "", "abs"); ok {
		t.Error("the provider answers abs, which is the engine's built-in")
	}
	if v, err := repeatCall(t, ctx, p).Eval(ctx, nil); err != nil || v != "ababab" {
		t.Errorf("REPEAT('ab', 3) = %v, %v; want ababab", v, err)
	}
}

func TestBoundedCallOverTheLimitIsNull(t *testing.T) {
	ctx := sql.NewEmptyContext()
	p := NewBoundedProvider(databases(), func() int { return 5 }, nil)
	v, err := repeatCall(t, ctx, p).Eval(ctx, nil)
	if err != nil || v != nil {
		t.Fatalf("REPEAT('ab', 3) over a limit of 5 = %v, %v; want NULL", v, err)
	}
	if w := ctx.Warnings(); len(w) != 1 || w[0].Code != 1301 {
		t.Errorf("warnings %v, want one 1301", w)
	}
}

func TestBoundedCallStopsWhenTheServerAsks(t *testing.T) {
	ctx := sql.NewEmptyContext()
	errStop := errors.New("stopped by the memory guard")
	p := NewBoundedProvider(databases(), func() int { return 1 << 20 }, func(context.Context) error { return errStop })
	if _, err := repeatCall(t, ctx, p).Eval(ctx, nil); !errors.Is(err, errStop) {
		t.Errorf("REPEAT on a stopped statement: %v, want %v", err, errStop)
	}
}

func TestOverrideComesBeforeTheBoundedFunctions(t *testing.T) {
	ctx := sql.NewEmptyContext()
	p := NewBoundedProvider(databases(), func() int { return 1 << 20 }, nil)
	e := sqle.NewDefault(p)
	own := sql.Function0{Name: "repeat", Fn: func(*sql.Context) sql.Expression { return expression.NewLiteral("own", types.LongText) }}
	Override(e, []sql.Function{own})
	f, ok := p.Function(ctx, "", "REPEAT")
	if !ok {
		t.Fatal("the provider does not answer REPEAT")
	}
	if _, isOwn := f.(sql.Function0); !isOwn {
		t.Errorf("REPEAT is a %T after Override, want the given sql.Function0", f)
	}
}
