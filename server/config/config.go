package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"overloadsql/admission"
)

// Config is the whole configuration of the server: the server settings, the defaults and
// constraints of the session settings, and the users.
type Config struct {
	Path string // file it came from ("" = built-in defaults)

	Listen                          string        // listen (restart needed)
	AdminListen                     string        // admin_listen, "" disables (restart needed)
	HTTPListen                      string        // http_listen, "" disables (restart needed)
	MetricLogRetention              time.Duration // metric_log_retention_s (restart needed)
	MaxConnections                  int           // max_connections
	ShutdownTimeout                 time.Duration // shutdown_timeout_s
	ConnectTimeout                  time.Duration // connect_timeout
	MaxAllowedPacket                int           // max_allowed_packet, bytes
	AdminMaxConnections             int           // admin_max_connections
	MaxUnauthenticatedConnections   int           // max_unauthenticated_connections, per listener
	FailedLoginThreshold            int           // connection_control_failed_connections_threshold, 0 = off
	FailedLoginMinDelay             time.Duration // connection_control_min_connection_delay, ms
	FailedLoginMaxDelay             time.Duration // connection_control_max_connection_delay, ms
	OSCPUBusyTimeThreshold          uint64        // os_cpu_busy_time_threshold, µs
	AsynchronousMetricsUpdatePeriod time.Duration // asynchronous_metrics_update_period_s
	OverloadSampleInterval          time.Duration // overload_sample_interval_ms
	MinDropRatio                    float64       // min_os_cpu_wait_time_ratio_to_drop_connection
	MaxDropRatio                    float64       // max_os_cpu_wait_time_ratio_to_drop_connection
	AdmissionControl                string        // admission_control: AdmissionOn | AdmissionOff
	MaxConcurrentStatements         int           // max_concurrent_statements, 0 = adaptive only
	MaxQueuedStatements             int           // max_queued_statements
	QueueCodelInterval              time.Duration // queue_codel_interval_ms, 0 = off
	QueueCodelTarget                time.Duration // queue_codel_target_ms
	AdmissionStallLimit             time.Duration // admission_stall_limit_ms, 0 = off
	OverloadEnforcement             string        // overload_enforcement: EnforcementEnforce | EnforcementDryRun
	MaxServerMemoryUsage            uint64        // max_server_memory_usage, bytes, 0 = none
	MaxMemoryUsageForSession        uint64        // max_memory_usage_for_session, bytes, 0 = 25% of the memory limit
	WarningSuppressRegexp           string        // warning_suppress_regexp, "" = none
	CollationServer                 string        // collation_server: default collation, e.g. utf8mb4_0900_ai_ci
	SecureFilePriv                  string        // secure_file_priv, "" = no file access from SQL (restart needed)
	TLSCertFile                     string        // tls_cert_file, "" = the generated certificate
	TLSKeyFile                      string        // tls_key_file, "" = the generated key
	RequireSecureTransport          string        // require_secure_transport: SwitchOn | SwitchOff
	DataDir                         string        // data_dir: where the databases live, relative to the config file (restart needed)
	StorageSync                     string        // storage_sync: SyncCommit | SyncNone (restart needed)
	StorageCacheBytes               uint64        // storage_cache_bytes: the block cache, bytes (restart needed)

	Warnings    ResourceOverloadWarnings // [resource_overload_warnings]
	Settings    SessionDefaults          // [settings]
	Constraints map[string]Constraint    // [constraints.<session setting name>]
	Users       []User                   // [[users]]
	Workloads   []Workload               // [[workloads]]; DefaultWorkload is built in
}

// Workload is one [[workloads]] table: a class of statements with a queue of its own.
type Workload struct {
	Name                    string
	Priority                int     // lower runs first (ClickHouse's sense)
	Weight                  float64 // share of the CPU among workloads of the same priority, > 0
	MaxConcurrentStatements int     // 0 = no bound of its own
	MaxQueuedStatements     int     // 0 = no bound of its own
	MaxMemoryUsage          uint64  // bytes, 0 = no bound of its own
}

