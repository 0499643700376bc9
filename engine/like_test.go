package engine

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
)

// likeMatch answers as the engine's LikeMatcher, on random texts and patterns of a few
// characters (upper and lower case, an accent, the wildcards and the escape character), in a
// binary and a case- and accent-insensitive collation.
func TestLikeMatchAgreesWithTheEngine(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	textChars := []string{"a", "b", "A", "á", "%", "_", "\\"}
	patternChars := []string{"a", "b", "A", "á", "%", "%", "_", "\\", "!"}
	random := func(chars []string, n int) string {
		var b strings.Builder
		for range rng.Intn(n + 1) {
			b.WriteString(chars[rng.Intn(len(chars))])
		}
		return b.String()
	}
	matched := 0
	for _, collation := range []sql.CollationID{sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_0900_ai_ci} {
		for range 200000 {
			text, pattern := random(textChars, 8), random(patternChars, 6)
			escape := '\\'
			if rng.Intn(4) == 0 {
				escape = '!'
			}
			m, err := expression.ConstructLikeMatcher(collation, pattern, escape)
			if err != nil {
				continue
			}
			want := m.Match(text)
			if want {
				matched++
			}
			got, err := likeMatch(context.Background(), collation, pattern, escape, text)
			if err != nil || got != want {
				t.Fatalf("%q LIKE %q ESCAPE %q (%s): got %v, %v; the engine %v", text, pattern, escape, collation, got, err, want)
			}
		}
	}
	if matched < 10000 {
		t.Errorf("only %d of the random texts matched: the comparison says little", matched)
	}
	// A text the engine's matcher cannot read matches nothing.
	if got, _ := likeMatch(context.Background(), sql.Collation_utf8mb4_0900_bin, "%", '\\', "a\xffb"); got {
		t.Error(`"a\xffb" LIKE '%' matched`)
	}
}

// A large match stops when its statement's context is done.
func TestLikeMatchStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text := strings.Repeat("a", 200000)
	pattern := "%" + strings.Repeat("a", 1000) + "_b%"
	if _, err := likeMatch(ctx, sql.Collation_utf8mb4_0900_bin, pattern, '\\', text); err == nil {
		t.Error("a cancelled match went on")
	}
	// Without '_' the same search reads the text once.
	got, err := likeMatch(context.Background(), sql.Collation_utf8mb4_0900_ai_ci, "%"+strings.Repeat("A", 100000)+"b%", '\\', text)
	if err != nil || got {
		t.Errorf("got %v, %v; want false", got, err)
	}
}
