// Command overloadbench measures what overloadsql's overload protection costs and what it buys.
// It starts its own overloadsql servers on free loopback ports (each with a temporary config),
// drives them over the MySQL protocol with go-sql-driver, prints a progress line to stderr once
// a second and a table (or, with --json, one JSON document) to stdout, and stops the servers.
//
//	overloadbench [--scenario overhead|shed|storm|reaction|sleepers|tenants|all] [--duration 3s] [--rounds N]
//	              [--clients 8] [--storm-attempts 20000] [--pin-cpu 0]
//	              [--server-binary PATH] [--json]
//
// Without --server-binary it runs `go build ./cmd/overloadsql` of the module containing the
// working directory into a temporary directory, so run it from the repository.
//
// The scenarios:
//
//   - overhead: SELECT 1 throughput and latency over --clients connections, with protection
//     disabled (session max_os_cpu_wait_time_ratio_to_throw = 0) and enabled but never
//     triggering (min 1000 / max 2000 while SET GLOBAL simulated_os_cpu_overload = 0.5, so every
//     statement runs the full decision: overload > 0, probability computed, never rejected).
//     The price of protection for a server that is not overloaded; target ratio >= 0.98.
//   - shed: the server pinned to one core (taskset), --clients closed-loop clients running a
//     CPU-heavy cross join in four modes: admission control off or on (admission_control), each
//     with sessions with thresholds (min 1 / max 3) and without. Goodput, the latency of the
//     statements that succeed, the rejection rate, and the latency of an admin's SELECT 1 on the
//     admin listener. What protection buys; targets against the unprotected mode: p99 at most
//     half in the steady state (each phase's first 500 ms left out; the whole phase beside it),
//     admin p99 < 50 ms, and with admission goodput >= 0.9 and server CPU >= 0.95 core.
//   - storm: connection attempts as fast as 4 goroutines can make them, with every connection
//     dropped (simulated overload 7, drop thresholds min 1 / max 2) and with dropping off
//     (handshake, ping, close). Attempts/s, server CPU per attempt from /proc/<pid>/stat, admin
//     p99. Whether dropping is cheap enough to help; target: a drop costs < 1/5 of an accept.
//   - reaction: the server pinned to one core, a session probing SELECT 1 every 20 ms with
//     min 1 / max 1.5; at the onset 4 clients start CPU-heavy statements (real contention, no
//     simulation). Time to the probe's first 745 and to the CPU warning in system.warnings, in
//     milliseconds and in sampling windows; target: first rejection within 2 windows.
//   - sleepers: the server pinned to one core, 2 CPU-heavy clients and 16 clients running
//     SELECT SLEEP(0.1), with admission off, with adaptive slots, and with one fixed slot.
//     Whether statements that sleep are capped by the slot count; target: the sleepers' rate
//     with adaptive slots at least 0.9 of their rate with admission off.
//   - tenants: the server pinned to one core, workload A with 12 closed-loop clients of the
//     heavy statement and workload B with 2 clients of a light one (a tenth of it), in five
//     modes: A alone, B alone, equal weights, B at a better priority, and workloads off (both in
//     the default workload, one FIFO queue). B's steady-state p99 and goodput against B alone,
//     A's goodput against what the CPU left it; targets: equal weights B p99 <= 3x and goodput
//     >= 0.9x alone, B first p99 <= 1.5x alone, A >= 0.85x of what was left in both.
//     --tenants-b-think pauses B's clients after each statement (not the specified scenario:
//     a B that does not keep the core busy alone, so that it stays under its fair share).
//
// Why side by side: this machine is shared, and a neighbour's load moves every absolute number.
// Each comparison is made inside one invocation against one server, with the two modes
// alternated in short phases (A B B A ...) so that noise lands on both sides alike; the ratios
// are the result, the absolute figures are context. The load average before and after is printed
// so a noisy run can be recognised.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"overloadsql/internal/serverproc"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command-line flags.
type options struct {
	scenarios     []string
	phase         time.Duration
	rounds        int
	clients       int
	stormAttempts int
	pinCPU        string
	serverBinary  string
	json          bool
	scrape        time.Duration // /metrics scrape interval in the overhead scenario, 0 = none
	// tenantsBThink is the pause of B's clients after each statement in the tenants scenario
	// (0 = closed loop, as the scenario specifies).
	tenantsBThink time.Duration
}

