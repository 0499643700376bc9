package loglimit

import (
	"testing"
	"time"
)

func TestTake(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	type step struct {
		at      time.Duration // since t0
		force   bool
		ok      bool
		refused int
	}
	for _, c := range []struct {
		name      string
		perSecond int
		steps     []step
	}{
		{"first line at once, then the burst, then refused", 2, []step{
			{0, false, true, 0}, {100 * time.Millisecond, false, true, 0},
			{200 * time.Millisecond, false, false, 0}, {999 * time.Millisecond, false, false, 0},
		}},
		{"the next window's first line reports the refused ones, once", 1, []step{
			{0, false, true, 0}, {10 * time.Millisecond, false, false, 0}, {20 * time.Millisecond, false, false, 0},
			{time.Second, false, true, 2}, {time.Second + time.Millisecond, false, false, 0},
			{2 * time.Second, false, true, 1}, {3 * time.Second, false, true, 0},
		}},
		{"a window starts at its first line, not on a fixed grid", 1, []step{
			{0, false, true, 0}, {1500 * time.Millisecond, false, true, 0},
			{2400 * time.Millisecond, false, false, 0}, {2500 * time.Millisecond, false, true, 1},
		}},
		{"a forced line passes the limit and counts in the window", 1, []step{
			{0, false, true, 0}, {10 * time.Millisecond, false, false, 0},
			{20 * time.Millisecond, true, true, 1}, {30 * time.Millisecond, true, true, 0},
			{40 * time.Millisecond, false, false, 0}, {time.Second, false, true, 1},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b Budget
			for i, s := range c.steps {
				refused, ok := b.Take(t0.Add(s.at), c.perSecond, s.force)
				if ok != s.ok || refused != s.refused {
					t.Errorf("step %d at %v (force %v): ok %v, refused %d; want %v, %d", i, s.at, s.force, ok, refused, s.ok, s.refused)
				}
			}
		})
	}
}
