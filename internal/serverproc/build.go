package serverproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build builds cmd/overloadsql of the module the working directory is in into dir and returns
// the binary's path; race builds it with the race detector.
func Build(ctx context.Context, dir string, race bool) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the overloadsql module")
	}
	binary := filepath.Join(dir, "overloadsql")
	args := []string{"build", "-o", binary}
	if race {
		args = append(args, "-race")
	}
	build := exec.CommandContext(ctx, "go", append(args, "./cmd/overloadsql")...)
	build.Dir = filepath.Dir(gomod)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/overloadsql in %s: %w\n%s", build.Dir, err, out)
	}
	return binary, nil
}