var allScenarios = []string{"overhead", "shed", "storm", "reaction", "sleepers", "tenants"}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	flags := flag.NewFlagSet("overloadbench", flag.ContinueOnError)
	flags.SetOutput(stderr)
	scenario := flags.String("scenario", "all", "overhead, shed, storm, reaction, sleepers, tenants or all")
	flags.DurationVar(&o.phase, "duration", 3*time.Second, "length of one measured phase, 1s..60s")
	flags.IntVar(&o.rounds, "rounds", 0, "phases per mode (runs for reaction), 1..20; 0: overhead 6, shed 3, storm 3, reaction 3")
	flags.IntVar(&o.clients, "clients", 8, "connections of the overhead and shed scenarios, 1..64")
	flags.IntVar(&o.stormAttempts, "storm-attempts", 20000, "most connection attempts in one storm phase, 1..200000")
	flags.StringVar(&o.pinCPU, "pin-cpu", "0", `taskset CPU list the server is pinned to in shed and reaction ("" = not pinned)`)
	flags.StringVar(&o.serverBinary, "server-binary", "", "overloadsql binary (default: go build ./cmd/overloadsql of this module)")
	flags.BoolVar(&o.json, "json", false, "print the results as JSON instead of a table")
	flags.DurationVar(&o.scrape, "scrape-metrics", 0, "in the overhead scenario, GET /metrics at this interval throughout, 100ms..1m (0 = no HTTP listener)")
	flags.DurationVar(&o.tenantsBThink, "tenants-b-think", 0, "in the tenants scenario, B's clients pause this long after each statement, 0..1s (0 = closed loop, as specified)")
	if err := flags.Parse(args); err != nil {
		return o, err
	}
	if flags.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", flags.Args())
	}
	switch {
	case *scenario == "all":
		o.scenarios = allScenarios
	case slices.Contains(allScenarios, *scenario):
		o.scenarios = []string{*scenario}
	default:
		return o, fmt.Errorf("--scenario %q: want one of %s or all", *scenario, strings.Join(allScenarios, ", "))
	}
	if o.phase < time.Second || o.phase > time.Minute {
		return o, fmt.Errorf("--duration %v: want 1s..60s", o.phase)
	}
	if o.rounds < 0 || o.rounds > 20 {
		return o, fmt.Errorf("--rounds %d: want 0..20", o.rounds)
	}
	if o.clients < 1 || o.clients > 64 {
		return o, fmt.Errorf("--clients %d: want 1..64", o.clients)
	}
	if o.scrape != 0 && (o.scrape < 100*time.Millisecond || o.scrape > time.Minute) {
		return o, fmt.Errorf("--scrape-metrics %v: want 100ms..1m, or 0", o.scrape)
	}
	if o.tenantsBThink < 0 || o.tenantsBThink > time.Second {
		return o, fmt.Errorf("--tenants-b-think %v: want 0..1s", o.tenantsBThink)
	}
	if o.stormAttempts < 1 || o.stormAttempts > 200000 {
		return o, fmt.Errorf("--storm-attempts %d: want 1..200000", o.stormAttempts)
	}
	return o, nil
}

// roundsOr returns --rounds, or def when it was left at 0.
func (o options) roundsOr(def int) int {
	if o.rounds > 0 {
		return o.rounds
	}
	return def
}

func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "overloadbench:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	rep, err := runBench(ctx, opts, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "overloadbench:", err)
		return 1
	}
	rep.Command = "overloadbench " + strings.Join(args, " ")
	if opts.json {
		err = writeJSON(stdout, rep)
	} else {
		err = writeTable(stdout, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "overloadbench: write results:", err)
		return 1
	}
	return 0
}

// bench is what every scenario needs: the options, the server binary, a temporary directory
// for server configs and logs, and the progress line.
type bench struct {
	opts     options
	binary   string
	tmp      string
	progress *progress
}

func runBench(ctx context.Context, opts options, stderr io.Writer) (*report, error) {
	tmp, err := os.MkdirTemp("", "overloadbench-")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	b := &bench{opts: opts, binary: opts.serverBinary, tmp: tmp, progress: newProgress(stderr)}
	if b.binary == "" {
		b.progress.note("building overloadsql")
		if b.binary, err = serverproc.Build(ctx, tmp, false); err != nil {
			return nil, fmt.Errorf("%w (run from the repository or pass --server-binary)", err)
		}
	}
	progressCtx, stopProgress := context.WithCancel(ctx)
	defer stopProgress()
	go b.progress.run(progressCtx)

	rep := &report{Server: b.binary, HostCPUs: runtime.NumCPU(), LoadAvgBefore: loadAverage()}
	for _, name := range opts.scenarios {
		if err := b.runScenario(ctx, name, rep); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	rep.LoadAvgAfter = loadAverage()
	rep.Targets = targets(rep)
	return rep, nil
}

func (b *bench) runScenario(ctx context.Context, name string, rep *report) error {
	var err error
	switch name {
	case "overhead":
		rep.Overhead, err = b.overhead(ctx)
	case "shed":
		rep.Shed, err = b.shed(ctx)
	case "storm":
		rep.Storm, err = b.storm(ctx)
	case "sleepers":
		rep.Sleepers, err = b.sleepers(ctx)
	case "reaction":
		rep.Reaction, err = b.reaction(ctx)
	case "tenants":
		rep.Tenants, err = b.tenants(ctx)
	}
	return err
}

// withServer starts a server for one scenario, gives fn an admin pool on its admin listener and
// stops the server when fn returns.
func (b *bench) withServer(ctx context.Context, spec serverSpec, fn func(s *benchServer, admin *adminSession) error) error {
	spec.binary = b.binary
	s, err := startServer(ctx, b.tmp, spec)
	if err != nil {
		return err
	}
	defer s.stop()
	admin, err := openAdmin(s.adminAddr)
	if err != nil {
		return err
	}
	defer admin.close()
	if err := fn(s, admin); err != nil {
		return fmt.Errorf("%w\nserver log (end):\n%s", err, s.logTail())
	}
	return nil
}

// loadAverage returns the 1, 5 and 15 minute load averages of the host, as /proc/loadavg says.
func loadAverage() string {
	text, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fields := strings.Fields(string(text))
	if len(fields) < 3 {
		return "unknown"
	}
	return strings.Join(fields[:3], " ")
}