// DefaultWorkload is the workload of users that name none; it exists whether or not the file
// defines it (with priority 0, weight 1 and no bounds when it does not).
const DefaultWorkload = "default"

// WorkloadSetting is the session variable that names a session's workload.
const WorkloadSetting = "workload"

// AllWorkloads returns the configured workloads with DefaultWorkload added when the file does
// not define it, in the file's order.
func (c *Config) AllWorkloads() []Workload {
	out := slices.Clone(c.Workloads)
	if !slices.ContainsFunc(out, func(w Workload) bool { return w.Name == DefaultWorkload }) {
		out = append(out, Workload{Name: DefaultWorkload, Weight: 1})
	}
	return out
}

// LookupWorkload returns the workload named name.
func (c *Config) LookupWorkload(name string) (Workload, bool) {
	for _, w := range c.AllWorkloads() {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// WorkloadNames returns the names of every workload, sorted.
func (c *Config) WorkloadNames() []string {
	var names []string
	for _, w := range c.AllWorkloads() {
		names = append(names, w.Name)
	}
	slices.Sort(names)
	return names
}

// UserWorkload returns the default workload of the user; DefaultWorkload for an unknown user.
func (c *Config) UserWorkload(user string) string {
	for _, u := range c.Users {
		if u.Name == user && u.Workload != "" {
			return u.Workload
		}
	}
	return DefaultWorkload
}

// MaxMetricLogRetention bounds metric_log_retention_s: the history is kept in memory.
const MaxMetricLogRetention = 24 * time.Hour

// Values of require_secure_transport, MySQL's.
const (
	SwitchOn  = "ON"
	SwitchOff = "OFF"
)

// Values of storage_sync.
const (
	SyncCommit = "commit" // every acknowledged commit is on disk
	SyncNone   = "none"   // the log is synced every second
)

// Bounds of storage_cache_bytes.
const (
	MinStorageCacheBytes = 1 << 20
	MaxStorageCacheBytes = 1 << 40
)

// Values of overload_enforcement.
const (
	EnforcementEnforce = "enforce" // reject queries and drop connections
	EnforcementDryRun  = "dry_run" // decide, count and log, but serve
)

// Values of admission_control.
const (
	AdmissionOn  = "on"  // ordinary statements take a CPU slot, or wait for one
	AdmissionOff = "off" // every statement runs at once
)

// DefaultCollation compares bytes. MySQL 8's default, utf8mb4_0900_ai_ci, is available with
// collation_server, but the engine does not carry it through: an UPDATE that changes only the
// case or accents of a value is taken for no change and not applied, and UNIQUE and PRIMARY KEY
// indexes compare bytes. A byte-comparing default keeps every write applied.
const DefaultCollation = "utf8mb4_0900_bin"

// collationName is the form of a collation name; the server checks that the engine knows it.
var collationName = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// ResourceOverloadWarnings holds the thresholds of the CPU and memory warnings: a warning is
// raised when the value stays at or above the warn ratio for the duration, and cleared when the
// value falls to the clear ratio or below.
type ResourceOverloadWarnings struct {
	CPUWarnRatio, CPUClearRatio       float64
	CPUDuration                       time.Duration
	MemoryWarnRatio, MemoryClearRatio float64
	MemoryDuration                    time.Duration
}

// SessionDefaults holds the values a new session starts with.
type SessionDefaults struct {
	MinOSCPUWaitTimeRatioToThrow float64 // min_os_cpu_wait_time_ratio_to_throw
	MaxOSCPUWaitTimeRatioToThrow float64 // max_os_cpu_wait_time_ratio_to_throw
	QueueMaxWaitMs               float64 // queue_max_wait_ms
}

// Constraint limits what a non-admin session may set a session setting to.
type Constraint struct {
	Min, Max *float64 // nil = unbounded
	Readonly bool     // the session may not change the setting at all
}

// User is an account that may log in. At most one password form is set; none means an empty
// password.
type User struct {
	Name                  string
	Password              string // plain text, for local use
	PasswordSHA256Hex     string // hex of SHA-256(password), 64 digits
	PasswordDoubleSHA1Hex string // hex of SHA-1(SHA-1(password)), 40 digits
	Admin                 bool
	Workload              string // default workload of the user's sessions; "" = DefaultWorkload
}

// Default returns the built-in configuration: the one the server runs on without a file.
func Default() *Config {
	return &Config{
		Listen:                          "127.0.0.1:9004",
		AdminListen:                     "127.0.0.1:9005",
		HTTPListen:                      "127.0.0.1:9363",
		MetricLogRetention:              time.Hour,
		MaxConnections:                  1024,
		ShutdownTimeout:                 10 * time.Second,
		ConnectTimeout:                  10 * time.Second,
		MaxAllowedPacket:                64 << 20,
		AdminMaxConnections:             64,
		MaxUnauthenticatedConnections:   64,
		FailedLoginThreshold:            3,
		FailedLoginMinDelay:             time.Second,
		FailedLoginMaxDelay:             10 * time.Second,
		OSCPUBusyTimeThreshold:          1_000_000,
		AsynchronousMetricsUpdatePeriod: time.Second,
		OverloadSampleInterval:          100 * time.Millisecond,
		AdmissionControl:                AdmissionOn,
		MaxQueuedStatements:             1000,
		QueueCodelTarget:                5 * time.Millisecond,
		AdmissionStallLimit:             500 * time.Millisecond,
		OverloadEnforcement:             EnforcementEnforce,
		RequireSecureTransport:          SwitchOff,
		CollationServer:                 DefaultCollation,
		DataDir:                         "data",
		StorageSync:                     SyncCommit,
		StorageCacheBytes:               64 << 20,
		Warnings: ResourceOverloadWarnings{
			CPUWarnRatio:     0.9,
			CPUClearRatio:    0.8,
			CPUDuration:      600 * time.Second,
			MemoryWarnRatio:  0.9,
			MemoryClearRatio: 0.8,
			MemoryDuration:   600 * time.Second,
		},
		Settings:    SessionDefaults{QueueMaxWaitMs: 5000},
		Constraints: map[string]Constraint{},
		Users:       []User{{Name: "default", Admin: true}},
	}
}

// Clone returns a deep copy of c.
func (c *Config) Clone() *Config {
	n := *c
	if c.Constraints != nil {
		n.Constraints = make(map[string]Constraint, len(c.Constraints))
		for name, k := range c.Constraints {
			n.Constraints[name] = Constraint{Min: clonePtr(k.Min), Max: clonePtr(k.Max), Readonly: k.Readonly}
		}
	}
	n.Users = slices.Clone(c.Users)
	n.Workloads = slices.Clone(c.Workloads)
	return &n
}

func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// A keyError is a problem with one key of the configuration; the message starts with the key's
// name. Parse points at the line of path; for a problem between two keys, at the line of also
// when the file sets only that one.
type keyError struct {
	path, also []string
	msg        string
}

func (e *keyError) Error() string { return e.msg }

func keyErrorf(path []string, format string, args ...any) error {
	return &keyError{path: path, msg: fmt.Sprintf(format, args...)}
}

func pairErrorf(path, also []string, format string, args ...any) error {
	return &keyError{path: path, also: also, msg: fmt.Sprintf(format, args...)}
}

const warningsSection = "resource_overload_warnings"

// maxQueuedStatementsLimit bounds max_queued_statements: a queued statement holds a connection,
// and a million connections is beyond any server of this kind.
const maxQueuedStatementsLimit = 1_000_000

// maxStallLimitMillis bounds admission_stall_limit_ms: an hour, as queue_max_wait_ms.
const maxStallLimitMillis = 3_600_000

// Bounds of a workload's keys.
const (
	maxWorkloadPriority = 1_000_000
	maxWorkloadWeight   = 1_000_000
)

// workloadName is the form of a workload's name.
var workloadName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// validateWorkloads checks the [[workloads]] tables and the users' workloads.
func (c *Config) validateWorkloads() []error {
	var errs []error
	first := map[string]int{}
	for i, w := range c.Workloads {
		at := func(key string) []string { return []string{"workloads", indexPiece(i), key} }
		switch j, dup := first[w.Name]; {
		case !workloadName.MatchString(w.Name):
			errs = append(errs, keyErrorf(at("name"), "workloads[%d].name (%q) must be 1 to 64 letters, digits or underscores", i, w.Name))
		case dup:
			errs = append(errs, keyErrorf(at("name"), "workloads[%d].name: duplicate workload %q (also workloads[%d])", i, w.Name, j))
		default:
			first[w.Name] = i
		}
		if w.Priority < -maxWorkloadPriority || w.Priority > maxWorkloadPriority {
			errs = append(errs, keyErrorf(at("priority"), "workloads[%d].priority (%d) must be between %d and %d (lower runs first)",
				i, w.Priority, -maxWorkloadPriority, maxWorkloadPriority))
		}
		if !(w.Weight > 0 && w.Weight <= maxWorkloadWeight) {
			errs = append(errs, keyErrorf(at("weight"), "workloads[%d].weight (%s) must be a number above 0 and at most %d",
				i, formatFloat(w.Weight), maxWorkloadWeight))
		}
		if w.MaxConcurrentStatements < 0 || w.MaxConcurrentStatements > admission.AdaptiveCeiling {
			errs = append(errs, keyErrorf(at("max_concurrent_statements"), "workloads[%d].max_concurrent_statements (%d) must be between 0 (no bound of its own) and %d",
				i, w.MaxConcurrentStatements, admission.AdaptiveCeiling))
		}
		if w.MaxQueuedStatements < 0 || w.MaxQueuedStatements > maxQueuedStatementsLimit {
			errs = append(errs, keyErrorf(at("max_queued_statements"), "workloads[%d].max_queued_statements (%d) must be between 0 (no bound of its own) and %d",
				i, w.MaxQueuedStatements, maxQueuedStatementsLimit))
		}
	}
	names := c.WorkloadNames()
	for i, u := range c.Users {
		if u.Workload != "" && !slices.Contains(names, u.Workload) {
			errs = append(errs, keyErrorf([]string{"users", indexPiece(i), "workload"}, "users[%d].workload: unknown workload %q (known: %s)",
				i, u.Workload, strings.Join(names, ", ")))
		}
	}
	if k, ok := c.Constraints[WorkloadSetting]; ok && (k.Min != nil || k.Max != nil) {
		errs = append(errs, keyErrorf([]string{"constraints", WorkloadSetting}, "constraints.%s: only readonly applies to a workload name", WorkloadSetting))
	}
	return errs
}

// maxQueueCodelMillis bounds queue_codel_interval_ms and queue_codel_target_ms: a queue that
// stands for a minute is long past any burst.
const maxQueueCodelMillis = 60_000

// Validate checks every value and every relation between values. All problems are reported,
// joined, each naming its key.
func (c *Config) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(checkAddress("listen", c.Listen))
	if c.AdminListen != "" {
		add(checkAddress("admin_listen", c.AdminListen))
		if c.AdminListen == c.Listen {
			add(pairErrorf([]string{"admin_listen"}, []string{"listen"},
				"admin_listen (%q) must differ from listen", c.AdminListen))
		}
	}
	if c.HTTPListen != "" {
		add(checkAddress("http_listen", c.HTTPListen))
		for _, other := range []struct{ key, addr string }{{"listen", c.Listen}, {"admin_listen", c.AdminListen}} {
			if c.HTTPListen == other.addr {
				add(pairErrorf([]string{"http_listen"}, []string{other.key},
					"http_listen (%q) must differ from %s", c.HTTPListen, other.key))
			}
		}
	}
	if r := c.MetricLogRetention; r < time.Second || r > MaxMetricLogRetention || r%time.Second != 0 {
		add(keyErrorf([]string{"metric_log_retention_s"}, "metric_log_retention_s (%s) must be a whole number of seconds from 1 to %d",
			formatSeconds(r), int(MaxMetricLogRetention/time.Second)))
	}
	if c.MaxConnections < 1 {
		add(keyErrorf([]string{"max_connections"}, "max_connections (%d) must be >= 1", c.MaxConnections))
	}
	if c.ShutdownTimeout < 0 {
		add(keyErrorf([]string{"shutdown_timeout_s"}, "shutdown_timeout_s (%s) must be >= 0", formatSeconds(c.ShutdownTimeout)))
	}
	errs = append(errs, c.validateLimits()...)
	period := c.AsynchronousMetricsUpdatePeriod
	periodOK := period >= time.Second && period%time.Second == 0
	if !periodOK {
		add(keyErrorf([]string{"asynchronous_metrics_update_period_s"},
			"asynchronous_metrics_update_period_s (%s) must be a whole number of seconds >= 1", formatSeconds(period)))
	}
	switch interval := c.OverloadSampleInterval; {
	case interval < 10*time.Millisecond:
		add(keyErrorf([]string{"overload_sample_interval_ms"},
			"overload_sample_interval_ms (%s) must be >= 10", formatMillis(interval)))
	case periodOK && interval > period:
		add(pairErrorf([]string{"overload_sample_interval_ms"}, []string{"asynchronous_metrics_update_period_s"},
			"overload_sample_interval_ms (%s) must be <= the window, asynchronous_metrics_update_period_s (%s s = %s ms)",
			formatMillis(interval), formatSeconds(period), formatMillis(period)))
	}
	if c.AdmissionControl != AdmissionOn && c.AdmissionControl != AdmissionOff {
		add(keyErrorf([]string{"admission_control"}, "admission_control (%q) must be %q or %q", c.AdmissionControl, AdmissionOn, AdmissionOff))
	}
	if c.MaxConcurrentStatements < 0 || c.MaxConcurrentStatements > admission.AdaptiveCeiling {
		add(keyErrorf([]string{"max_concurrent_statements"}, "max_concurrent_statements (%d) must be between 0 (adaptive only) and %d",
			c.MaxConcurrentStatements, admission.AdaptiveCeiling))
	}
	if c.MaxQueuedStatements < 0 || c.MaxQueuedStatements > maxQueuedStatementsLimit {
		add(keyErrorf([]string{"max_queued_statements"}, "max_queued_statements (%d) must be between 0 and %d",
			c.MaxQueuedStatements, maxQueuedStatementsLimit))
	}
	add(c.validateQueueCodel())
	if d := c.AdmissionStallLimit; d < 0 || d > maxStallLimitMillis*time.Millisecond {
		add(keyErrorf([]string{"admission_stall_limit_ms"}, "admission_stall_limit_ms (%s) must be between 0 (off) and %d",
			formatMillis(d), maxStallLimitMillis))
	}
	add(checkRatio([]string{"min_os_cpu_wait_time_ratio_to_drop_connection"}, c.MinDropRatio))
	add(checkRatio([]string{"max_os_cpu_wait_time_ratio_to_drop_connection"}, c.MaxDropRatio))
	if c.OverloadEnforcement != EnforcementEnforce && c.OverloadEnforcement != EnforcementDryRun {
		add(keyErrorf([]string{"overload_enforcement"}, "overload_enforcement (%q) must be %q or %q",
			c.OverloadEnforcement, EnforcementEnforce, EnforcementDryRun))
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		add(keyErrorf([]string{"tls_cert_file", "tls_key_file"}, "tls_cert_file (%q) and tls_key_file (%q) must be set together, or both left empty for the generated certificate",
			c.TLSCertFile, c.TLSKeyFile))
	}
	if c.RequireSecureTransport != SwitchOn && c.RequireSecureTransport != SwitchOff {
		add(keyErrorf([]string{"require_secure_transport"}, "require_secure_transport (%q) must be %q or %q",
			c.RequireSecureTransport, SwitchOn, SwitchOff))
	}
	if !collationName.MatchString(c.CollationServer) {
		add(keyErrorf([]string{"collation_server"}, "collation_server (%q) must be a collation name such as %q (SHOW COLLATION lists them)",
			c.CollationServer, "utf8mb4_0900_ai_ci"))
	}
	if _, err := regexp.Compile(c.WarningSuppressRegexp); err != nil {
		add(keyErrorf([]string{"warning_suppress_regexp"}, "warning_suppress_regexp (%q) is not a valid regular expression: %v",
			c.WarningSuppressRegexp, err))
	}
	if c.DataDir == "" {
		add(keyErrorf([]string{"data_dir"}, "data_dir must name a directory (relative paths are relative to the config file)"))
	}
	if c.StorageSync != SyncCommit && c.StorageSync != SyncNone {
		add(keyErrorf([]string{"storage_sync"}, "storage_sync (%q) must be %q or %q", c.StorageSync, SyncCommit, SyncNone))
	}
	if c.StorageCacheBytes < MinStorageCacheBytes || c.StorageCacheBytes > MaxStorageCacheBytes {
		add(keyErrorf([]string{"storage_cache_bytes"}, "storage_cache_bytes (%d) must be between %d and %d",
			c.StorageCacheBytes, MinStorageCacheBytes, uint64(MaxStorageCacheBytes)))
	}
	if c.SecureFilePriv != "" && !filepath.IsAbs(c.SecureFilePriv) {
		add(keyErrorf([]string{"secure_file_priv"}, "secure_file_priv (%q) must be an absolute path to a directory, or \"\" for no file access",
			c.SecureFilePriv))
	}
	errs = append(errs, c.Warnings.validate()...)
	errs = append(errs, c.validateSessionSettings()...)
	errs = append(errs, validateUsers(c.Users)...)
	errs = append(errs, c.validateWorkloads()...)
	return errors.Join(errs...)
}

// Bounds of max_allowed_packet, MySQL's.
const (
	MinAllowedPacket = 1 << 10
	MaxAllowedPacket = 1 << 30
)

// validateLimits checks the settings that bound what one client may cost.
func (c *Config) validateLimits() []error {
	var errs []error
	if c.ConnectTimeout < time.Second || c.ConnectTimeout%time.Second != 0 {
		errs = append(errs, keyErrorf([]string{"connect_timeout"},
			"connect_timeout (%s) must be a whole number of seconds >= 1", formatSeconds(c.ConnectTimeout)))
	}
	if c.MaxAllowedPacket < MinAllowedPacket || c.MaxAllowedPacket > MaxAllowedPacket {
		errs = append(errs, keyErrorf([]string{"max_allowed_packet"},
			"max_allowed_packet (%d) must be between %d and %d bytes", c.MaxAllowedPacket, MinAllowedPacket, MaxAllowedPacket))
	}
	for _, k := range []struct {
		name string
		v    int
	}{{"admin_max_connections", c.AdminMaxConnections}, {"max_unauthenticated_connections", c.MaxUnauthenticatedConnections}} {
		if k.v < 1 {
			errs = append(errs, keyErrorf([]string{k.name}, "%s (%d) must be >= 1", k.name, k.v))
		}
	}
	if c.FailedLoginThreshold < 0 {
		errs = append(errs, keyErrorf([]string{"connection_control_failed_connections_threshold"},
			"connection_control_failed_connections_threshold (%d) must be >= 0 (0 turns the delay off)", c.FailedLoginThreshold))
	}
	if c.FailedLoginMinDelay < 0 {
		errs = append(errs, keyErrorf([]string{"connection_control_min_connection_delay"},
			"connection_control_min_connection_delay (%s) must be >= 0", formatMillis(c.FailedLoginMinDelay)))
	} else if c.FailedLoginMaxDelay < c.FailedLoginMinDelay {
		errs = append(errs, pairErrorf([]string{"connection_control_max_connection_delay"}, []string{"connection_control_min_connection_delay"},
			"connection_control_max_connection_delay (%s) must be >= connection_control_min_connection_delay (%s)",
			formatMillis(c.FailedLoginMaxDelay), formatMillis(c.FailedLoginMinDelay)))
	}
	return errs
}

func checkAddress(key, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return keyErrorf([]string{key}, "%s (%q) must be host:port with a numeric port, e.g. \"127.0.0.1:9004\"", key, addr)
	}
	return nil
}

