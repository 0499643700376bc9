// Command overloadsql is a MySQL-protocol SQL server that measures its own CPU overload and
// sheds statements and connections before it melts down.
//
//	overloadsql [--config PATH] [--log-format text|json] [--version]
//
// Without --config it reads ./config.toml when that file exists, else it runs on built-in
// defaults. A config that does not load is reported with its file, line and key, and the
// process exits with code 2. A data directory (data_dir) that does not open exits with a code of
// its own: 11 in use by another server, 12 newer format, 13 corrupt, 14 not writable, 15 not a
// data directory, 16 any other failure (docs/storage.md). SIGINT and SIGTERM stop accepting connections, let running
// statements finish (at most shutdown_timeout_s) and exit 0; SIGHUP reloads the config.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"overloadsql/server"
	"overloadsql/server/config"
	"overloadsql/server/data"
)

const defaultConfig = "config.toml"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	flags := flag.NewFlagSet("overloadsql", flag.ContinueOnError)
	flags.SetOutput(stderr)
	configPath := flags.String("config", "", "config file (default: ./config.toml when it exists, else built-in defaults)")
	logFormat := flags.String("log-format", "text", "log format: text or json")
	version := flags.Bool("version", false, "print the version and exit")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *version {
		fmt.Fprintln(stderr, "overloadsql", buildVersion())
		return 0
	}
	logger, err := newLogger(*logFormat, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "overloadsql:", err)
		return 2
	}
	server.RouteEngineLogs(logger)

	cfg, err := loadConfig(*configPath)
	if err != nil {
		fmt.Fprintln(stderr, "overloadsql: config:", err)
		return 2
	}
	srv, err := server.New(cfg, server.Options{Logger: logger})
	var storeErr *data.StoreOpenError
	if errors.As(err, &storeErr) {
		logger.Error("cannot open the data directory; nothing was changed in it", "data_dir", storeErr.Dir,
			"err", storeErr.Err, "exit_code", storeErr.Code)
		return storeErr.Code
	}
	if err != nil {
		fmt.Fprintln(stderr, "overloadsql:", err)
		return 1
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// SIGHUP only asks for a reload: the signal loop never waits for one, so SIGTERM is always
	// handled, and SIGHUPs that arrive during a reload make one more reload.
	reloads := make(chan struct{}, 1)
	go func() {
		for range reloads {
			_ = srv.Reload("SIGHUP") // Reload logs its own failure and raises a warning
		}
	}()
	defer close(reloads)
	shutdown := make(chan error, 1)
	go func() {
		for sig := range signals {
			if sig == syscall.SIGHUP {
				select {
				case reloads <- struct{}{}:
				default:
				}
				continue
			}
			logger.Info("shutting down: no new connections; waiting for running statements", "signal", sig.String())
			shutdown <- srv.Shutdown(context.Background()) // Shutdown logs its own failure
			cancel()
			return
		}
	}()
	if err := srv.Serve(ctx); err != nil {
		logger.Error("serve", "err", err)
		return 1
	}
	// Serve returns once Shutdown has closed the server; wait for Shutdown's own end too.
	<-shutdown
	logger.Info("stopped")
	return 0
}

func loadConfig(path string) (*config.Config, error) {
	if path != "" {
		return config.Load(path)
	}
	if _, err := os.Stat(defaultConfig); errors.Is(err, fs.ErrNotExist) {
		return config.Default(), nil
	}
	return config.Load(defaultConfig)
}

func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
