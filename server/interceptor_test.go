package server

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"overloadsql/admission"
	"overloadsql/mysqlerr"
	"strings"
	"testing"

	"overloadsql/overload"
	"overloadsql/server/access"
	"overloadsql/server/config"
	"overloadsql/server/statement"
	"overloadsql/storage"
	"overloadsql/warnings"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// decisionServer is the part of a Server the overload check reads, with a simulated overload
// and a seeded random source.
func decisionServer(t testing.TB, overloadRatio float64, seed uint64) *Server {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	rng := rand.New(rand.NewPCG(seed, seed))
	s := &Server{logger: logger, random: rng.Float64, registry: warnings.NewRegistry()}
	s.cfg.Store(config.Default())
	s.auth = access.NewAccounts(config.Default().Users)
	s.variables = newVariables(s)
	if err := s.variables.register(); err != nil {
		t.Fatal(err)
	}
	s.sampler = overload.NewSampler(overload.Config{Logger: logger})
	s.sampler.Simulate(overload.Simulation{Overload: overloadRatio, CPUBusy: -1, Memory: -1})
	s.rejectLog = newRateLimitedLog(logger, "statements rejected")
	s.admission = admission.New(admissionLimits(config.Default()), admission.Options{})
	return s
}

// connWithSession is a connection whose session has the given thresholds.
func connWithSession(t testing.TB, lo, hi float64) *mysql.Conn {
	t.Helper()
	store, err := storage.Open("data", storage.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	sess := store.NewSession(sql.NewBaseSession())
	sess.SetCurrentDatabase(mainDatabase)
	ctx := sql.NewEmptyContext()
	for name, v := range map[string]float64{minThrowSetting: lo, maxThrowSetting: hi} {
		if err := sess.SetSessionVariable(ctx, name, v); err != nil {
			t.Fatal(err)
		}
	}
	return &mysql.Conn{ClientData: &client{session: sess}}
}

func TestAdmitProbability(t *testing.T) {
	for _, tc := range []struct {
		name           string
		overload       float64
		lo, hi         float64
		query          string
		wantRejectRate float64
	}{
		{"seed example: min 2, max 6, ratio 4", 4, 2, 6, "SELECT 1", 0.5},
		{"at or over max: always", 7, 2, 6, "SELECT 1", 1},
		{"at or under min: never", 2, 2, 6, "SELECT 1", 0},
		{"not overloaded", 0, 2, 6, "SELECT 1", 0},
		{"disabled: max 0", 9, 0, 0, "SELECT 1", 0},
		{"disabled: max <= min", 9, 3, 3, "SELECT 1", 0},
		{"exempt: SHOW", 7, 2, 6, "SHOW PROCESSLIST", 0},
		{"exempt: reads only system tables", 7, 2, 6, "SELECT * FROM system.events", 0},
		{"exempt: SELECT @@var", 7, 2, 6, "select @@max_os_cpu_wait_time_ratio_to_throw", 0},
		{"hint turns it on", 7, 0, 0, "SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 1.5) */ 1", 1},
		{"hint turns it off", 7, 2, 6, "SELECT /*+ SET_VAR(max_os_cpu_wait_time_ratio_to_throw = 0) */ 1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := decisionServer(t, tc.overload, 42)
			i := &interceptor{s: s}
			c := connWithSession(t, tc.lo, tc.hi)
			const n = 2000
			stmt := summaryOf(tc.query)
			rejected := 0
			for range n {
				err := i.admit(c, stmt)
				if err == nil {
					continue
				}
				var se *mysql.SQLError
				if !errors.As(err, &se) || se.Number() != mysqlerr.ERServerOverloaded || se.SQLState() != "HY000" {
					t.Fatalf("error %v, want 745 HY000", err)
				}
				rejected++
			}
			if got := float64(rejected) / n; got < tc.wantRejectRate-0.05 || got > tc.wantRejectRate+0.05 {
				t.Errorf("rejected %.3f of statements, want %.2f", got, tc.wantRejectRate)
			}
			if got := s.counters.overloadRejected.Load(); got != uint64(rejected) {
				t.Errorf("OverloadRejectedQueries = %d, want %d", got, rejected)
			}
		})
	}
}