// checkRatio accepts finite values >= 0.
func checkRatio(path []string, v float64) error {
	if v >= 0 && !math.IsInf(v, 1) {
		return nil
	}
	return keyErrorf(path, "%s (%s) must be a finite number >= 0", displayPath(path), formatFloat(v))
}

func (w ResourceOverloadWarnings) validate() []error {
	var errs []error
	for _, r := range []struct {
		resource     string
		warn, clear  float64
		duration     time.Duration
		durationName string
	}{
		{"cpu", w.CPUWarnRatio, w.CPUClearRatio, w.CPUDuration, "cpu_overload_duration_seconds"},
		{"memory", w.MemoryWarnRatio, w.MemoryClearRatio, w.MemoryDuration, "memory_overload_duration_seconds"},
	} {
		warnName := r.resource + "_overload_warn_ratio"
		clearName := r.resource + "_overload_clear_ratio"
		warnErr := checkRatio([]string{warningsSection, warnName}, r.warn)
		clearErr := checkRatio([]string{warningsSection, clearName}, r.clear)
		errs = appendNonNil(errs, warnErr, clearErr)
		if warnErr == nil && clearErr == nil && r.clear > r.warn {
			errs = append(errs, pairErrorf([]string{warningsSection, clearName}, []string{warningsSection, warnName},
				"%s.%s (%s) must be <= %s (%s)",
				warningsSection, clearName, formatFloat(r.clear), warnName, formatFloat(r.warn)))
		}
		if r.duration < 0 {
			errs = append(errs, keyErrorf([]string{warningsSection, r.durationName}, "%s.%s (%s) must be >= 0",
				warningsSection, r.durationName, formatSeconds(r.duration)))
		}
	}
	return errs
}

