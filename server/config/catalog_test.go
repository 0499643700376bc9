package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestServerSettingsCatalog(t *testing.T) {
	settings := ServerSettings()
	if len(settings) != 42 {
		t.Errorf("ServerSettings: %d settings, want 42 (36 top-level + 6 warnings)", len(settings))
	}
	want := map[string]ServerSetting{
		"listen":                          {Type: "String", Default: "127.0.0.1:9004", Reloadable: false},
		"admin_listen":                    {Type: "String", Default: "127.0.0.1:9005", Reloadable: false},
		"http_listen":                     {Type: "String", Default: "127.0.0.1:9363", Reloadable: false},
		"metric_log_retention_s":          {Type: "UInt64", Default: "3600", Reloadable: false},
		"max_connections":                 {Type: "UInt64", Default: "1024", Reloadable: true},
		"shutdown_timeout_s":              {Type: "UInt64", Default: "10", Reloadable: true},
		"connect_timeout":                 {Type: "UInt64", Default: "10", Reloadable: true},
		"max_allowed_packet":              {Type: "UInt64", Default: "67108864", Reloadable: true},
		"admin_max_connections":           {Type: "UInt64", Default: "64", Reloadable: true},
		"max_unauthenticated_connections": {Type: "UInt64", Default: "64", Reloadable: true},
		"connection_control_failed_connections_threshold": {Type: "UInt64", Default: "3", Reloadable: true},
		"connection_control_min_connection_delay":         {Type: "UInt64", Default: "1000", Reloadable: true},
		"connection_control_max_connection_delay":         {Type: "UInt64", Default: "10000", Reloadable: true},
		"os_cpu_busy_time_threshold":                      {Type: "UInt64", Default: "1000000", Reloadable: true},
		"overload_sample_interval_ms":                     {Type: "UInt64", Default: "100", Reloadable: true},
		"overload_enforcement":                            {Type: "String", Default: "enforce", Reloadable: true},
		"admission_control":                               {Type: "String", Default: "on", Reloadable: true},
		"max_concurrent_statements":                       {Type: "UInt64", Default: "0", Reloadable: true},
		"max_queued_statements":                           {Type: "UInt64", Default: "1000", Reloadable: true},
		"queue_codel_interval_ms":                         {Type: "UInt64", Default: "0", Reloadable: true},
		"queue_codel_target_ms":                           {Type: "UInt64", Default: "5", Reloadable: true},
		"max_memory_usage_for_session":                    {Type: "UInt64", Default: "0", Reloadable: true},
		"warning_suppress_regexp":                         {Type: "String", Default: "", Reloadable: true},
		"tls_cert_file":                                   {Type: "String", Default: "", Reloadable: true},
		"tls_key_file":                                    {Type: "String", Default: "", Reloadable: true},
		"require_secure_transport":                        {Type: "String", Default: "OFF", Reloadable: true},
		"secure_file_priv":                                {Type: "String", Default: "", Reloadable: false},
		"collation_server":                                {Type: "String", Default: "utf8mb4_0900_bin", Reloadable: false, Engine: true},
		"cpu_overload_warn_ratio":                         {Type: "Float64", Default: "0.9", Reloadable: true},
		"cpu_overload_duration_seconds":                   {Type: "Float64", Default: "600", Reloadable: true},
		"max_os_cpu_wait_time_ratio_to_drop_connection":   {Type: "Float64", Default: "0", Reloadable: true},
	}
	seen := map[string]bool{}
	for _, s := range settings {
		if seen[s.Name] {
			t.Errorf("ServerSettings: %s twice", s.Name)
		}
		seen[s.Name] = true
		if s.Description == "" || strings.Contains(s.Description, "\n") {
			t.Errorf("ServerSettings: %s: description must be one non-empty line: %q", s.Name, s.Description)
		}
		if w, ok := want[s.Name]; ok {
			w.Name, w.Description = s.Name, s.Description
			if s != w {
				t.Errorf("ServerSettings: got %+v, want %+v", s, w)
			}
		}
		if v, ok := Default().ServerSettingValue(s.Name); !ok || v != s.Default {
			t.Errorf("ServerSettingValue(%s) = %q, %v; want the default %q", s.Name, v, ok, s.Default)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("ServerSettings: %s missing", name)
		}
	}
	if _, ok := Default().ServerSettingValue("nope"); ok {
		t.Error("ServerSettingValue of an unknown name reports ok")
	}
}

