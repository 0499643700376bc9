// Package serverproc runs an overloadsql binary as a child process, on loopback ports with a
// config written for it, for the end-to-end tests and the load tool: write the config, start,
// wait until it answers, stop (SIGTERM, then SIGKILL), and read its CPU time.
package serverproc

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FreeLoopbackAddr returns a 127.0.0.1 address with a port that was free a moment ago, chosen
// below the kernel's range of ephemeral ports: a port from that range (what port 0 gives) may
// be taken, before the server binds it, as the source port of any client connection made
// meanwhile, and the server then fails to start with "address already in use".
func FreeLoopbackAddr() (string, error) {
	low := ephemeralLow()
	const lowest = 10000
	if low-lowest < 1000 {
		return anyLoopbackAddr()
	}
	for range 100 {
		addr := fmt.Sprintf("127.0.0.1:%d", lowest+rand.IntN(low-lowest))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		l.Close()
		return addr, nil
	}
	return anyLoopbackAddr()
}

// anyLoopbackAddr returns a loopback address on a port the kernel chose free.
func anyLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768 when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 32768
	}
	return low
}

// ConfigText is a config for listeners on addr and admin, with top (TOML for top-level keys)
// before sections (TOML after them). The HTTP listener is off unless top sets http_listen, so
// that servers started side by side do not compete for its default port.
func ConfigText(addr, admin, top, sections string) string {
	http := "http_listen = \"\"\n"
	if strings.Contains(top, "http_listen") {
		http = ""
	}
	return fmt.Sprintf("listen = %q\nadmin_listen = %q\n%s%s\n%s\n", addr, admin, http, top, sections)
}

// WriteConfig writes dir/config.toml for free loopback ports and returns its path and the
// addresses.
func WriteConfig(dir, top, sections string) (path, addr, admin string, err error) {
	if addr, err = FreeLoopbackAddr(); err != nil {
		return "", "", "", err
	}
	if admin, err = FreeLoopbackAddr(); err != nil {
		return "", "", "", err
	}
	path = filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(ConfigText(addr, admin, top, sections)), 0o644); err != nil {
		return "", "", "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, addr, admin, nil
}

// Options shape one server process.
type Options struct {
	Binary     string
	ConfigPath string
	// Pin runs the server under taskset -c Pin ("0"); empty: not pinned. taskset execs the
	// server, so the process id stays the server's.
	Pin string
	// AddressSpace, when not 0, runs the server under prlimit --as=AddressSpace (bytes), so an
	// allocation a limit should have prevented fails the server instead of the machine.
	// prlimit execs the server, so the process id stays the server's.
	AddressSpace uint64
	Env          []string  // added to the environment
	Log          io.Writer // the server's stdout and stderr
	// Args are more command-line arguments (e.g. --log-format json).
	Args []string
	// DefaultConfig starts the server without --config: it finds config.toml in its working
	// directory, the config's directory.
	DefaultConfig bool
}

// Process is one running server.
type Process struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	exitErr error
}

// Start starts the server; the working directory is the config's.
func Start(o Options) (*Process, error) {
	args := []string{o.Binary}
	if !o.DefaultConfig {
		args = append(args, "--config", o.ConfigPath)
	}
	args = append(args, o.Args...)
	if o.Pin != "" {
		args = append([]string{"taskset", "-c", o.Pin}, args...)
	}
	if o.AddressSpace != 0 {
		args = append([]string{"prlimit", fmt.Sprintf("--as=%d", o.AddressSpace), "--"}, args...)
	}
	p := &Process{cmd: exec.Command(args[0], args[1:]...), exited: make(chan struct{})}
	p.cmd.Dir = filepath.Dir(o.ConfigPath)
	p.cmd.Env = append(os.Environ(), o.Env...)
	p.cmd.Stdout, p.cmd.Stderr = o.Log, o.Log
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", strings.Join(args, " "), err)
	}
	go func() {
		p.exitErr = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Args are the command line the server was started with.
func (p *Process) Args() []string { return p.cmd.Args }

// Pid is the server's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the server.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Exited is closed when the process has exited; ExitErr tells how, after that.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr is the process's exit error (nil for exit code 0), valid once Exited is closed.
func (p *Process) ExitErr() error { return p.exitErr }

// WaitReady calls ping every 50 ms until it succeeds, the process exits, ctx ends or timeout
// passes.
func (p *Process) WaitReady(ctx context.Context, timeout time.Duration, ping func() error) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("server exited before it was ready: %v", p.exitErr)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if ping() == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server not ready after %v", timeout)
}

// Stop sends SIGTERM, then SIGKILL if the server has not exited within timeout.
func (p *Process) Stop(timeout time.Duration) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
