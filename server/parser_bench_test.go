package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkParseMultiRowInsert: the server's parse of an INSERT of 1000 rows of literals, the
// engine's parser and what the server does to its tree (settle).
//
//	go test ./server -run '^$' -bench ParseMultiRowInsert -benchmem -count 3
func BenchmarkParseMultiRowInsert(b *testing.B) {
	var q strings.Builder
	q.WriteString("INSERT INTO t (id, d, s) VALUES ")
	for i := range 1000 {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "(%d, %d.25, 'row %d')", i, i, i)
	}
	p := systemParser{next: sql.NewMysqlParser()}
	for b.Loop() {
		if _, err := p.ParseSimple(q.String()); err != nil {
			b.Fatal(err)
		}
	}
}
