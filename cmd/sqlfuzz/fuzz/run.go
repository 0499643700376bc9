// Package fuzz is sqlfuzz, a differential fuzzer: it runs the same seeded random SQL against
// overloadsql and against MariaDB and reports where their answers differ.
//
// The model: a seed draws a schema (a few tables of varied types, with and without primary,
// secondary and unique keys) and a stream of INSERT, UPDATE, DELETE and SELECT statements
// (WHERE with comparisons of mixed types, IN, BETWEEN, IS NULL, LIKE, AND/OR/NOT; ORDER BY
// and LIMIT; aggregates; joins). Each statement runs on both servers, one session each; their
// answers are compared by class (success or error number), affected rows, and result rows
// (in order where ORDER BY defines it, else as multisets), after normalising the spellings
// of one value (floats, DECIMAL scale). After each write the written table is read on both
// and compared. A table that differs is set again to MariaDB's rows on both, so that later
// statements compare from equal tables.
//
// Each difference is classified by cmd/sqlfuzz/known-differences.toml (patterns with the
// reason for each); the others are unknown, and reduced to a small reproduction. The exit
// code is 1 when any difference is unknown, 2 when the run could not be made. MariaDB is the
// reference, though overloadsql follows MySQL 8: where MariaDB differs from MySQL 8, the
// difference is listed as known with that reason. docs/fuzzing.md has the details.
package fuzz

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Run runs sqlfuzz with the command-line arguments args and returns the exit code: 0 when
// every difference is known, 1 when some are not, 2 when the run could not be made.
// defaultKnown is the known-differences TOML to use without -known.
func Run(args []string, defaultKnown string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sqlfuzz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt options
	oDSN := fs.String("overloadsql", "default@tcp(127.0.0.1:9004)/main", "overloadsql `DSN` (go-sql-driver form); the tables are made in its database")
	mDSN := fs.String("mariadb", "root@tcp(127.0.0.1:3306)/sqlfuzz", "MariaDB `DSN`; its database is created when missing")
	fs.Uint64Var(&opt.seed, "seed", 1, "seed of the schema and the statements")
	fs.IntVar(&opt.statements, "statements", 1000, "statements to run at most")
	fs.DurationVar(&opt.duration, "duration", 10*time.Minute, "time to run at most")
	fs.IntVar(&opt.tables, "tables", 3, "tables in the schema")
	fs.DurationVar(&opt.reduceTime, "reduce-time", 30*time.Second, "time to spend reducing each reported difference")
	fs.IntVar(&opt.maxReports, "max-reports", 10, "unknown differences to reduce and print in full (the rest are counted)")
	fs.BoolVar(&opt.verbose, "v", false, "also reduce and print the known differences, up to -max-reports of each")
	fs.BoolVar(&opt.keep, "keep", false, "leave the tables on both servers at the end (by default they are dropped)")
	fs.DurationVar(&opt.statementTO, "statement-timeout", 30*time.Second, "time a statement may take on one server")
	insertIgnore := fs.Bool("insert-ignore", false, "also draw INSERT IGNORE")
	warnings := fs.Bool("warnings", false, "also compare the warning counts (@@warning_count)")
	knownPath := fs.String("known", "", "known differences `file` (TOML); default: cmd/sqlfuzz/known-differences.toml, built in")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if opt.tables < 1 || opt.statements < 0 || opt.maxReports < 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "sqlfuzz: -tables must be at least 1, -statements and -max-reports not negative, and no arguments follow the flags")
		return 2
	}
	knownText := defaultKnown
	if *knownPath != "" {
		b, err := os.ReadFile(*knownPath)
		if err != nil {
			fmt.Fprintln(stderr, "sqlfuzz:", err)
			return 2
		}
		knownText = string(b)
	}
	known, err := parseKnown(knownText)
	if err != nil {
		fmt.Fprintln(stderr, "sqlfuzz: known differences:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	oc, err := connect(ctx, overload, *oDSN, false)
	if err != nil {
		fmt.Fprintln(stderr, "sqlfuzz:", err)
		return 2
	}
	mc, err := connect(ctx, maria, *mDSN, true)
	if err != nil {
		fmt.Fprintln(stderr, "sqlfuzz:", err)
		return 2
	}
	for _, c := range []*conn{oc, mc} {
		c.timeout, c.warnings = opt.statementTO, *warnings
	}
	// MariaDB's session gets overloadsql's sql_mode (strictness decides errors against warnings).
	var mode string
	if err := oc.c.QueryRowContext(ctx, "SELECT @@sql_mode").Scan(&mode); err != nil {
		fmt.Fprintln(stderr, "sqlfuzz: overloadsql: read @@sql_mode:", err)
		return 2
	}
	if err := mc.exec(ctx, "SET SESSION sql_mode = "+quote(mode)); err != nil {
		fmt.Fprintln(stderr, "sqlfuzz:", err)
		return 2
	}
	versions := [2]string{}
	for i, c := range []*conn{oc, mc} {
		if err := c.c.QueryRowContext(ctx, "SELECT VERSION()").Scan(&versions[i]); err != nil {
			fmt.Fprintf(stderr, "sqlfuzz: %s: read VERSION(): %v\n", c.side, err)
			return 2
		}
	}

	tables := newSchema(newGenerator(opt.seed, nil).r, opt.tables)
	gen := newGenerator(opt.seed+1, tables)
	gen.insertIgnore = *insertIgnore
	f := &fuzzer{opt: opt, o: oc, m: mc, tables: tables, gen: gen, known: known, out: stdout}
	start := time.Now()
	runErr := f.run(ctx)
	elapsed := time.Since(start)

	// Reduce what will be printed: the first unknown findings, and with -v the first of each
	// known difference.
	perKnown := map[string]int{}
	unknownShown := 0
	var reduceErr error
	for _, fd := range f.findings {
		show := false
		if fd.unknown() {
			unknownShown++
			show = unknownShown <= opt.maxReports
		} else if opt.verbose {
			perKnown[fd.classes[0].ID]++
			show = perKnown[fd.classes[0].ID] <= opt.maxReports
		}
		if show && reduceErr == nil && runErr == nil {
			if reduceErr = f.reduce(ctx, fd); reduceErr != nil {
				fd.note = "reduction failed: " + reduceErr.Error()
			}
		}
		if show && fd.repro == nil {
			fd.repro = f.historyRepro(f.history[:fd.histLen])
			if fd.note == "" {
				fd.note = "not reduced: the whole history"
			}
		}
	}
	if !opt.keep {
		f.cleanup(context.Background())
	}
	unknown := report(stdout, f, versions, elapsed)
	if runErr != nil {
		fmt.Fprintf(stderr, "sqlfuzz: seed %d: the run stopped after %d statements: %v\n", opt.seed, f.ran, runErr)
		return 2
	}
	if reduceErr != nil {
		fmt.Fprintf(stderr, "sqlfuzz: seed %d: reduction: %v\n", opt.seed, reduceErr)
	}
	if unknown > 0 {
		return 1
	}
	return 0
}

// connect opens one pinned session. For MariaDB a database named in the DSN is created
// first when it is missing.
func connect(ctx context.Context, s side, dsn string, createDB bool) (*conn, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s DSN: %w", s, err)
	}
	cfg.InterpolateParams = false
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if createDB && cfg.DBName != "" {
		plain := cfg.Clone()
		plain.DBName = ""
		db, err := open(plain)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(cfg.DBName, "`", "``")+"`")
		db.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: create database %s: %w", s, cfg.DBName, err)
		}
	}
	db, err := open(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: connect to %s: %w", s, cfg.Addr, err)
	}
	return &conn{side: s, c: c}, nil
}