func TestSessionSettingsCatalog(t *testing.T) {
	var names []string
	for _, s := range SessionSettings() {
		names = append(names, s.Name)
		if s.Type != "Float64" || s.Description == "" {
			t.Errorf("SessionSettings: %+v", s)
		}
	}
	if want := []string{"min_os_cpu_wait_time_ratio_to_throw", "max_os_cpu_wait_time_ratio_to_throw", "queue_max_wait_ms"}; !slices.Equal(names, want) {
		t.Errorf("SessionSettings: %v, want %v", names, want)
	}
	c := Default()
	c.Settings.MaxOSCPUWaitTimeRatioToThrow = 2.5
	if v, ok := c.SessionDefault("max_os_cpu_wait_time_ratio_to_throw"); !ok || v != 2.5 {
		t.Errorf("SessionDefault = %v, %v; want 2.5, true", v, ok)
	}
	if _, ok := c.SessionDefault("listen"); ok {
		t.Error("SessionDefault of a server setting reports ok")
	}
}

func TestSetServerSetting(t *testing.T) {
	tests := []struct {
		name, value string
		check       func(c *Config) bool
		text        string // ServerSettingValue afterwards
		err         string // "" = success
	}{
		{name: "max_connections", value: "10", text: "10",
			check: func(c *Config) bool { return c.MaxConnections == 10 }},
		{name: "max_connections", value: " 12 ", text: "12",
			check: func(c *Config) bool { return c.MaxConnections == 12 }},
		{name: "max_connections", value: "20.0", text: "20",
			check: func(c *Config) bool { return c.MaxConnections == 20 }},
		{name: "shutdown_timeout_s", value: "3", text: "3",
			check: func(c *Config) bool { return c.ShutdownTimeout == 3*time.Second }},
		{name: "overload_sample_interval_ms", value: "250", text: "250",
			check: func(c *Config) bool { return c.OverloadSampleInterval == 250*time.Millisecond }},
		{name: "os_cpu_busy_time_threshold", value: "0", text: "0",
			check: func(c *Config) bool { return c.OSCPUBusyTimeThreshold == 0 }},
		{name: "max_os_cpu_wait_time_ratio_to_drop_connection", value: "6", text: "6",
			check: func(c *Config) bool { return c.MaxDropRatio == 6 }},
		{name: "min_os_cpu_wait_time_ratio_to_drop_connection", value: "2.7679569453035255", text: "2.7679569453035255",
			check: func(c *Config) bool { return c.MinDropRatio == 2.7679569453035255 }},
		{name: "overload_enforcement", value: "dry_run", text: "dry_run",
			check: func(c *Config) bool { return c.OverloadEnforcement == EnforcementDryRun }},
		{name: "max_server_memory_usage", value: "9120000000", text: "9120000000",
			check: func(c *Config) bool { return c.MaxServerMemoryUsage == 9_120_000_000 }},
		{name: "max_memory_usage_for_session", value: "134217728", text: "134217728",
			check: func(c *Config) bool { return c.MaxMemoryUsageForSession == 134_217_728 }},
		{name: "warning_suppress_regexp", value: "^High", text: "^High",
			check: func(c *Config) bool { return c.WarningSuppressRegexp == "^High" }},
		{name: "cpu_overload_clear_ratio", value: "0.5", text: "0.5",
			check: func(c *Config) bool { return c.Warnings.CPUClearRatio == 0.5 }},
		{name: "memory_overload_duration_seconds", value: "0.25", text: "0.25",
			check: func(c *Config) bool { return c.Warnings.MemoryDuration == 250*time.Millisecond }},
		{name: "cpu_overload_duration_seconds", value: "0.3", text: "0.3",
			check: func(c *Config) bool { return c.Warnings.CPUDuration == 300*time.Millisecond }},
		{name: "listen", value: "0.0.0.0:3306", text: "0.0.0.0:3306",
			check: func(c *Config) bool { return c.Listen == "0.0.0.0:3306" }},

		{name: "max_conections", value: "1", err: `unknown server setting "max_conections" (did you mean "max_connections"?)`},
		{name: "min_os_cpu_wait_time_ratio_to_throw", value: "1", err: `unknown server setting "min_os_cpu_wait_time_ratio_to_throw" (it is a session setting)`},
		{name: "max_connections", value: "many", err: `max_connections: expected an integer, got a string ("many")`},
		{name: "max_connections", value: "1.5", err: `max_connections: expected an integer, got a float (1.5)`},
		{name: "max_server_memory_usage", value: "-1", err: `max_server_memory_usage: must be >= 0, got -1`},
		{name: "cpu_overload_warn_ratio", value: "NaN", err: `cpu_overload_warn_ratio: expected a finite number, got NaN`},
		{name: "max_connections", value: "0", err: `max_connections (0) must be >= 1`},
		{name: "cpu_overload_clear_ratio", value: "0.95",
			err: `resource_overload_warnings.cpu_overload_clear_ratio (0.95) must be <= cpu_overload_warn_ratio (0.9)`},
		{name: "overload_enforcement", value: "off", err: `overload_enforcement ("off") must be "enforce" or "dry_run"`},
		{name: "warning_suppress_regexp", value: "[", err: "warning_suppress_regexp (\"[\") is not a valid regular expression: error parsing regexp: missing closing ]: `[`"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			c := Default()
			err := c.SetServerSetting(tt.name, tt.value)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("SetServerSetting error:\n got %v\nwant %s", err, tt.err)
				}
				if !reflect.DeepEqual(c, Default()) {
					t.Errorf("SetServerSetting failed but changed the config: %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatalf("SetServerSetting: %v", err)
			}
			if !tt.check(c) {
				t.Errorf("SetServerSetting did not set the field: %+v", c)
			}
			if got, _ := c.ServerSettingValue(tt.name); got != tt.text {
				t.Errorf("ServerSettingValue = %q, want %q", got, tt.text)
			}
		})
	}
}

