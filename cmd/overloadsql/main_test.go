package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunFlags(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(bad, []byte("max_connections = \"many\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"version", []string{"--version"}, 0, "overloadsql "},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"bad log format", []string{"--log-format", "xml"}, 2, `--log-format "xml": want text or json`},
		{"bad config", []string{"--config", bad}, 2, "config.toml:1: max_connections"},
		{"missing config", []string{"--config", filepath.Join(t.TempDir(), "absent.toml")}, 2, "absent.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := run(tc.args, &out); code != tc.wantCode {
				t.Errorf("exit code %d, want %d\n%s", code, tc.wantCode, out.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("output lacks %q:\n%s", tc.wantOut, out.String())
			}
		})
	}
}
