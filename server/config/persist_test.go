package config

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestPersistedPath(t *testing.T) {
	for _, tt := range []struct{ config, want string }{
		{"", "persisted_settings.toml"},
		{"config.toml", "persisted_settings.toml"},
		{"/etc/overloadsql/config.toml", "/etc/overloadsql/persisted_settings.toml"},
	} {
		if got := PersistedPath(tt.config); got != tt.want {
			t.Errorf("PersistedPath(%q) = %q, want %q", tt.config, got, tt.want)
		}
	}
}

func TestPersistedRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "persisted_settings.toml")
	got, err := LoadPersisted(path)
	if err != nil || len(got) != 0 {
		t.Fatalf("LoadPersisted of a missing file = %v, %v; want an empty map", got, err)
	}
	values := map[string]string{
		"max_connections":                     "10",
		"warning_suppress_regexp":             `^"quoted" \ back\slash` + "\ttab",
		"max_os_cpu_wait_time_ratio_to_throw": "2.5",
	}
	for _, v := range []map[string]string{values, {"max_connections": "11"}} {
		if err := SavePersisted(path, v); err != nil {
			t.Fatalf("SavePersisted: %v", err)
		}
		got, err := LoadPersisted(path)
		if err != nil {
			t.Fatalf("LoadPersisted: %v", err)
		}
		if !maps.Equal(got, v) {
			t.Errorf("round trip: got %v, want %v", got, v)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("SavePersisted left files behind: %v", entries)
	}
}

func TestLoadPersistedRemovesStrayTempFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "persisted_settings.toml")
	if err := SavePersisted(path, map[string]string{"max_connections": "10"}); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "persisted_settings.toml.tmp-123")
	other := filepath.Join(dir, "other.toml.tmp-1")
	for _, name := range []string{stray, other} {
		if err := os.WriteFile(name, []byte("max_connections = \"99"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := LoadPersisted(path)
	if err != nil {
		t.Fatalf("LoadPersisted: %v", err)
	}
	if want := map[string]string{"max_connections": "10"}; !maps.Equal(got, want) {
		t.Errorf("LoadPersisted = %v, want %v", got, want)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("stray temp file still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a temp file of another file was removed: %v", err)
	}
}

func TestLoadPersistedErrors(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"garbage", "\x00\x01 not toml", "persisted_settings.toml:1: "},
		{"a table", "max_connections = \"1\"\n[section]\nx = 1\n", `persisted_settings.toml:2: section: expected a value as text (name = "value"), got a table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "persisted_settings.toml")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadPersisted(path)
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(filepath.Dir(path), tt.want)) {
				t.Errorf("LoadPersisted error %v, want one starting with %q", err, tt.want)
			}
		})
	}
}

func TestLoadPersistedAcceptsNumbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "persisted_settings.toml")
	if err := os.WriteFile(path, []byte("max_connections = 12\ncpu_overload_warn_ratio = 0.95\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadPersisted(path)
	if err != nil {
		t.Fatalf("LoadPersisted: %v", err)
	}
	if want := map[string]string{"max_connections": "12", "cpu_overload_warn_ratio": "0.95"}; !maps.Equal(got, want) {
		t.Errorf("LoadPersisted = %v, want %v", got, want)
	}
}

func TestApplyPersisted(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]string
		want   func(c *Config)
		err    string
	}{
		{
			name: "persisted values win over the file",
			values: map[string]string{
				"max_connections":                     "5",
				"listen":                              "127.0.0.1:7000",
				"max_os_cpu_wait_time_ratio_to_throw": "3",
			},
			want: func(c *Config) {
				c.MaxConnections = 5
				c.Listen = "127.0.0.1:7000"
				c.Settings.MaxOSCPUWaitTimeRatioToThrow = 3
			},
		},
		{
			// Applied one by one, clear 0.95 would fail against the file's warn 0.9.
			name:   "validated as a whole",
			values: map[string]string{"cpu_overload_clear_ratio": "0.95", "cpu_overload_warn_ratio": "0.99"},
			want: func(c *Config) {
				c.Warnings.CPUClearRatio = 0.95
				c.Warnings.CPUWarnRatio = 0.99
			},
		},
		{
			name:   "unknown name",
			values: map[string]string{"max_connections": "5", "gone": "1"},
			err:    "persisted setting gone: unknown setting",
		},
		{
			name:   "bad value",
			values: map[string]string{"max_connections": "lots"},
			err:    `persisted setting max_connections: expected an integer, got a string ("lots")`,
		},
		{
			name:   "invalid result",
			values: map[string]string{"max_connections": "0"},
			err:    "persisted settings: max_connections (0) must be >= 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte("max_connections = 100\n"), "config.toml")
			if err != nil {
				t.Fatal(err)
			}
			want := c.Clone()
			err = c.ApplyPersisted(tt.values)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("ApplyPersisted error:\n got %v\nwant %s", err, tt.err)
				}
				if !reflect.DeepEqual(c, want) {
					t.Errorf("ApplyPersisted failed but changed the config: %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatalf("ApplyPersisted: %v", err)
			}
			tt.want(want)
			if !reflect.DeepEqual(c, want) {
				t.Errorf("ApplyPersisted:\n got %+v\nwant %+v", c, want)
			}
		})
	}
}