func TestSetSessionDefault(t *testing.T) {
	c := Default()
	c.Constraints["max_os_cpu_wait_time_ratio_to_throw"] = Constraint{Max: ptr(10)}
	if err := c.SetSessionDefault("max_os_cpu_wait_time_ratio_to_throw", "4"); err != nil {
		t.Fatalf("SetSessionDefault: %v", err)
	}
	if c.Settings.MaxOSCPUWaitTimeRatioToThrow != 4 {
		t.Errorf("SetSessionDefault did not set it: %+v", c.Settings)
	}
	for _, tt := range []struct{ name, value, err string }{
		{"max_os_cpu_wait_time_ratio_to_throw", "11",
			"settings.max_os_cpu_wait_time_ratio_to_throw: the default 11 is above the maximum 10 (constraints.max_os_cpu_wait_time_ratio_to_throw.max)"},
		{"max_os_cpu_wait_time_ratio_to_throw", "x", `max_os_cpu_wait_time_ratio_to_throw: expected a number, got a string ("x")`},
		{"min_os_cpu_wait_time_ratio_to_throw", "-1", "settings.min_os_cpu_wait_time_ratio_to_throw (-1) must be a finite number >= 0"},
		{"max_connections", "1", `unknown session setting "max_connections" (it is a server setting)`},
		{"max_os_cpu_wait_time_ratio_to_thro", "1", `unknown session setting "max_os_cpu_wait_time_ratio_to_thro" (did you mean "max_os_cpu_wait_time_ratio_to_throw"?)`},
	} {
		if err := c.SetSessionDefault(tt.name, tt.value); err == nil || err.Error() != tt.err {
			t.Errorf("SetSessionDefault(%s, %s):\n got %v\nwant %s", tt.name, tt.value, err, tt.err)
		}
	}
	if c.Settings.MaxOSCPUWaitTimeRatioToThrow != 4 || c.Settings.MinOSCPUWaitTimeRatioToThrow != 0 {
		t.Errorf("failed SetSessionDefault changed the settings: %+v", c.Settings)
	}
}

func TestRestartRequired(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *Config)
		want   []string
	}{
		{"nothing", func(*Config) {}, nil},
		{"reloadable settings only", func(c *Config) {
			c.MaxConnections = 5
			c.Warnings.CPUWarnRatio = 0.95
			c.Constraints["max_os_cpu_wait_time_ratio_to_throw"] = Constraint{Readonly: true}
			c.Settings.MaxOSCPUWaitTimeRatioToThrow = 3
		}, nil},
		{"listeners", func(c *Config) {
			c.Listen = "0.0.0.0:1"
			c.AdminListen = ""
		}, []string{"listen", "admin_listen"}},
		{"a user's password", func(c *Config) { c.Users[0].Password = "x" }, []string{"users"}},
		{"a user more", func(c *Config) { c.Users = append(c.Users, User{Name: "b"}) }, []string{"users"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := Default()
			n := old.Clone()
			tt.change(n)
			if got := RestartRequired(old, n); !slices.Equal(got, tt.want) {
				t.Errorf("RestartRequired = %v, want %v", got, tt.want)
			}
		})
	}
}
