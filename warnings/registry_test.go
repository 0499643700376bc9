package warnings

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"
)

var epoch = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return epoch.Add(d) }

func TestRegistryRaiseUpserts(t *testing.T) {
	reg := NewRegistry()
	reg.Raise(at(0), Warning{Key: "reload", Resource: "config", Message: "first", MessageFormat: "f {}", Value: 2,
		RaisedAt: at(time.Hour), Peak: 99}) // caller-supplied timestamps and peak are ignored
	reg.Raise(at(time.Second), Warning{Key: "reload", Resource: "settings", Message: "second", MessageFormat: "s {}", Value: 5})
	reg.Raise(at(2*time.Second), Warning{Key: "reload", Resource: "settings", Message: "third", MessageFormat: "t {}", Value: 3})

	want := Warning{Key: "reload", Resource: "settings", Message: "third", MessageFormat: "t {}",
		RaisedAt: at(0), UpdatedAt: at(2 * time.Second), Value: 3, Peak: 5}
	got := reg.List()
	if len(got) != 1 || got[0] != want {
		t.Fatalf("List() = %+v, want [%+v]", got, want)
	}
}

func TestRegistryRefreshNeverCreates(t *testing.T) {
	reg := NewRegistry()
	if reg.refresh(at(0), Warning{Key: "cpu", Value: 1}) {
		t.Fatal("refresh of a missing warning reported true")
	}
	if reg.Has("cpu") {
		t.Fatal("refresh created a warning")
	}
	reg.Raise(at(0), Warning{Key: "cpu", Value: 1})
	if !reg.refresh(at(time.Second), Warning{Key: "cpu", Value: 2}) {
		t.Fatal("refresh of an existing warning reported false")
	}
	if got := reg.List()[0]; got.Value != 2 || got.Peak != 2 || got.RaisedAt != at(0) {
		t.Fatalf("after refresh: %+v", got)
	}
}

func TestRegistryListOrder(t *testing.T) {
	reg := NewRegistry()
	raises := []struct {
		at  time.Duration
		key string
	}{
		{3 * time.Second, "a"},
		{time.Second, "simulation"},
		{time.Second, "reload"},
		{2 * time.Second, "cpu"},
		{5 * time.Second, "reload"}, // an update keeps its place
	}
	for _, r := range raises {
		reg.Raise(at(r.at), Warning{Key: r.key})
	}
	var keys []string
	for _, w := range reg.List() {
		keys = append(keys, w.Key)
	}
	if want := []string{"reload", "simulation", "cpu", "a"}; !slices.Equal(keys, want) {
		t.Fatalf("List() keys = %q, want %q", keys, want)
	}
}

func TestRegistryListIsACopy(t *testing.T) {
	reg := NewRegistry()
	reg.Raise(at(0), Warning{Key: "cpu", Message: "original"})
	reg.List()[0].Message = "changed"
	if got := reg.List()[0].Message; got != "original" {
		t.Fatalf("registry changed through List(): message %q", got)
	}
}

func TestRegistryClearHasTruncate(t *testing.T) {
	reg := NewRegistry()
	reg.Raise(at(0), Warning{Key: "cpu", Message: "High CPU"})
	reg.Raise(at(0), Warning{Key: "memory", Message: "High memory"})
	reg.SetSuppress(regexp.MustCompile("memory"))

	if !reg.Has("memory") {
		t.Fatal("Has(memory) = false for a suppressed warning, want true")
	}
	if !reg.Clear("cpu") {
		t.Fatal("Clear(cpu) = false, want true")
	}
	if reg.Clear("cpu") {
		t.Fatal("second Clear(cpu) = true, want false")
	}
	if reg.Has("cpu") {
		t.Fatal("Has(cpu) = true after Clear")
	}
	reg.Truncate()
	if reg.Has("memory") {
		t.Fatal("Truncate kept a suppressed warning")
	}
	if n := reg.Len(); n != 0 {
		t.Fatalf("Len() = %d after Truncate, want 0", n)
	}
}