func (c *Config) validateSessionSettings() []error {
	var errs []error
	valid := map[string]bool{} // constraints that make sense on their own
	for _, name := range sortedKeys(c.Constraints) {
		k := c.Constraints[name]
		path := []string{"constraints", name}
		if name == WorkloadSetting {
			continue // readonly only: validateWorkloads
		}
		if _, ok := lookupSessionSetting(name); !ok {
			errs = append(errs, keyErrorf(path, "constraints.%s: unknown session setting %q (known: %s)",
				name, name, strings.Join(sessionSettingNames(), ", ")))
			continue
		}
		var bad []error
		for _, b := range []struct {
			key string
			v   *float64
		}{{"min", k.Min}, {"max", k.Max}} {
			if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
				bad = append(bad, keyErrorf(append(path, b.key), "constraints.%s.%s must be a finite number", name, b.key))
			}
		}
		if len(bad) == 0 && k.Min != nil && k.Max != nil && *k.Min > *k.Max {
			bad = append(bad, pairErrorf(append(path, "max"), append(path, "min"),
				"constraints.%s.min (%s) must be <= max (%s)", name, formatFloat(*k.Min), formatFloat(*k.Max)))
		}
		errs = append(errs, bad...)
		valid[name] = len(bad) == 0
	}
	for _, s := range sessionSettings {
		path := []string{"settings", s.Name}
		v := *s.field(&c.Settings)
		if err := checkRatio(path, v); err != nil {
			errs = append(errs, err)
			continue
		}
		if s.max > 0 && v > s.max {
			errs = append(errs, keyErrorf(path, "settings.%s (%s) must be <= %s", s.Name, formatFloat(v), formatFloat(s.max)))
			continue
		}
		if !valid[s.Name] {
			continue
		}
		if err := c.Constraints[s.Name].checkRange(s.Name, v); err != nil {
			errs = append(errs, pairErrorf([]string{"constraints", s.Name}, path,
				"settings.%s: the default %s", s.Name, err))
		}
	}
	return errs
}

