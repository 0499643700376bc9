package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"overloadsql/internal/serverproc"
)

// serverSpec shapes one overloadsql process started for a scenario.
type serverSpec struct {
	binary string
	// pinCPU is a taskset CPU list ("0"); empty: not pinned.
	pinCPU string
	// top is TOML for top-level keys; sections is TOML after them.
	top, sections string
}

// benchServer is one running overloadsql process on free loopback ports.
type benchServer struct {
	proc      *serverproc.Process
	addr      string
	adminAddr string
	logPath   string
}

const (
	serverReadyTimeout = 60 * time.Second
	serverStopTimeout  = 15 * time.Second
)

// startServer writes a config with free loopback ports into a new directory under tmp, starts
// the server and waits until it answers a ping.
func startServer(ctx context.Context, tmp string, spec serverSpec) (*benchServer, error) {
	dir, err := os.MkdirTemp(tmp, "server-")
	if err != nil {
		return nil, fmt.Errorf("server directory: %w", err)
	}
	configPath, addr, adminAddr, err := serverproc.WriteConfig(dir, spec.top, spec.sections)
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	defer logFile.Close()
	proc, err := serverproc.Start(serverproc.Options{Binary: spec.binary, ConfigPath: configPath, Pin: spec.pinCPU, Log: logFile})
	if err != nil {
		return nil, err
	}
	s := &benchServer{proc: proc, addr: addr, adminAddr: adminAddr, logPath: logPath}
	if err := proc.WaitReady(ctx, serverReadyTimeout, func() error { return pingOnce(ctx, addr) }); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w\n%s", err, s.logTail())
	}
	return s, nil
}

func (s *benchServer) pid() int { return s.proc.Pid() }

// cpu returns the CPU time the server process has used so far.
func (s *benchServer) cpu() (time.Duration, error) { return serverproc.CPUTime(s.pid()) }

// stop sends SIGTERM, then SIGKILL if the server has not exited within serverStopTimeout.
func (s *benchServer) stop() { s.proc.Stop(serverStopTimeout) }

// logTail returns the end of the server's log, for error messages.
func (s *benchServer) logTail() string {
	text, err := os.ReadFile(s.logPath)
	if err != nil {
		return fmt.Sprintf("(no server log: %v)", err)
	}
	const keep = 2000
	if len(text) > keep {
		text = text[len(text)-keep:]
	}
	return string(text)
}
