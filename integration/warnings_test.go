package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

const fastWarnings = `
[resource_overload_warnings]
cpu_overload_warn_ratio = 0.9
cpu_overload_clear_ratio = 0.8
cpu_overload_duration_seconds = 2
memory_overload_warn_ratio = 0.9
memory_overload_clear_ratio = 0.8
memory_overload_duration_seconds = 2
`

// resourceWarnings returns the messages of system.warnings for one resource.
func resourceWarnings(t *testing.T, s *testServer, resource string) []string {
	t.Helper()
	return queryStrings(t, s.adminDB(), "SELECT message FROM system.warnings WHERE resource = ?", resource)
}

// hysteresisStory drives one resource through a warning's life (raised after the duration,
// held, cleared) with a simulation variable.
func hysteresisStory(t *testing.T, s *testServer, variable, resource string, wantMessage func(string) bool) {
	admin := s.adminDB()
	start := time.Now()
	mustExec(t, admin, "SET GLOBAL "+variable+" = 0.95")
	eventually(t, 15*time.Second, resource+" warning raised", func() (bool, string) {
		rows := resourceWarnings(t, s, resource)
		return len(rows) == 1, strings.Join(rows, "|")
	})
	// Never before the duration; the upper bound is loose, since on a loaded machine sampling and
	// polling may run late (the exact timing is unit-tested with a fake clock in package warnings).
	took := time.Since(start)
	if took < 2*time.Second || took > 6*time.Second {
		t.Errorf("%s warning raised %v after the value went to 0.95; want between 2 s and 6 s (duration 2 s)", resource, took)
	}
	if rows := resourceWarnings(t, s, resource); !wantMessage(rows[0]) {
		t.Errorf("%s warning message: %q", resource, rows[0])
	}

	// Between clear and warn: a raised warning stays (no flapping).
	mustExec(t, admin, "SET GLOBAL "+variable+" = 0.85")
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if rows := resourceWarnings(t, s, resource); len(rows) != 1 {
			t.Fatalf("%s warning gone at 0.85 (between clear 0.8 and warn 0.9): %q", resource, rows)
		}
	}

	// At or below clear it goes at once.
	mustExec(t, admin, "SET GLOBAL "+variable+" = 0.75")
	cleared := time.Now()
	eventually(t, 15*time.Second, resource+" warning cleared", func() (bool, string) {
		rows := resourceWarnings(t, s, resource)
		return len(rows) == 0, strings.Join(rows, "|")
	})
	if d := time.Since(cleared); d > 3*time.Second {
		t.Errorf("%s warning cleared %v after the value fell to 0.75; want at the next sample (within 3 s on a loaded machine)", resource, d)
	}
	mustExec(t, admin, "SET GLOBAL "+variable+" = -1")
}

func TestCPUWarningHysteresis(t *testing.T) {
	s := startServer(t, serverOptions{sections: fastWarnings})
	hysteresisStory(t, s, "simulated_cpu_busy_ratio", "cpu", func(msg string) bool {
		return msg == "High CPU usage: 95% busy (>= 90%) for at least 2 second(s)"
	})
}

func TestMemoryWarningHysteresis(t *testing.T) {
	s := startServer(t, serverOptions{sections: fastWarnings})
	hysteresisStory(t, s, "simulated_memory_overload_ratio", "memory", func(msg string) bool {
		return strings.HasPrefix(msg, "High server memory usage: ") && strings.HasSuffix(msg, " used (95%) for at least 2 second(s)")
	})
}

func TestSimulationWarningAndTruncate(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	admin := s.adminDB()
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = 3")
	eventually(t, 15*time.Second, "simulation warning", func() (bool, string) {
		rows := resourceWarnings(t, s, "simulation")
		return len(rows) == 1 && strings.Contains(rows[0], "Overload simulation is active: simulated_os_cpu_overload = 3"), strings.Join(rows, "|")
	})
	app := s.open("app", "secret", s.addr)
	defer app.Close()
	if _, err := app.Exec("TRUNCATE system.warnings"); err == nil {
		t.Error("non-admin TRUNCATE system.warnings succeeded")
	} else if me := mysqlError(t, err); me.Number != 1227 {
		t.Errorf("non-admin TRUNCATE: %d, want 1227", me.Number)
	}
	mustExec(t, admin, "SET GLOBAL simulated_os_cpu_overload = -1")
	eventually(t, 15*time.Second, "simulation warning gone when the simulation is off", func() (bool, string) {
		rows := resourceWarnings(t, s, "simulation")
		return len(rows) == 0, strings.Join(rows, "|")
	})
}

func TestMemoryWarningFromResidentMemory(t *testing.T) {
	s := startServer(t, serverOptions{sections: `
[resource_overload_warnings]
memory_overload_warn_ratio = 0.5
memory_overload_clear_ratio = 0.4
memory_overload_duration_seconds = 0
`})
	admin := s.adminDB()
	rss := queryStrings(t, admin, "SELECT value FROM system.asynchronous_metrics WHERE metric = 'MemoryResident'")
	if len(rss) != 1 {
		t.Fatalf("MemoryResident missing: %v", rss)
	}
	resident, err := strconv.ParseFloat(rss[0], 64)
	if err != nil || resident <= 0 {
		t.Fatalf("MemoryResident = %q", rss[0])
	}
	limit := uint64(resident * 1.2)
	mustExec(t, admin, "SET GLOBAL max_server_memory_usage = "+strconv.FormatUint(limit, 10))
	eventually(t, 15*time.Second, "a real memory warning", func() (bool, string) {
		rows := resourceWarnings(t, s, "memory")
		return len(rows) == 1 && strings.HasPrefix(rows[0], "High server memory usage: ") && strings.Contains(rows[0], " MB of ") && strings.HasSuffix(rows[0], "for at least 0 second(s)"), strings.Join(rows, "|")
	})
	got := queryStrings(t, admin, "SELECT resource, value > 0.5, peak >= value, raised_at <= updated_at FROM system.warnings WHERE resource = 'memory'")
	if len(got) != 1 || got[0] != "memory\t1\t1\t1" {
		t.Errorf("memory warning row = %q", got)
	}
	mustExec(t, admin, "TRUNCATE system.warnings")
	mustExec(t, admin, "SET GLOBAL max_server_memory_usage = 0")
	eventually(t, 15*time.Second, "no memory warning with the limit removed", func() (bool, string) {
		rows := resourceWarnings(t, s, "memory")
		return len(rows) == 0, strings.Join(rows, "|")
	})
}