// Check reports whether a session may set the setting name to v under this constraint.
// The error names the constraint, for the client to see.
func (k Constraint) Check(name string, v float64) error {
	if k.Readonly {
		return fmt.Errorf("setting %s is readonly (constraints.%s.readonly)", name, name)
	}
	if err := k.checkRange(name, v); err != nil {
		return fmt.Errorf("setting %s: the value %w", name, err)
	}
	return nil
}

func (k Constraint) checkRange(name string, v float64) error {
	if k.Min != nil && v < *k.Min {
		return fmt.Errorf("%s is below the minimum %s (constraints.%s.min)", formatFloat(v), formatFloat(*k.Min), name)
	}
	if k.Max != nil && v > *k.Max {
		return fmt.Errorf("%s is above the maximum %s (constraints.%s.max)", formatFloat(v), formatFloat(*k.Max), name)
	}
	return nil
}

func validateUsers(users []User) []error {
	if len(users) == 0 {
		return []error{keyErrorf([]string{"users"}, "users: at least one user is required")}
	}
	var errs []error
	first := map[string]int{}
	for i, u := range users {
		at := func(key string) []string { return []string{"users", indexPiece(i), key} }
		if u.Name == "" {
			errs = append(errs, keyErrorf(at("name"), "users[%d].name must be set and non-empty", i))
		} else if j, dup := first[u.Name]; dup {
			errs = append(errs, keyErrorf(at("name"), "users[%d].name: duplicate user %q (also users[%d])", i, u.Name, j))
		} else {
			first[u.Name] = i
		}
		var forms []string
		for _, f := range []struct{ key, v string }{
			{"password", u.Password},
			{"password_sha256_hex", u.PasswordSHA256Hex},
			{"password_double_sha1_hex", u.PasswordDoubleSHA1Hex},
		} {
			if f.v != "" {
				forms = append(forms, f.key)
			}
		}
		if len(forms) > 1 {
			errs = append(errs, keyErrorf(at(forms[1]), "users[%d] (%q): set at most one of %v", i, u.Name, forms))
		}
		errs = appendNonNil(errs,
			checkHex(at("password_sha256_hex"), i, u.PasswordSHA256Hex, 64, "SHA-256 of the password"),
			checkHex(at("password_double_sha1_hex"), i, u.PasswordDoubleSHA1Hex, 40, "SHA-1 of the SHA-1 of the password"))
	}
	return errs
}

