package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestWritesFromManyGoroutinesAreKeptWhole: concurrent writers and a reader (run with -race)
// lose no write and split none.
func TestWritesFromManyGoroutinesAreKeptWhole(t *testing.T) {
	var b Buffer
	const writers, lines = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := strings.Repeat(string(rune('a'+w)), 10) + "\n"
			for range lines {
				if n, err := b.Write([]byte(line)); n != len(line) || err != nil {
					t.Errorf("Write = %d, %v", n, err)
				}
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, l := range got {
		if len(l) != 10 || strings.Count(l, l[:1]) != 10 {
			t.Fatalf("a line mixes writes: %q", l)
		}
	}
}