func open(cfg *mysql.Config) (*sql.DB, error) {
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

// report prints the run's summary and the reproductions, and returns the number of findings
// with an unknown difference.
func report(w io.Writer, f *fuzzer, versions [2]string, elapsed time.Duration) int {
	fmt.Fprintf(w, "sqlfuzz: seed %d: %d statements in %.1f s; overloadsql %s, mariadb %s\n", f.opt.seed, f.ran, elapsed.Seconds(), versions[0], versions[1])
	fmt.Fprintln(w, "schema (overloadsql's spelling; MariaDB gets utf8mb4_nopad_bin for utf8mb4_0900_bin, utf8mb4_uca1400_nopad_ai_ci for utf8mb4_0900_ai_ci):")
	for _, t := range f.tables {
		fmt.Fprintf(w, "  %s;\n", t.createSQL(overload))
	}
	counts := map[string]int{}
	var order []*knownDifference
	unknown := 0
	for _, fd := range f.findings {
		if fd.unknown() {
			unknown++
		}
		seen := map[string]bool{}
		for _, c := range fd.classes {
			if c != nil && !seen[c.ID] {
				seen[c.ID] = true
				if counts[c.ID] == 0 {
					order = append(order, c)
				}
				counts[c.ID]++
			}
		}
	}
	fmt.Fprintf(w, "differences: %d statements differ: %d unknown, %d known only; statements per known difference:\n", len(f.findings), unknown, len(f.findings)-unknown)
	width := 0
	for _, k := range order {
		width = max(width, len(k.ID))
	}
	for _, k := range order {
		fmt.Fprintf(w, "  known %-*s %5d (%s)\n", width, k.ID, counts[k.ID], k.Status)
	}
	for _, fd := range f.findings {
		if fd.repro == nil {
			continue
		}
		label := "UNKNOWN"
		if !fd.unknown() {
			label = "known " + fd.classes[0].ID
		}
		fmt.Fprintf(w, "\n%s: seed %d, statement %d\n", label, f.opt.seed, fd.n)
		fmt.Fprintf(w, "  statement:   %s\n", fd.st.sql)
		fmt.Fprintf(w, "  overloadsql: %s\n", fd.o)
		fmt.Fprintf(w, "  mariadb:     %s\n", fd.m)
		for i, d := range fd.diffs {
			class := "unknown"
			if c := fd.classes[i]; c != nil {
				class = "known " + c.ID + " (" + c.Status + ")"
			}
			fmt.Fprintf(w, "  difference:  %s [%s]\n", d, class)
		}
		fmt.Fprintf(w, "  reproduction (%s):\n", fd.note)
		for _, s := range fd.repro {
			fmt.Fprintf(w, "    %s;\n", s)
		}
	}
	if unknown > f.opt.maxReports {
		fmt.Fprintf(w, "\n%d more unknown differences not printed (-max-reports)\n", unknown-f.opt.maxReports)
	}
	return unknown
}