func checkHex(path []string, i int, s string, digits int, what string) error {
	if s == "" {
		return nil
	}
	ok := len(s) == digits
	for _, r := range s {
		ok = ok && (r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F')
	}
	if ok {
		return nil
	}
	return keyErrorf(path, "users[%d].%s must be %d hexadecimal digits (the %s), got %q",
		i, path[len(path)-1], digits, what, s)
}

func appendNonNil(errs []error, more ...error) []error {
	for _, err := range more {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// validateQueueCodel checks the standing-queue settings: each within 0..maxQueueCodelMillis
// whole milliseconds, and the target below the interval when the interval is on.
func (c *Config) validateQueueCodel() error {
	for _, v := range []struct {
		key string
		d   time.Duration
	}{{"queue_codel_interval_ms", c.QueueCodelInterval}, {"queue_codel_target_ms", c.QueueCodelTarget}} {
		if v.d < 0 || v.d > maxQueueCodelMillis*time.Millisecond {
			return keyErrorf([]string{v.key}, "%s (%s) must be between 0 and %d", v.key, formatMillis(v.d), maxQueueCodelMillis)
		}
	}
	if c.QueueCodelInterval > 0 && c.QueueCodelTarget >= c.QueueCodelInterval {
		return pairErrorf([]string{"queue_codel_target_ms"}, []string{"queue_codel_interval_ms"},
			"queue_codel_target_ms (%s) must be below queue_codel_interval_ms (%s)", formatMillis(c.QueueCodelTarget), formatMillis(c.QueueCodelInterval))
	}
	return nil
}

// DataDirPath is data_dir as a path: relative to the config file's directory, or to the
// working directory when the configuration has no file.
func (c *Config) DataDirPath() string {
	if filepath.IsAbs(c.DataDir) || c.Path == "" {
		return c.DataDir
	}
	return filepath.Join(filepath.Dir(c.Path), c.DataDir)
}
