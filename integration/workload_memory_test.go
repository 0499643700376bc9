package integration

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"
)

// workloadMemoryConfig: small's sessions run in tight (100 MB for all of them), big's in roomy
// (no bound of its own); extra is a bounded workload a session may choose.
const workloadMemoryConfig = `
[[users]]
name = "default"
admin = true

[[users]]
name = "small"
password = "secret"
workload = "tight"

[[users]]
name = "big"
password = "secret"
workload = "roomy"

[[workloads]]
name = "tight"
max_memory_usage = 100000000

[[workloads]]
name = "roomy"
`

const extraWorkload = `
[[workloads]]
name = "extra"
max_memory_usage = 100000000
`

// workloadMemory is system.workloads' memory_usage of a workload, -1 when it is not listed.
func workloadMemory(t *testing.T, admin *sql.DB, name string) int {
	t.Helper()
	r := workloadRow(t, admin, name, "memory_usage")
	if r == "" {
		return -1
	}
	return atoi(t, r)
}

// A workload's max_memory_usage bounds what all its sessions keep: with tight at 100 MB, the
// third of small's sessions to keep 40 MB gets error 241 for workload tight, while big's sessions
// in roomy keep as much and ordinary statements succeed throughout. A session takes what it
// keeps along when it joins another workload (SET workload), and cannot join one that has no
// room for it; a SET_VAR hint moves only the statement; a reload that removes a workload moves
// its sessions back to their user's workload, at once or at their next assignment.
func TestWorkloadMemoryQuotaRefusesOnlyThatWorkload(t *testing.T) {
	s := startServer(t, serverOptions{addressSpace: memoryLimit, top: "max_server_memory_usage = 1073741824\n",
		sections: workloadMemoryConfig + extraWorkload})
	admin := s.adminDB()
	smallDB, bigDB := s.open("small", "secret", s.addr), s.open("big", "secret", s.addr)
	defer smallDB.Close()
	defer bigDB.Close()
	stop := pollers(t, bigDB, 3)
	const big = "SET @v = REPEAT('x', 40000000)"
	wantRefused := func(what string, err error) {
		t.Helper()
		if !quotaRefused(err, "for workload tight") || !strings.Contains(err.Error(), "max_memory_usage of workload tight") {
			t.Errorf("%s: %v, want error 241 for workload tight", what, err)
		}
	}

	s1, s2, s3 := session(t, smallDB), session(t, smallDB), session(t, smallDB)
	mustExec(t, s1, big)
	mustExec(t, s2, big)
	_, err := s3.ExecContext(context.Background(), big)
	wantRefused("the third 40 MB variable in tight", err)
	var n int
	if err := s3.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.collations").Scan(&n); err != nil {
		t.Errorf("an ordinary statement of the refused session: %v", err)
	}
	b1, b2, b3 := session(t, bigDB), session(t, bigDB), session(t, bigDB)
	for i, c := range []*sql.Conn{b1, b2, b3} {
		if _, err := c.ExecContext(context.Background(), big); err != nil {
			t.Errorf("roomy's session %d keeping 40 MB while tight is full: %v", i+1, err)
		}
	}
	if m := workloadMemory(t, admin, "tight"); m < 80_000_000 || m > 100_000_000 {
		t.Errorf("tight's memory_usage %d, want its two 40 MB variables", m)
	}
	roomy := workloadMemory(t, admin, "roomy")
	if roomy < 120_000_000 {
		t.Errorf("roomy's memory_usage %d, want its three 40 MB variables", roomy)
	}

	// A session keeping 40 MB cannot join tight; an empty one can, and is then bound by it.
	_, err = b1.ExecContext(context.Background(), "SET workload = 'tight'")
	wantRefused("SET workload = 'tight' of a session keeping 40 MB", err)
	if got := strings.Join(queryStrings(t, b1, "SELECT @@workload"), ""); got != "" {
		t.Errorf("@@workload = %q after the refused SET, want it unchanged", got)
	}
	b4 := session(t, bigDB, "SET workload = 'tight'")
	_, err = b4.ExecContext(context.Background(), big)
	wantRefused("a 40 MB variable of a session that joined tight", err)
	// A hint chooses the statement's CPU queue only: what it keeps stays in roomy.
	mustExec(t, b2, "SELECT /*+ SET_VAR(workload = 'tight') */ REPEAT('h', 40000000) INTO @h")
	if m := workloadMemory(t, admin, "roomy"); m < roomy+40_000_000 {
		t.Errorf("roomy's memory_usage %d after a hinted SELECT INTO of 40 MB, want at least %d", m, roomy+40_000_000)
	}
	// Freeing a variable makes room in the workload.
	mustExec(t, s1, "SET @v = NULL")
	mustExec(t, s3, big)
	mustExec(t, s3, "SET @v = NULL")

	// s3 keeps 40 MB in extra; a reload removes extra; small's workload tight has no room for it
	// while s1 and s2 keep theirs: s3 waits under the server's account, and its next assignment
	// is refused for tight until there is room.
	mustExec(t, s1, big)
	mustExec(t, s3, "SET workload = 'extra'")
	mustExec(t, s3, big)
	if m := workloadMemory(t, admin, "extra"); m < 40_000_000 {
		t.Errorf("extra's memory_usage %d, want s3's 40 MB", m)
	}
	s.rewriteConfig(serverOptions{top: "max_server_memory_usage = 1073741824\n", sections: workloadMemoryConfig})
	eventually(t, 10*time.Second, "extra removed by the reload", func() (bool, string) {
		m := workloadMemory(t, admin, "extra")
		return m == -1, strings.Join(queryStrings(t, admin, "SELECT name, memory_usage FROM system.workloads"), "; ")
	})
	if m := workloadMemory(t, admin, "tight"); m > 100_000_000 {
		t.Errorf("tight's memory_usage %d after the reload, over its max_memory_usage", m)
	}
	_, err = s3.ExecContext(context.Background(), "SET @more = REPEAT('m', 100000)")
	wantRefused("an assignment of s3 after its workload was removed", err)
	mustExec(t, s2, "SET @v = NULL")
	mustExec(t, s3, "SET @more = REPEAT('m', 100000)")
	if m := workloadMemory(t, admin, "tight"); m < 80_000_000 || m > 100_000_000 {
		t.Errorf("tight's memory_usage %d once s3 joined it, want s1's and s3's 40 MB", m)
	}

	statements, failures := stop()
	if len(failures) > 0 {
		t.Errorf("%d ordinary statements of roomy, failures: %s", statements, strings.Join(failures, "; "))
	}
	if statements < 10 {
		t.Errorf("only %d ordinary statements ran meanwhile", statements)
	}
	t.Logf("%d ordinary statements of roomy meanwhile, none failed", statements)
	s.alive(t, "the workload quota refusals")
}