func TestAdmitDryRunServesAndCounts(t *testing.T) {
	s := decisionServer(t, 7, 1)
	cfg := config.Default()
	cfg.OverloadEnforcement = config.EnforcementDryRun
	s.cfg.Store(cfg)
	i := &interceptor{s: s}
	c := connWithSession(t, 2, 6)
	for range 10 {
		if err := i.admit(c, summaryOf("SELECT 1")); err != nil {
			t.Fatalf("dry_run rejected: %v", err)
		}
	}
	if got := s.counters.overloadDryRunRejected.Load(); got != 10 {
		t.Errorf("OverloadDryRunRejectedQueries = %d, want 10", got)
	}
}

func TestNumber(t *testing.T) {
	for f, want := range map[float64]string{4: "4", 0.5: "0.5", 1e6: "1e+06", 2.7679569453035255: "2.7679569453035255"} {
		if got := number(f); got != want {
			t.Errorf("number(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestOriginalOffset(t *testing.T) {
	original := "SELECT * FROM system.events; SELECT 2"
	rewritten := "SELECT * FROM `system`.events; SELECT 2"
	if got := originalOffset(original, rewritten, strings.Index(rewritten, ";")+1); got != strings.Index(original, ";")+1 {
		t.Errorf("offset after the first statement maps to %d, want %d", got, strings.Index(original, ";")+1)
	}
}

// BenchmarkAdmit measures the overload check on the statement path: not overloaded (one atomic
// load), overloaded with a session that has no thresholds, and overloaded with thresholds that
// do not trigger (the ratio is under min), the path of a protected server under load. The
// statement's summary is made by the protocol handler before (BenchmarkStatementPath).
func BenchmarkAdmit(b *testing.B) {
	for _, bc := range []struct {
		name     string
		overload float64
		lo, hi   float64
	}{
		{"not_overloaded", 0, 2, 6},
		{"overloaded_no_thresholds", 4, 0, 0},
		{"overloaded_under_min", 1.5, 2, 6},
		{"overloaded_deciding", 4, 2, 1000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := decisionServer(b, bc.overload, 7)
			i := &interceptor{s: s}
			c := connWithSession(b, bc.lo, bc.hi)
			stmt := statement.Summarize("SELECT id, name FROM t WHERE id = 42")
			b.ReportAllocs()
			for b.Loop() {
				_ = i.admit(c, &stmt)
			}
		})
	}
}

func TestThresholdCacheForgottenAfterNamingStatement(t *testing.T) {
	decisionServer(t, 0, 1)
	c := connWithSession(t, 2, 6)
	cl := clientOf(c)
	if lo, hi := cl.thresholds(); lo != 2 || hi != 6 {
		t.Fatalf("thresholds = %v, %v", lo, hi)
	}
	if err := cl.session.SetSessionVariable(sql.NewEmptyContext(), maxThrowSetting, 9.0); err != nil {
		t.Fatal(err)
	}
	forgetThresholdsIfNamed(c, summaryOf("SELECT 1"))
	if _, hi := cl.thresholds(); hi != 6 {
		t.Errorf("a statement not naming the settings dropped the cache")
	}
	forgetThresholdsIfNamed(c, summaryOf("set @@SESSION.MAX_OS_CPU_WAIT_TIME_RATIO_TO_THROW = 9"))
	if _, hi := cl.thresholds(); hi != 9 {
		t.Errorf("after SET the cached max is %v, want 9", hi)
	}
}

// summaryOf is the summary of sql, as the protocol handler makes it.
func summaryOf(sql string) *statement.Summary {
	s := statement.Summarize(sql)
	return &s
}

func TestPanicBecomesTheStatementsError(t *testing.T) {
	var log bytes.Buffer
	i := &interceptor{s: &Server{logger: slog.New(slog.NewTextHandler(&log, nil))}}
	c := &mysql.Conn{ConnectionID: 7, User: "default"}
	err := func() (err error) {
		defer i.recovered(c, &err)
		var m map[string]int
		//lint:ignore SA5000 the panic is the point: a nil-map write, as the engine's user statements did
		m["x"] = 1
		return nil
	}()
	if mysqlerr.Number(err) != mysql.ERUnknownError {
		t.Fatalf("err = %v, want 1105", err)
	}
	if n := strings.Count(log.String(), "statement panicked"); n != 1 || !strings.Contains(log.String(), "interceptor_test.go") {
		t.Errorf("log = %q, want one line with the stack", log.String())
	}
}
