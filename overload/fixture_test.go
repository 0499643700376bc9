package overload

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture is a writable copy of testdata/proc (and optionally one cgroup case)
// under a temporary root, with a fake clock and a synthetic Go run-queue wait.
// Its process is fixturePID, and proc/self links to it as in a real /proc.
// Tests rewrite its files between samples; the readers that keep their files
// open see the new content, because os.WriteFile rewrites the same inode.
type fixture struct {
	t      *testing.T
	root   string
	now    time.Time
	goWait *fakeGoWait
	log    bytes.Buffer
	busy   time.Duration // cumulative busy time written by boundStep
	// processCPU is the synthetic getrusage CPU time, ns.
	processCPU uint64
}

// newFixture copies testdata/<procCase> as the proc root and
// testdata/<cgroupCase> as the cgroup root, each when not empty.
func newFixture(t *testing.T, procCase, cgroupCase string) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir(), now: time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC), goWait: &fakeGoWait{}}
	if procCase != "" {
		copyDir(t, filepath.Join("testdata", procCase), f.path("proc"))
		f.linkSelf()
	}
	if cgroupCase != "" {
		copyDir(t, filepath.Join("testdata", cgroupCase, "root"), f.path("cgroup"))
		content, err := os.ReadFile(filepath.Join("testdata", cgroupCase, "self-cgroup"))
		if err != nil {
			t.Fatal(err)
		}
		f.write("proc/self/cgroup", string(content))
	}
	return f
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatalf("copy fixture %s: %v", src, err)
	}
}

func (f *fixture) path(rel string) string { return filepath.Join(f.root, rel) }

// fixturePID is the process of the fixtures' /proc.
const fixturePID = "4242"

// linkSelf makes proc/self the link to the fixture's process that procfs
// follows to find the own process.
func (f *fixture) linkSelf() {
	f.t.Helper()
	if _, err := os.Lstat(f.path("proc/self")); err == nil {
		return
	}
	if err := os.MkdirAll(f.path("proc/"+fixturePID), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(fixturePID, f.path("proc/self")); err != nil {
		f.t.Fatal(err)
	}
}

// write replaces a file's content in place (creating it and its directory if
// needed).
func (f *fixture) write(rel, content string) {
	f.t.Helper()
	if strings.HasPrefix(rel, "proc/self/") {
		f.linkSelf()
	}
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remove(rel string) {
	f.t.Helper()
	if err := os.RemoveAll(f.path(rel)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) sampler(settings Settings) *Sampler {
	s := newSampler(Config{
		ProcRoot:   f.path("proc"),
		CgroupRoot: f.path("cgroup"),
		Clock:      func() time.Time { return f.now },
		Logger:     slog.New(slog.NewTextHandler(&f.log, nil)),
		Settings:   settings,
	}, f.goWait)
	s.readers.processCPU = func() (uint64, error) { return f.processCPU, nil }
	f.t.Cleanup(s.Close)
	return s
}

func (f *fixture) logLines(substr string) int { return strings.Count(f.log.String(), substr) }

// fakeGoWait is a synthetic Go run-queue wait counter.
type fakeGoWait struct {
	ns  uint64
	err error
}

func (g *fakeGoWait) read() (uint64, error) { return g.ns, g.err }

// metric returns the value of the row name and whether it is present.
func metric(s *Snapshot, name string) (float64, bool) {
	for _, m := range s.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

func sources(u []Unavailable) []string {
	var names []string
	for _, x := range u {
		names = append(names, x.Source)
	}
	return names
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}
