package overload

import (
	"os"
	"testing"
	"time"
)

// TestCgroups reads each cgroup fixture twice, one second apart, with the
// CPU usage advanced in between, and checks the cgroup rows and the CPU and
// memory warning values.
func TestCgroups(t *testing.T) {
	const gib = 1 << 30
	rss := float64(4096 * os.Getpagesize()) // the fixture process's stat: 4096 resident pages
	memTotal := float64(16384000 * 1024)
	tests := []struct {
		name            string
		cgroupCase      string
		writes          map[string]string // before the first sample
		advance         map[string]string // before the second sample
		maxServerMemory uint64
		wantRows        map[string]float64 // cgroup rows; absent means absent
		wantMemory      float64
		wantUsed        float64
		wantLimit       float64
		wantCPUBusy     float64 // host fixture: 0.4 busy
	}{
		{
			name: "v1 with limits", cgroupCase: "cgroup-v1",
			advance:    map[string]string{"cgroup/cpu,cpuacct/kubepods/pod1/cpuacct.usage": "5750000000\n"},
			wantRows:   map[string]float64{"CGroupMemoryTotal": 2 * gib, "CGroupMemoryUsed": gib, "CGroupMaxCPU": 1.5},
			wantMemory: 0.375, wantUsed: 0.75 * gib, wantLimit: 2 * gib,
			wantCPUBusy: 0.5,
		},
		{
			name: "v1 with max_server_memory_usage", cgroupCase: "cgroup-v1", maxServerMemory: gib,
			advance:    map[string]string{"cgroup/cpu,cpuacct/kubepods/pod1/cpuacct.usage": "5750000000\n"},
			wantRows:   map[string]float64{"CGroupMemoryTotal": 2 * gib, "CGroupMemoryUsed": gib, "CGroupMaxCPU": 1.5},
			wantMemory: 0.75, wantUsed: 0.75 * gib, wantLimit: gib,
			wantCPUBusy: 0.5,
		},
		{
			name: "v1 unlimited", cgroupCase: "cgroup-v1-unlimited",
			wantRows:   map[string]float64{},
			wantMemory: rss / memTotal, wantUsed: rss, wantLimit: memTotal,
			wantCPUBusy: 0.4,
		},
		{
			name: "v1 unlimited with max_server_memory_usage", cgroupCase: "cgroup-v1-unlimited", maxServerMemory: 64 << 20,
			wantRows:   map[string]float64{},
			wantMemory: rss / (64 << 20), wantUsed: rss, wantLimit: 64 << 20,
			wantCPUBusy: 0.4,
		},
		{
			name: "v1 in a container, path not under the mount", cgroupCase: "cgroup-v1-container",
			advance:    map[string]string{"cgroup/cpu,cpuacct/cpuacct.usage": "250001000\n"},
			wantRows:   map[string]float64{"CGroupMemoryTotal": gib, "CGroupMemoryUsed": 0.5 * gib, "CGroupMaxCPU": 0.5},
			wantMemory: 0.5, wantUsed: 0.5 * gib, wantLimit: gib,
			wantCPUBusy: 0.5,
		},
		{
			name: "v2 with limits", cgroupCase: "cgroup-v2",
			advance:    map[string]string{"cgroup/system.slice/overloadsql.service/cpu.stat": "usage_usec 8000000\n"},
			wantRows:   map[string]float64{"CGroupMemoryTotal": 4 * gib, "CGroupMemoryUsed": 3 * gib, "CGroupMaxCPU": 2},
			wantMemory: 0.5, wantUsed: 2 * gib, wantLimit: 4 * gib,
			wantCPUBusy: 0.5,
		},
		{
			name: "v2 quota above the host's CPUs counts the host's", cgroupCase: "cgroup-v2",
			writes:     map[string]string{"cgroup/system.slice/overloadsql.service/cpu.max": "800000 100000\n"},
			advance:    map[string]string{"cgroup/system.slice/overloadsql.service/cpu.stat": "usage_usec 9000000\n"},
			wantRows:   map[string]float64{"CGroupMemoryTotal": 4 * gib, "CGroupMemoryUsed": 3 * gib, "CGroupMaxCPU": 8},
			wantMemory: 0.5, wantUsed: 2 * gib, wantLimit: 4 * gib,
			wantCPUBusy: 0.5,
		},
		{
			name: "v2 unlimited", cgroupCase: "cgroup-v2-unlimited",
			wantRows:   map[string]float64{},
			wantMemory: rss / memTotal, wantUsed: rss, wantLimit: memTotal,
			wantCPUBusy: 0.4,
		},
		{
			name: "v2 root cgroup has no limit files", cgroupCase: "cgroup-v2-root",
			wantRows:   map[string]float64{},
			wantMemory: rss / memTotal, wantUsed: rss, wantLimit: memTotal,
			wantCPUBusy: 0.4,
		},
		{
			name: "cgroup files missing", cgroupCase: "",
			writes:     map[string]string{"proc/self/cgroup": "4:memory:/a\n3:cpu,cpuacct:/a\n0::/a\n"},
			wantRows:   map[string]float64{},
			wantMemory: rss / memTotal, wantUsed: rss, wantLimit: memTotal,
			wantCPUBusy: 0.4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "proc", tt.cgroupCase)
			for path, content := range tt.writes {
				f.write(path, content)
			}
			s := f.sampler(Settings{MaxServerMemory: tt.maxServerMemory})
			s.Sample()
			f.now = f.now.Add(time.Second)
			for path, content := range tt.advance {
				f.write(path, content)
			}
			f.write("proc/stat", "cpu  1060 140 530 8240 70 15 25 0 0 0\ncpu0 0 0 0 0\ncpu1 0 0 0 0\ncpu2 0 0 0 0\ncpu3 0 0 0 0\n")
			s.Sample()
			snap := s.Snapshot()
			if len(snap.Unavailable) > 0 {
				t.Errorf("unavailable: %+v", snap.Unavailable)
			}
			for _, name := range []string{"CGroupMemoryTotal", "CGroupMemoryUsed", "CGroupMaxCPU"} {
				got, ok := metric(snap, name)
				want, wantOK := tt.wantRows[name]
				if ok != wantOK || !near(got, want) {
					t.Errorf("%s = %g (present %v), want %g (present %v)", name, got, ok, want, wantOK)
				}
			}
			if !snap.MemoryKnown || !near(snap.Memory, tt.wantMemory) || float64(snap.MemoryUsed) != tt.wantUsed || float64(snap.MemoryLimit) != tt.wantLimit {
				t.Errorf("memory %g (%v), %d of %d; want %g, %g of %g", snap.Memory, snap.MemoryKnown, snap.MemoryUsed, snap.MemoryLimit, tt.wantMemory, tt.wantUsed, tt.wantLimit)
			}
			if !snap.CPUBusyKnown || !near(snap.CPUBusy, tt.wantCPUBusy) {
				t.Errorf("CPU busy %g (%v), want %g", snap.CPUBusy, snap.CPUBusyKnown, tt.wantCPUBusy)
			}
		})
	}
}