func TestRegistrySuppress(t *testing.T) {
	reg := NewRegistry()
	reg.Raise(at(0), Warning{Key: "cpu", Message: "High CPU usage: 95% busy"})
	reg.Raise(at(time.Second), Warning{Key: "memory", Message: "High server memory usage: 9.12 GB"})
	reg.Raise(at(2*time.Second), Warning{Key: "simulation", Message: "Overload simulation is active: x"})

	tests := []struct {
		name     string
		suppress *regexp.Regexp
		want     []string
	}{
		{"none", nil, []string{"cpu", "memory", "simulation"}},
		{"one", regexp.MustCompile("^Overload simulation"), []string{"cpu", "memory"}},
		{"two", regexp.MustCompile("^High"), []string{"simulation"}},
		{"matches a key but not a message", regexp.MustCompile("^cpu$"), []string{"cpu", "memory", "simulation"}},
		{"all", regexp.MustCompile(""), nil},
		{"none again", nil, []string{"cpu", "memory", "simulation"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg.SetSuppress(tt.suppress)
			var keys []string
			for _, w := range reg.List() {
				keys = append(keys, w.Key)
			}
			if !slices.Equal(keys, tt.want) {
				t.Errorf("List() keys = %q, want %q", keys, tt.want)
			}
			if reg.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", reg.Len(), len(tt.want))
			}
		})
	}
}

// TestRegistryConcurrentUse is for -race: writers, readers and a truncater at
// once, each a bounded loop, then the ordering invariant.
func TestRegistryConcurrentUse(t *testing.T) {
	reg := NewRegistry()
	const rounds = 500
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range rounds {
				key := fmt.Sprintf("source-%d-%d", g, i%7)
				reg.Raise(at(time.Duration(i)*time.Millisecond), Warning{Key: key, Message: key, Value: float64(i)})
				if i%3 == 0 {
					reg.Clear(key)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range rounds {
			reg.List()
			reg.Len()
			reg.Has("source-0-0")
			if i%50 == 0 {
				reg.Truncate()
				reg.SetSuppress(regexp.MustCompile("source-1-"))
			}
		}
	})
	wg.Wait()

	list := reg.List()
	sorted := slices.IsSortedFunc(list, func(a, b Warning) int {
		return cmp.Or(a.RaisedAt.Compare(b.RaisedAt), cmp.Compare(a.Key, b.Key))
	})
	if !sorted {
		t.Fatalf("List() not ordered by RaisedAt then Key: %+v", list)
	}
	if reg.Len() != len(list) {
		t.Fatalf("Len() = %d, List() has %d", reg.Len(), len(list))
	}
}

func TestRegistryObserverSeesEveryChange(t *testing.T) {
	type seen struct {
		at      time.Time
		change  Change
		key     string
		message string
	}
	reg := NewRegistry()
	reg.now = func() time.Time { return at(time.Minute) }
	var got []seen
	reg.SetObserver(func(when time.Time, c Change, w Warning) {
		got = append(got, seen{when, c, w.Key, w.Message})
	})
	reg.SetSuppress(regexp.MustCompile("hidden"))
	reg.Raise(at(0), Warning{Key: "cpu", Message: "high"})
	reg.Raise(at(time.Second), Warning{Key: "cpu", Message: "higher"})
	reg.Raise(at(time.Second), Warning{Key: "x", Message: "hidden one"}) // suppressed: not seen
	reg.Clear("cpu")
	reg.Clear("cpu") // gone already: nothing
	reg.Raise(at(2*time.Second), Warning{Key: "memory", Message: "m"})
	reg.Truncate()
	want := []seen{
		{at(0), Raised, "cpu", "high"},
		{at(time.Second), Updated, "cpu", "higher"},
		{at(time.Minute), Cleared, "cpu", "higher"},
		{at(2 * time.Second), Raised, "memory", "m"},
		{at(time.Minute), Cleared, "memory", "m"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("observer saw\n%+v\nwant\n%+v", got, want)
	}
}
