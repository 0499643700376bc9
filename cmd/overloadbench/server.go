package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
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
	cmd       *exec.Cmd
	addr      string
	adminAddr string
	dir       string
	logPath   string
	exited    chan struct{}
	exitErr   error
}

const (
	serverReadyTimeout = 60 * time.Second
	serverStopTimeout  = 15 * time.Second
)

// buildServer builds cmd/overloadsql of the module the working directory is in into dir.
func buildServer(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the overloadsql module: run from the repository or pass --server-binary")
	}
	binary := filepath.Join(dir, "overloadsql")
	build := exec.CommandContext(ctx, "go", "build", "-o", binary, "./cmd/overloadsql")
	build.Dir = filepath.Dir(gomod)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/overloadsql in %s: %w\n%s", build.Dir, err, out)
	}
	return binary, nil
}

// startServer writes a config with free loopback ports into a new directory under tmp, starts
// the server and waits until it answers a ping.
func startServer(ctx context.Context, tmp string, spec serverSpec) (*benchServer, error) {
	dir, err := os.MkdirTemp(tmp, "server-")
	if err != nil {
		return nil, fmt.Errorf("server directory: %w", err)
	}
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	adminAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	configPath := filepath.Join(dir, "config.toml")
	config := fmt.Sprintf("listen = %q\nadmin_listen = %q\n%s\n%s\n", addr, adminAddr, spec.top, spec.sections)
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", configPath, err)
	}
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	defer logFile.Close()

	args := []string{spec.binary, "--config", configPath}
	if spec.pinCPU != "" {
		// taskset execs the server, so the process id stays the server's (for /proc/<pid>/stat).
		args = append([]string{"taskset", "-c", spec.pinCPU}, args...)
	}
	s := &benchServer{addr: addr, adminAddr: adminAddr, dir: dir, logPath: logPath, exited: make(chan struct{})}
	s.cmd = exec.Command(args[0], args[1:]...)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", strings.Join(args, " "), err)
	}
	go func() {
		s.exitErr = s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (s *benchServer) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(serverReadyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("server exited before it was ready: %v\n%s", s.exitErr, s.logTail())
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if err := pingOnce(ctx, s.addr); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server not ready after %v\n%s", serverReadyTimeout, s.logTail())
}

func (s *benchServer) pid() int { return s.cmd.Process.Pid }

// cpu returns the CPU time the server process has used so far.
func (s *benchServer) cpu() (time.Duration, error) { return processCPU(s.pid()) }

// stop sends SIGTERM, then SIGKILL if the server has not exited within serverStopTimeout.
func (s *benchServer) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(serverStopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

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