func TestResolveCgroup(t *testing.T) {
	tests := []struct {
		name       string
		cgroupCase string
		want       cgroupDirs
	}{
		{name: "v1", cgroupCase: "cgroup-v1", want: cgroupDirs{
			memory: "cgroup/memory/kubepods/pod1", cpu: "cgroup/cpu,cpuacct/kubepods/pod1", cpuacct: "cgroup/cpu,cpuacct/kubepods/pod1"}},
		{name: "v1 separate cpu and cpuacct mounts", cgroupCase: "cgroup-v1-unlimited", want: cgroupDirs{
			memory: "cgroup/memory/process_api/66c1", cpu: "cgroup/cpu", cpuacct: "cgroup/cpuacct"}},
		{name: "v1 container", cgroupCase: "cgroup-v1-container", want: cgroupDirs{
			memory: "cgroup/memory", cpu: "cgroup/cpu,cpuacct", cpuacct: "cgroup/cpu,cpuacct"}},
		{name: "v2", cgroupCase: "cgroup-v2", want: cgroupDirs{
			memory: "cgroup/system.slice/overloadsql.service", memoryV2: true, cpu: "cgroup/system.slice/overloadsql.service", cpuV2: true}},
		{name: "v2 root", cgroupCase: "cgroup-v2-root", want: cgroupDirs{
			memory: "cgroup", memoryV2: true, cpu: "cgroup", cpuV2: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "proc", tt.cgroupCase)
			got, err := resolveFixtureCgroup(f)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			for _, p := range []*string{&want.memory, &want.cpu, &want.cpuacct} {
				if *p != "" {
					*p = f.path(*p)
				}
			}
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

// resolveFixtureCgroup reads the fixture process's cgroup file and resolves it.
func resolveFixtureCgroup(f *fixture) (cgroupDirs, error) {
	cgroups, err := readCgroups(newProcSource(f.path("proc")))
	if err != nil {
		return cgroupDirs{}, err
	}
	return resolveCgroup(cgroups, f.path("cgroup"))
}

func TestResolveCgroupErrors(t *testing.T) {
	f := newFixture(t, "", "")
	f.linkSelf()
	if _, err := resolveFixtureCgroup(f); err == nil {
		t.Error("no error without /proc/self/cgroup")
	}
	f.write("proc/self/cgroup", "garbage\n")
	if _, err := resolveFixtureCgroup(f); err == nil {
		t.Error("no error for a garbage line")
	}
	f.write("proc/self/cgroup", "1:memory:x\n")
	if _, err := resolveFixtureCgroup(f); err == nil {
		t.Error("no error for a relative path")
	}
	f.write("proc/self/cgroup", "1:memory:/x\n0::/x\n")
	got, err := resolveFixtureCgroup(f)
	if err != nil || got != (cgroupDirs{}) {
		t.Errorf("no mounts: got %+v, %v; want no directories", got, err)
	}
}
