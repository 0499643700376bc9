package data

import (
	"errors"
	"fmt"
	"testing"

	"overloadsql/storage/kv"
)

// Each way a data directory fails to open has its own exit code, also when the error is
// wrapped.
func TestStoreExitCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{kv.ErrLocked, ExitStoreLocked},
		{fmt.Errorf("%w: data: resource temporarily unavailable", kv.ErrLocked), ExitStoreLocked},
		{kv.ErrNewerFormat, ExitStoreNewerFormat},
		{kv.ErrCorrupt, ExitStoreCorrupt},
		{kv.ErrUnwritable, ExitStoreUnwritable},
		{kv.ErrNotDataDir, ExitStoreNotDataDir},
		{errors.New("something else"), ExitStoreOther},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	seen := map[int]bool{}
	for _, code := range []int{ExitStoreLocked, ExitStoreNewerFormat, ExitStoreCorrupt, ExitStoreUnwritable, ExitStoreNotDataDir, ExitStoreOther} {
		if seen[code] || code == 0 || code == 1 || code == 2 {
			t.Errorf("exit code %d is not distinct from the others and from 0, 1 and 2", code)
		}
		seen[code] = true
	}
}
