package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func ptr(v float64) *float64 { return &v }

func TestParseValues(t *testing.T) {
	tests := []struct {
		name string
		file string
		want func(c *Config)
	}{
		{name: "empty file gives the defaults", file: "", want: func(*Config) {}},
		{
			name: "every key",
			file: `
listen = "0.0.0.0:3306"
admin_listen = ""
max_connections = 50
shutdown_timeout_s = 3
os_cpu_busy_time_threshold = 2000
asynchronous_metrics_update_period_s = 2
overload_sample_interval_ms = 250
min_os_cpu_wait_time_ratio_to_drop_connection = 2
max_os_cpu_wait_time_ratio_to_drop_connection = 6.5
overload_enforcement = "dry_run"
max_concurrent_statements = 16
max_queued_statements = 50
max_server_memory_usage = 8000000000
warning_suppress_regexp = "^High CPU"

[settings]
min_os_cpu_wait_time_ratio_to_throw = 1.5
max_os_cpu_wait_time_ratio_to_throw = 4
queue_max_wait_ms = 250

[constraints.max_os_cpu_wait_time_ratio_to_throw]
min = 2
max = 10.5
readonly = true

[resource_overload_warnings]
cpu_overload_warn_ratio = 1
cpu_overload_clear_ratio = 0.5
cpu_overload_duration_seconds = 1.5
memory_overload_warn_ratio = 0.95
memory_overload_clear_ratio = 0.7
memory_overload_duration_seconds = 0

[[users]]
name = "root"
password = "pw"
admin = true

[[users]]
name = "app"
password_sha256_hex = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"

[[users]]
name = "legacy"
password_double_sha1_hex = "14E65567ABDB5135D0CFD9A70B3032C179A49EE7"
`,
			want: func(c *Config) {
				c.Listen = "0.0.0.0:3306"
				c.AdminListen = ""
				c.MaxConnections = 50
				c.ShutdownTimeout = 3 * time.Second
				c.OSCPUBusyTimeThreshold = 2000
				c.AsynchronousMetricsUpdatePeriod = 2 * time.Second
				c.OverloadSampleInterval = 250 * time.Millisecond
				c.MinDropRatio = 2
				c.MaxDropRatio = 6.5
				c.OverloadEnforcement = EnforcementDryRun
				c.MaxServerMemoryUsage = 8_000_000_000
				c.WarningSuppressRegexp = "^High CPU"
				c.MaxConcurrentStatements = 16
				c.MaxQueuedStatements = 50
				c.Settings = SessionDefaults{MinOSCPUWaitTimeRatioToThrow: 1.5, MaxOSCPUWaitTimeRatioToThrow: 4, QueueMaxWaitMs: 250}
				c.Constraints = map[string]Constraint{
					"max_os_cpu_wait_time_ratio_to_throw": {Min: ptr(2), Max: ptr(10.5), Readonly: true},
				}
				c.Warnings = ResourceOverloadWarnings{
					CPUWarnRatio: 1, CPUClearRatio: 0.5, CPUDuration: 1500 * time.Millisecond,
					MemoryWarnRatio: 0.95, MemoryClearRatio: 0.7, MemoryDuration: 0,
				}
				c.Users = []User{
					{Name: "root", Password: "pw", Admin: true},
					{Name: "app", PasswordSHA256Hex: "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"},
					{Name: "legacy", PasswordDoubleSHA1Hex: "14E65567ABDB5135D0CFD9A70B3032C179A49EE7"},
				}
			},
		},
		{
			name: "dotted keys and inline tables",
			file: `
resource_overload_warnings.cpu_overload_warn_ratio = 0.95
constraints = { min_os_cpu_wait_time_ratio_to_throw = { max = 3 } }
users = [ { name = "a" }, { name = "b", admin = true } ]
`,
			want: func(c *Config) {
				c.Warnings.CPUWarnRatio = 0.95
				c.Constraints = map[string]Constraint{"min_os_cpu_wait_time_ratio_to_throw": {Max: ptr(3)}}
				c.Users = []User{{Name: "a"}, {Name: "b", Admin: true}}
			},
		},
		{
			name: "a float without a fraction is an integer",
			file: "max_connections = 10.0\n",
			want: func(c *Config) { c.MaxConnections = 10 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.file), "test.toml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := Default()
			want.Path = "test.toml"
			tt.want(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string // the whole error
	}{
		{
			name: "toml syntax keeps the library's line",
			file: "listen = \"a:1\"\n\nmax_connections = = 3\n",
			want: "config.toml:3: expected value but found '=' instead",
		},
		{
			name: "unknown key at top level with a suggestion",
			file: "max_connections = 3\n\nlistn = \"127.0.0.1:1\"\n",
			want: `config.toml:3: unknown key "listn" (did you mean "listen"?)`,
		},
		{
			name: "unknown key in a section",
			file: "[resource_overload_warnings]\ncpu_overload_warn_ratio = 0.9\n# comment\ncpu_overload_clear = 0.1\n",
			want: `config.toml:4: unknown key "resource_overload_warnings.cpu_overload_clear" (did you mean "cpu_overload_clear_ratio"?)`,
		},
		{
			name: "top-level key after a section header",
			file: "[settings]\nmax_os_cpu_wait_time_ratio_to_throw = 2\nmax_connections = 5\n",
			want: `config.toml:3: unknown key "settings.max_connections" (did you mean the top-level "max_connections"? top-level keys must come before the first [section] header)`,
		},
		{
			name: "section key at top level",
			file: "cpu_overload_warn_ratio = 0.5\n",
			want: `config.toml:1: unknown key "cpu_overload_warn_ratio" (did you mean "resource_overload_warnings.cpu_overload_warn_ratio"?)`,
		},
		{
			name: "unknown section",
			file: "\n[resource_overload_warning]\ncpu_overload_warn_ratio = 0.5\n",
			want: `config.toml:2: unknown key "resource_overload_warning" (did you mean "resource_overload_warnings"?)`,
		},
		{
			name: "unknown key in a user, with the user's line",
			file: "[[users]]\nname = \"a\"\n\n[[users]]\nname = \"b\"\nadmn = true\n",
			want: `config.toml:6: unknown key "users[1].admn" (did you mean "admin"?)`,
		},
		{
			name: "unknown key in a constraint",
			file: "[constraints.max_os_cpu_wait_time_ratio_to_throw]\nminimum = 1\n",
			want: `config.toml:2: unknown key "constraints.max_os_cpu_wait_time_ratio_to_throw.minimum"`,
		},
		{
			name: "string for an integer",
			file: "listen = \"127.0.0.1:1\"\n\nos_cpu_busy_time_threshold = \"abc\"\n",
			want: `config.toml:3: os_cpu_busy_time_threshold: expected an integer, got a string ("abc")`,
		},
		{
			name: "string for a number in a section",
			file: "[resource_overload_warnings]\ncpu_overload_warn_ratio = \"high\"\n",
			want: `config.toml:2: resource_overload_warnings.cpu_overload_warn_ratio: expected a number, got a string ("high")`,
		},
		{
			name: "fraction for an integer",
			file: "max_connections = 10.5\n",
			want: `config.toml:1: max_connections: expected an integer, got a float (10.5)`,
		},
		{
			name: "number for a string",
			file: "listen = 9004\n",
			want: `config.toml:1: listen: expected a string, got an integer (9004)`,
		},
		{
			name: "integer for a boolean",
			file: "[[users]]\nname = \"a\"\nadmin = 1\n",
			want: `config.toml:3: users[0].admin: expected a boolean (true or false), got an integer (1)`,
		},
		{
			name: "nan",
			file: "max_os_cpu_wait_time_ratio_to_drop_connection = nan\n",
			want: `config.toml:1: max_os_cpu_wait_time_ratio_to_drop_connection: expected a finite number, got NaN`,
		},
		{
			name: "negative unsigned",
			file: "max_server_memory_usage = -1\n",
			want: `config.toml:1: max_server_memory_usage: must be >= 0, got -1`,
		},
		{
			name: "a key that must be a table",
			file: "settings = 1\n",
			want: `config.toml:1: settings: expected a table ([settings]), got an integer (1)`,
		},
		{
			name: "clear above warn",
			file: "listen = \"127.0.0.1:1\"\n[resource_overload_warnings]\ncpu_overload_warn_ratio = 0.9\ncpu_overload_clear_ratio = 0.95\n",
			want: "config.toml:4: resource_overload_warnings.cpu_overload_clear_ratio (0.95) must be <= cpu_overload_warn_ratio (0.9)",
		},
		{
			name: "clear above the default warn points at clear",
			file: "[resource_overload_warnings]\nmemory_overload_clear_ratio = 1\n",
			want: "config.toml:2: resource_overload_warnings.memory_overload_clear_ratio (1) must be <= memory_overload_warn_ratio (0.9)",
		},
		{
			name: "warn below the default clear points at warn",
			file: "\n[resource_overload_warnings]\ncpu_overload_warn_ratio = 0.5\n",
			want: "config.toml:3: resource_overload_warnings.cpu_overload_clear_ratio (0.8) must be <= cpu_overload_warn_ratio (0.5)",
		},
		{
			name: "negative ratio",
			file: "min_os_cpu_wait_time_ratio_to_drop_connection = -1\n",
			want: "config.toml:1: min_os_cpu_wait_time_ratio_to_drop_connection (-1) must be a finite number >= 0",
		},
		{
			name: "negative session default",
			file: "[settings]\nmin_os_cpu_wait_time_ratio_to_throw = -0.5\n",
			want: "config.toml:2: settings.min_os_cpu_wait_time_ratio_to_throw (-0.5) must be a finite number >= 0",
		},
		{
			name: "negative duration",
			file: "[resource_overload_warnings]\ncpu_overload_duration_seconds = -1\n",
			want: "config.toml:2: resource_overload_warnings.cpu_overload_duration_seconds (-1) must be >= 0",
		},
		{
			name: "duration out of range",
			file: "[resource_overload_warnings]\ncpu_overload_duration_seconds = 1e300\n",
			want: "config.toml:2: resource_overload_warnings.cpu_overload_duration_seconds: must be between -9223372036 and 9223372036",
		},
		{
			name: "bad enforcement",
			file: "overload_enforcement = \"strict\"\n",
			want: `config.toml:1: overload_enforcement ("strict") must be "enforce" or "dry_run"`,
		},
		{
			name: "bad collation",
			file: "collation_server = \"Latin1; DROP\"\n",
			want: `config.toml:1: collation_server ("Latin1; DROP") must be a collation name such as "utf8mb4_0900_ai_ci" (SHOW COLLATION lists them)`,
		},
		{
			name: "bad regexp",
			file: "warning_suppress_regexp = \"(\"\n",
			want: "config.toml:1: warning_suppress_regexp (\"(\") is not a valid regular expression: error parsing regexp: missing closing ): `(`",
		},
		{
			name: "zero max_connections",
			file: "max_connections = 0\n",
			want: "config.toml:1: max_connections (0) must be >= 1",
		},
		{
			name: "max_concurrent_statements over the ceiling",
			file: "max_concurrent_statements = 10001\n",
			want: "config.toml:1: max_concurrent_statements (10001) must be between 0 (adaptive only) and 10000",
		},
		{
			name: "bad admission_control",
			file: "admission_control = \"auto\"\n",
			want: `config.toml:1: admission_control ("auto") must be "on" or "off"`,
		},
		{
			name: "negative max_queued_statements",
			file: "max_queued_statements = -1\n",
			want: "config.toml:1: max_queued_statements (-1) must be between 0 and 1000000",
		},
		{
			name: "queue_codel_interval_ms over a minute",
			file: "queue_codel_interval_ms = 60001\n",
			want: "config.toml:1: queue_codel_interval_ms (60001) must be between 0 and 60000",
		},
		{
			name: "queue_codel_target_ms not below the interval",
			file: "queue_codel_interval_ms = 100\nqueue_codel_target_ms = 100\n",
			want: "config.toml:2: queue_codel_target_ms (100) must be below queue_codel_interval_ms (100)",
		},
		{
			name: "queue_max_wait_ms over an hour",
			file: "[settings]\nqueue_max_wait_ms = 3600001\n",
			want: "config.toml:2: settings.queue_max_wait_ms (3600001) must be <= 3600000",
		},
		{
			name: "bad listen address",
			file: "listen = \"localhost\"\n",
			want: `config.toml:1: listen ("localhost") must be host:port with a numeric port, e.g. "127.0.0.1:9004"`,
		},
		{
			name: "admin_listen equal to listen",
			file: "listen = \"127.0.0.1:9005\"\n",
			want: `config.toml:1: admin_listen ("127.0.0.1:9005") must differ from listen`,
		},
		{
			name: "http_listen equal to admin_listen",
			file: "http_listen = \"127.0.0.1:9005\"\n",
			want: `config.toml:1: http_listen ("127.0.0.1:9005") must differ from admin_listen`,
		},
		{
			name: "retention of zero",
			file: "metric_log_retention_s = 0\n",
			want: `config.toml:1: metric_log_retention_s (0) must be a whole number of seconds from 1 to 86400`,
		},
		{
			name: "http_listen without a port",
			file: "http_listen = \"localhost\"\n",
			want: `config.toml:1: http_listen ("localhost") must be host:port with a numeric port, e.g. "127.0.0.1:9004"`,
		},
		{
			name: "window of zero seconds",
			file: "asynchronous_metrics_update_period_s = 0\n",
			want: "config.toml:1: asynchronous_metrics_update_period_s (0) must be a whole number of seconds >= 1",
		},
		{
			name: "sample interval too short",
			file: "overload_sample_interval_ms = 5\n",
			want: "config.toml:1: overload_sample_interval_ms (5) must be >= 10",
		},
		{
			name: "sample interval longer than the window",
			file: "overload_sample_interval_ms = 1500\n",
			want: "config.toml:1: overload_sample_interval_ms (1500) must be <= the window, asynchronous_metrics_update_period_s (1 s = 1000 ms)",
		},
		{
			name: "constraint on an unknown setting",
			file: "\n[constraints.max_memory_usage]\nmax = 1\n",
			want: `config.toml:2: constraints.max_memory_usage: unknown session setting "max_memory_usage" (known: min_os_cpu_wait_time_ratio_to_throw, max_os_cpu_wait_time_ratio_to_throw, queue_max_wait_ms)`,
		},
		{
			name: "constraint min above max",
			file: "[constraints.max_os_cpu_wait_time_ratio_to_throw]\nmin = 5\nmax = 2\n",
			want: "config.toml:3: constraints.max_os_cpu_wait_time_ratio_to_throw.min (5) must be <= max (2)",
		},
		{
			name: "default violates its constraint",
			file: "[settings]\nmax_os_cpu_wait_time_ratio_to_throw = 1\n\n[constraints.max_os_cpu_wait_time_ratio_to_throw]\nmin = 2\n",
			want: "config.toml:4: settings.max_os_cpu_wait_time_ratio_to_throw: the default 1 is below the minimum 2 (constraints.max_os_cpu_wait_time_ratio_to_throw.min)",
		},
		{
			name: "two password forms",
			file: "[[users]]\nname = \"a\"\npassword = \"x\"\npassword_sha256_hex = \"2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b\"\n",
			want: `config.toml:4: users[0] ("a"): set at most one of [password password_sha256_hex]`,
		},
		{
			name: "duplicate users",
			file: "[[users]]\nname = \"a\"\n[[users]]\nname = \"b\"\n[[users]]\nname = \"a\"\n",
			want: `config.toml:6: users[2].name: duplicate user "a" (also users[0])`,
		},
		{
			name: "user without a name",
			file: "[[users]]\nadmin = true\n",
			want: `config.toml:1: users[0].name must be set and non-empty`,
		},
		{
			name: "bad sha256 hex",
			file: "[[users]]\nname = \"a\"\npassword_sha256_hex = \"abc\"\n",
			want: `config.toml:3: users[0].password_sha256_hex must be 64 hexadecimal digits (the SHA-256 of the password), got "abc"`,
		},
		{
			name: "bad double sha1 hex",
			file: "[[users]]\nname = \"a\"\npassword_double_sha1_hex = \"zz65567ABDB5135D0CFD9A70B3032C179A49EE7\"\n",
			want: `config.toml:3: users[0].password_double_sha1_hex must be 40 hexadecimal digits (the SHA-1 of the SHA-1 of the password), got "zz65567ABDB5135D0CFD9A70B3032C179A49EE7"`,
		},
		{
			name: "no users",
			file: "users = []\n",
			want: `config.toml:1: users: at least one user is required`,
		},
		{
			name: "several problems, in line order",
			file: "max_connections = 0\nlistn = \"x\"\n",
			want: "config.toml:2: unknown key \"listn\" (did you mean \"listen\"?)",
		},
		{
			name: "several validation problems, in line order",
			file: "overload_enforcement = \"x\"\nmax_connections = 0\n",
			want: "config.toml:1: overload_enforcement (\"x\") must be \"enforce\" or \"dry_run\"\nconfig.toml:2: max_connections (0) must be >= 1",
		},
		{
			name: "a multi-line string does not confuse the lines",
			file: "warning_suppress_regexp = '''\nlisten = 1\n'''\nmax_connections = \"x\"\n",
			want: `config.toml:4: max_connections: expected an integer, got a string ("x")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.file), "config.toml")
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", c)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(path, []byte("max_connections = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.MaxConnections != 7 || c.Path != path {
		t.Errorf("Load: MaxConnections %d, Path %q", c.MaxConnections, c.Path)
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Errorf("Load of a missing file: %v, want an error naming it", err)
	}
}

// The repository's config.toml documents every default: loading it must give Default().
func TestRepositoryConfigIsTheDefault(t *testing.T) {
	path := filepath.Join("..", "..", "config.toml")
	c, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c.Path = ""
	if want := Default(); !reflect.DeepEqual(c, want) {
		t.Errorf("config.toml:\n got %+v\nwant %+v", c, want)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := scanKeyLines(string(data))
	last := 0
	for _, s := range serverSettings {
		path := []string{s.name}
		if s.section != "" {
			path = []string{s.section, s.name}
		}
		line, ok := lines[pathID(path)]
		if !ok {
			t.Errorf("config.toml does not set %s", displayPath(path))
			continue
		}
		if line < last {
			t.Errorf("config.toml sets %s on line %d, before the previous setting of the catalog (line %d)",
				displayPath(path), line, last)
		}
		last = line
	}
	for _, s := range sessionSettings {
		if _, ok := lines[pathID([]string{"settings", s.Name})]; !ok {
			t.Errorf("config.toml does not set settings.%s", s.Name)
		}
	}
}

func TestValidateDefault(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default().Validate: %v", err)
	}
}

func TestClone(t *testing.T) {
	c := Default()
	c.Constraints["max_os_cpu_wait_time_ratio_to_throw"] = Constraint{Min: ptr(1)}
	n := c.Clone()
	*n.Constraints["max_os_cpu_wait_time_ratio_to_throw"].Min = 5
	n.Constraints["min_os_cpu_wait_time_ratio_to_throw"] = Constraint{}
	n.Users[0].Name = "changed"
	if got := *c.Constraints["max_os_cpu_wait_time_ratio_to_throw"].Min; got != 1 {
		t.Errorf("constraint min of the original changed to %v", got)
	}
	if len(c.Constraints) != 1 || c.Users[0].Name != "default" {
		t.Errorf("original changed: %+v", c)
	}
}

func TestConstraintCheck(t *testing.T) {
	const name = "max_os_cpu_wait_time_ratio_to_throw"
	tests := []struct {
		k    Constraint
		v    float64
		want string
	}{
		{Constraint{}, 0, ""},
		{Constraint{Min: ptr(2), Max: ptr(10)}, 2, ""},
		{Constraint{Min: ptr(2), Max: ptr(10)}, 10, ""},
		{Constraint{Min: ptr(2)}, 0, "setting max_os_cpu_wait_time_ratio_to_throw: the value 0 is below the minimum 2 (constraints.max_os_cpu_wait_time_ratio_to_throw.min)"},
		{Constraint{Max: ptr(10)}, 11, "setting max_os_cpu_wait_time_ratio_to_throw: the value 11 is above the maximum 10 (constraints.max_os_cpu_wait_time_ratio_to_throw.max)"},
		{Constraint{Readonly: true}, 3, "setting max_os_cpu_wait_time_ratio_to_throw is readonly (constraints.max_os_cpu_wait_time_ratio_to_throw.readonly)"},
	}
	for _, tt := range tests {
		err := tt.k.Check(name, tt.v)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Check(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestParseWorkloads(t *testing.T) {
	file := `admission_stall_limit_ms = 250

[constraints.workload]
readonly = true

[[users]]
name = "app"
workload = "web"

[[workloads]]
name = "web"
weight = 3

[[workloads]]
name = "reports"
priority = 1
max_concurrent_statements = 2
max_queued_statements = 10
max_memory_usage = 1073741824
`
	c, err := Parse([]byte(file), "config.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Workload{
		{Name: "web", Weight: 3},
		{Name: "reports", Priority: 1, Weight: 1, MaxConcurrentStatements: 2, MaxQueuedStatements: 10, MaxMemoryUsage: 1 << 30},
	}
	if !reflect.DeepEqual(c.Workloads, want) {
		t.Errorf("workloads %+v, want %+v", c.Workloads, want)
	}
	if got := c.AllWorkloads(); len(got) != 3 || got[2] != (Workload{Name: DefaultWorkload, Weight: 1}) {
		t.Errorf("AllWorkloads %+v, want the default added last", got)
	}
	if c.AdmissionStallLimit != 250*time.Millisecond || c.UserWorkload("app") != "web" || c.UserWorkload("nobody") != DefaultWorkload {
		t.Errorf("stall limit %v, app's workload %q", c.AdmissionStallLimit, c.UserWorkload("app"))
	}
	if !c.Constraints[WorkloadSetting].Readonly {
		t.Error("constraints.workload.readonly not read")
	}
	if got := c.Clone(); !reflect.DeepEqual(got.Workloads, c.Workloads) {
		t.Errorf("Clone lost the workloads: %+v", got.Workloads)
	}
	for _, tc := range []struct{ name, file, want string }{
		{"duplicate", "[[workloads]]\nname = \"a\"\n\n[[workloads]]\nname = \"a\"\n",
			`config.toml:5: workloads[1].name: duplicate workload "a" (also workloads[0])`},
		{"bad name", "[[workloads]]\nname = \"a b\"\n",
			`config.toml:2: workloads[0].name ("a b") must be 1 to 64 letters, digits or underscores`},
		{"weight 0", "[[workloads]]\nname = \"a\"\nweight = 0\n",
			`config.toml:3: workloads[0].weight (0) must be a number above 0 and at most 1000000`},
		{"negative memory", "[[workloads]]\nname = \"a\"\nmax_memory_usage = -1\n",
			`config.toml:3: workloads[0].max_memory_usage: must be >= 0 bytes (0 = no bound of its own), got -1`},
		{"unknown key", "[[workloads]]\nname = \"a\"\nwieght = 2\n",
			`config.toml:3: unknown key "workloads[0].wieght" (did you mean "weight"?)`},
		{"a user's unknown workload", "[[users]]\nname = \"u\"\nworkload = \"etl\"\n",
			`config.toml:3: users[0].workload: unknown workload "etl" (known: default)`},
		{"a range on the workload name", "[constraints.workload]\nmin = 1\n",
			`config.toml:1: constraints.workload: only readonly applies to a workload name`},
		{"stall limit over an hour", "admission_stall_limit_ms = 3600001\n",
			`config.toml:1: admission_stall_limit_ms (3600001) must be between 0 (off) and 3600000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file), "config.toml")
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
