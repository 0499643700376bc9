package config

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ServerSetting describes one server setting, as system.server_settings shows it.
type ServerSetting struct {
	Name        string // the key in config.toml, without its section
	Type        string // "UInt64", "Float64" or "String"
	Description string // one line
	Default     string // built-in value as text, in the unit of the key
	Reloadable  bool   // changeable_without_restart
	// Engine is set for a setting that is also one of the engine's own MySQL variables
	// (session and global): the server sets that variable's default instead of making a new one.
	Engine bool
}

// SessionSetting describes one session setting, as system.settings shows it.
type SessionSetting struct {
	Name, Type, Description string
}

// valueKind is how a setting is written in the file and stored in Config.
type valueKind int

const (
	kindString       valueKind = iota
	kindInteger                // int or uint64 field
	kindFloat                  // float64 field; integers accepted
	kindSeconds                // time.Duration field, whole seconds in the file
	kindFloatSeconds           // time.Duration field, seconds with a fraction allowed
	kindMillis                 // time.Duration field, whole milliseconds in the file
)

func (k valueKind) typeName() string {
	switch k {
	case kindString:
		return "String"
	case kindFloat, kindFloatSeconds:
		return "Float64"
	default:
		return "UInt64"
	}
}

// serverSettingDef ties a server setting to its key in the file and its field in Config.
type serverSettingDef struct {
	name, section, description string
	kind                       valueKind
	reloadable                 bool
	engine                     bool
	field                      func(c *Config) any // pointer to the field
}

// serverSettings is the catalog, in the order of config.toml.
var serverSettings = []serverSettingDef{
	{name: "listen", kind: kindString,
		description: "Address (host:port) of the MySQL protocol listener.",
		field:       func(c *Config) any { return &c.Listen }},
	{name: "admin_listen", kind: kindString,
		description: "Address (host:port) of the listener for admin users, never subject to connection dropping or max_connections; empty disables it.",
		field:       func(c *Config) any { return &c.AdminListen }},
	{name: "http_listen", kind: kindString,
		description: "Address (host:port) of the HTTP listener: /metrics, /ping, /ready, /dashboard and /history; empty disables it.",
		field:       func(c *Config) any { return &c.HTTPListen }},
	{name: "metric_log_retention_s", kind: kindSeconds,
		description: "Seconds of history kept in memory by system.asynchronous_metric_log, system.metric_log, system.warning_log and the dashboard.",
		field:       func(c *Config) any { return &c.MetricLogRetention }},
	{name: "max_connections", kind: kindInteger, reloadable: true,
		description: "Maximum number of client connections on listen; a connection over it gets error 1040 unless an unauthenticated one can be closed for it.",
		field:       func(c *Config) any { return &c.MaxConnections }},
	{name: "shutdown_timeout_s", kind: kindSeconds, reloadable: true,
		description: "Seconds that running statements get to finish on shutdown before connections are closed.",
		field:       func(c *Config) any { return &c.ShutdownTimeout }},
	{name: "connect_timeout", kind: kindSeconds, reloadable: true,
		description: "Seconds a client has to finish the handshake and log in; a connection still unauthenticated then is closed.",
		field:       func(c *Config) any { return &c.ConnectTimeout }},
	{name: "max_allowed_packet", kind: kindInteger, reloadable: true,
		description: "Largest message (bytes) a client may send, and largest value a string function may build; a bigger packet gets error 1153 and the connection is closed.",
		field:       func(c *Config) any { return &c.MaxAllowedPacket }},
	{name: "admin_max_connections", kind: kindInteger, reloadable: true,
		description: "Maximum number of connections on admin_listen; a connection over it gets error 1040 unless an unauthenticated one can be closed for it.",
		field:       func(c *Config) any { return &c.AdminMaxConnections }},
	{name: "max_unauthenticated_connections", kind: kindInteger, reloadable: true,
		description: "Connections per listener that may be in their handshake at once; a new one over it closes the oldest unauthenticated one.",
		field:       func(c *Config) any { return &c.MaxUnauthenticatedConnections }},
	{name: "connection_control_failed_connections_threshold", kind: kindInteger, reloadable: true,
		description: "Consecutive failed logins from one address after which each further login answer from that address is delayed; 0 = never.",
		field:       func(c *Config) any { return &c.FailedLoginThreshold }},
	{name: "connection_control_min_connection_delay", kind: kindMillis, reloadable: true,
		description: "Smallest delay (milliseconds) of a login answer once the failed-login threshold is passed.",
		field:       func(c *Config) any { return &c.FailedLoginMinDelay }},
	{name: "connection_control_max_connection_delay", kind: kindMillis, reloadable: true,
		description: "Largest delay (milliseconds) of a login answer; the delay grows by one second per failure over the threshold up to it.",
		field:       func(c *Config) any { return &c.FailedLoginMaxDelay }},
	{name: "os_cpu_busy_time_threshold", kind: kindInteger, reloadable: true,
		description: "CPU busy time (microseconds) the server must use within one window for its CPU overload ratio to count; below it the ratio is 0.",
		field:       func(c *Config) any { return &c.OSCPUBusyTimeThreshold }},
	{name: "asynchronous_metrics_update_period_s", kind: kindSeconds, reloadable: true,
		description: "Length (seconds) of the window over which the CPU overload ratio and the asynchronous metrics are computed.",
		field:       func(c *Config) any { return &c.AsynchronousMetricsUpdatePeriod }},
	{name: "overload_sample_interval_ms", kind: kindMillis, reloadable: true,
		description: "How often (milliseconds) the overload counters are sampled; the ratio always covers the trailing full window.",
		field:       func(c *Config) any { return &c.OverloadSampleInterval }},
	{name: "min_os_cpu_wait_time_ratio_to_drop_connection", kind: kindFloat, reloadable: true,
		description: "CPU overload ratio above which new connections are dropped with a probability rising to 1 at the max ratio.",
		field:       func(c *Config) any { return &c.MinDropRatio }},
	{name: "max_os_cpu_wait_time_ratio_to_drop_connection", kind: kindFloat, reloadable: true,
		description: "CPU overload ratio at which every new connection is dropped; dropping is off when max <= 0 or max <= min.",
		field:       func(c *Config) any { return &c.MaxDropRatio }},
	{name: "overload_enforcement", kind: kindString, reloadable: true,
		description: "enforce: reject queries and drop connections on overload; dry_run: decide, count and log, but serve.",
		field:       func(c *Config) any { return &c.OverloadEnforcement }},
	{name: "admission_control", kind: kindString, reloadable: true,
		description: "on: ordinary statements take a CPU slot before they run, or wait for one; off: every statement runs at once.",
		field:       func(c *Config) any { return &c.AdmissionControl }},
	{name: "max_concurrent_statements", kind: kindInteger, reloadable: true,
		description: "Most ordinary statements that run at once (CPU slots); the slot count adapts between 1 and this bound; 0 = adaptive only (at most 10000).",
		field:       func(c *Config) any { return &c.MaxConcurrentStatements }},
	{name: "max_queued_statements", kind: kindInteger, reloadable: true,
		description: "Most statements that wait for a CPU slot at once; one more gets error 202 (TOO_MANY_SIMULTANEOUS_QUERIES); 0 = none waits.",
		field:       func(c *Config) any { return &c.MaxQueuedStatements }},
	{name: "queue_codel_interval_ms", kind: kindMillis, reloadable: true,
		description: "CoDel interval (milliseconds) of the admission queue: when the shortest wait for a CPU slot stayed above queue_codel_target_ms for a whole interval, the queue stands, keeps one waiting statement per slot and refuses the others (the oldest first among those already waiting) with error 202; 0 = off.",
		field:       func(c *Config) any { return &c.QueueCodelInterval }},
	{name: "queue_codel_target_ms", kind: kindMillis, reloadable: true,
		description: "CoDel target (milliseconds) of the admission queue: the wait for a CPU slot that counts as a burst being absorbed; below queue_codel_interval_ms.",
		field:       func(c *Config) any { return &c.QueueCodelTarget }},
	{name: "admission_stall_limit_ms", kind: kindMillis, reloadable: true,
		description: "Milliseconds a statement may hold its CPU slot before it stops counting against the slot count and the next queued statement starts (it runs on, sharing the CPU); while statements run past it, a statement that waited this long starts too; 0 = off.",
		field:       func(c *Config) any { return &c.AdmissionStallLimit }},
	{name: "max_server_memory_usage", kind: kindInteger, reloadable: true,
		description: "The server's memory limit (bytes): the memory warning counts it as 100%, and when the Go heap crosses it, ordinary running statements are stopped and new ones refused with error 1041 until the heap is under 90% of it; 0 = the cgroup memory limit, or the host's total memory, for the warning, and 90% of that for the heap.",
		field:       func(c *Config) any { return &c.MaxServerMemoryUsage }},
	{name: "max_memory_usage_for_session", kind: kindInteger, reloadable: true,
		description: "Most memory (bytes) one session may keep between statements (user variables, session variables, prepared statements); an assignment or PREPARE that would take the session past it fails with error 241 (MEMORY_LIMIT_EXCEEDED); 0 = 25% of the server's memory limit.",
		field:       func(c *Config) any { return &c.MaxMemoryUsageForSession }},
	{name: "collation_server", kind: kindString, engine: true,
		description: "Default collation of new databases, tables and string literals; utf8mb4_0900_bin compares bytes, utf8mb4_0900_ai_ci (MySQL 8's default) ignores case and accents.",
		field:       func(c *Config) any { return &c.CollationServer }},
	{name: "tls_cert_file", kind: kindString, reloadable: true,
		description: "PEM file of the TLS certificate (chain) clients are offered; relative to the config file's directory; empty = server-cert.pem, generated self-signed beside the config at first start.",
		field:       func(c *Config) any { return &c.TLSCertFile }},
	{name: "tls_key_file", kind: kindString, reloadable: true,
		description: "PEM file of the private key of tls_cert_file; relative to the config file's directory; empty = server-key.pem, generated beside the config at first start.",
		field:       func(c *Config) any { return &c.TLSKeyFile }},
	{name: "require_secure_transport", kind: kindString, reloadable: true,
		description: "ON: a client that logs in without TLS gets error 3159; OFF: TLS is offered, not required.",
		field:       func(c *Config) any { return &c.RequireSecureTransport }},
	{name: "warning_suppress_regexp", kind: kindString, reloadable: true,
		description: "Warnings whose message matches this regular expression (RE2 syntax) are not shown; empty = none.",
		field:       func(c *Config) any { return &c.WarningSuppressRegexp }},
	{name: "secure_file_priv", kind: kindString,
		description: "Directory (absolute path) that SELECT ... INTO OUTFILE/DUMPFILE, LOAD DATA and LOAD_FILE may use, for admins only; empty = no file access from SQL.",
		field:       func(c *Config) any { return &c.SecureFilePriv }},
	{name: "data_dir", kind: kindString,
		description: "Directory of the stored databases (main and those made with CREATE DATABASE); relative to the config file's directory; one server at a time may use it.",
		field:       func(c *Config) any { return &c.DataDir }},
	{name: "storage_sync", kind: kindString,
		description: "commit: every acknowledged commit is synced to disk and survives a crash or power loss; none: the log is synced every second, so a crash may lose the last second of commits (never part of one).",
		field:       func(c *Config) any { return &c.StorageSync }},
	{name: "storage_cache_bytes", kind: kindInteger,
		description: "Size (bytes) of the storage's block cache; it is counted inside max_server_memory_usage.",
		field:       func(c *Config) any { return &c.StorageCacheBytes }},
	{name: "cpu_overload_warn_ratio", section: warningsSection, kind: kindFloat, reloadable: true,
		description: "Fraction of CPU capacity busy at or above which the high CPU usage warning is raised, after cpu_overload_duration_seconds.",
		field:       func(c *Config) any { return &c.Warnings.CPUWarnRatio }},
	{name: "cpu_overload_clear_ratio", section: warningsSection, kind: kindFloat, reloadable: true,
		description: "Fraction of CPU capacity busy at or below which a raised high CPU usage warning is cleared.",
		field:       func(c *Config) any { return &c.Warnings.CPUClearRatio }},
	{name: "cpu_overload_duration_seconds", section: warningsSection, kind: kindFloatSeconds, reloadable: true,
		description: "Seconds the CPU busy fraction must stay at or above cpu_overload_warn_ratio before the warning is raised.",
		field:       func(c *Config) any { return &c.Warnings.CPUDuration }},
	{name: "memory_overload_warn_ratio", section: warningsSection, kind: kindFloat, reloadable: true,
		description: "Fraction of memory used at or above which the high memory usage warning is raised, after memory_overload_duration_seconds.",
		field:       func(c *Config) any { return &c.Warnings.MemoryWarnRatio }},
	{name: "memory_overload_clear_ratio", section: warningsSection, kind: kindFloat, reloadable: true,
		description: "Fraction of memory used at or below which a raised high memory usage warning is cleared.",
		field:       func(c *Config) any { return &c.Warnings.MemoryClearRatio }},
	{name: "memory_overload_duration_seconds", section: warningsSection, kind: kindFloatSeconds, reloadable: true,
		description: "Seconds the memory used must stay at or above memory_overload_warn_ratio before the warning is raised.",
		field:       func(c *Config) any { return &c.Warnings.MemoryDuration }},
}

// sessionSettingDef ties a session setting to its default in SessionDefaults.
type sessionSettingDef struct {
	SessionSetting
	field func(d *SessionDefaults) *float64
	max   float64 // the largest value accepted; 0 = any finite number
}

var sessionSettings = []sessionSettingDef{
	{SessionSetting{"min_os_cpu_wait_time_ratio_to_throw", "Float64",
		"CPU overload ratio above which statements are rejected with a probability rising to 1 at the max ratio."},
		func(d *SessionDefaults) *float64 { return &d.MinOSCPUWaitTimeRatioToThrow }, 0},
	{SessionSetting{"max_os_cpu_wait_time_ratio_to_throw", "Float64",
		"CPU overload ratio at which every statement is rejected (error 745); rejecting is off when max <= 0 or max <= min."},
		func(d *SessionDefaults) *float64 { return &d.MaxOSCPUWaitTimeRatioToThrow }, 0},
	{SessionSetting{QueueMaxWaitSetting, "Float64",
		"Milliseconds a statement waits for a CPU slot before it fails with error 202 (TOO_MANY_SIMULTANEOUS_QUERIES); 0 = it does not wait."},
		func(d *SessionDefaults) *float64 { return &d.QueueMaxWaitMs }, MaxQueueMaxWaitMs},
}

// QueueMaxWaitSetting is the session setting of the admission queue's deadline, in ms.
const QueueMaxWaitSetting = "queue_max_wait_ms"

// MaxQueueMaxWaitMs is the largest queue_max_wait_ms: an hour.
const MaxQueueMaxWaitMs = 3_600_000

// SessionSettingMax returns the largest value a session setting accepts; 0 = any finite
// number.
func SessionSettingMax(name string) float64 {
	s, _ := lookupSessionSetting(name)
	return s.max
}

// ServerSettings returns the catalog of server settings, in the order of config.toml.
func ServerSettings() []ServerSetting {
	defaults := Default()
	out := make([]ServerSetting, len(serverSettings))
	for i, s := range serverSettings {
		out[i] = ServerSetting{
			Name:        s.name,
			Type:        s.kind.typeName(),
			Description: s.description,
			Default:     s.get(defaults),
			Reloadable:  s.reloadable,
			Engine:      s.engine,
		}
	}
	return out
}

// SessionSettings returns the catalog of session settings.
func SessionSettings() []SessionSetting {
	out := make([]SessionSetting, len(sessionSettings))
	for i, s := range sessionSettings {
		out[i] = s.SessionSetting
	}
	return out
}

func lookupServerSetting(name string) (serverSettingDef, bool) {
	i := slices.IndexFunc(serverSettings, func(s serverSettingDef) bool { return s.name == name })
	if i < 0 {
		return serverSettingDef{}, false
	}
	return serverSettings[i], true
}

func lookupSessionSetting(name string) (sessionSettingDef, bool) {
	i := slices.IndexFunc(sessionSettings, func(s sessionSettingDef) bool { return s.Name == name })
	if i < 0 {
		return sessionSettingDef{}, false
	}
	return sessionSettings[i], true
}

func sessionSettingNames() []string {
	names := make([]string, len(sessionSettings))
	for i, s := range sessionSettings {
		names[i] = s.Name
	}
	return names
}

// ServerSettingValue returns the current value of a server setting as text, in the unit of its
// key (seconds, milliseconds, microseconds, bytes).
func (c *Config) ServerSettingValue(name string) (string, bool) {
	s, ok := lookupServerSetting(name)
	if !ok {
		return "", false
	}
	return s.get(c), true
}

// SetServerSetting parses value per the setting's type, sets it and validates the result. On
// error c is unchanged. It does not refuse settings that need a restart: the caller decides
// whether changing those at run time makes sense.
func (c *Config) SetServerSetting(name, value string) error {
	if _, ok := lookupServerSetting(name); !ok {
		if _, session := lookupSessionSetting(name); session {
			return fmt.Errorf("unknown server setting %q (it is a session setting)", name)
		}
		return fmt.Errorf("unknown server setting %q%s", name, suggest(name, serverSettingNames()))
	}
	return c.setValidated(name, value)
}

// SessionDefault returns the default of a session setting.
func (c *Config) SessionDefault(name string) (float64, bool) {
	s, ok := lookupSessionSetting(name)
	if !ok {
		return 0, false
	}
	return *s.field(&c.Settings), true
}

// SetSessionDefault parses value as a number and makes it the default of the session setting
// (what SET GLOBAL and SET PERSIST of a session setting change). The default must satisfy the
// setting's constraint. On error c is unchanged.
func (c *Config) SetSessionDefault(name, value string) error {
	if _, ok := lookupSessionSetting(name); !ok {
		if _, server := lookupServerSetting(name); server {
			return fmt.Errorf("unknown session setting %q (it is a server setting)", name)
		}
		return fmt.Errorf("unknown session setting %q%s", name, suggest(name, sessionSettingNames()))
	}
	return c.setValidated(name, value)
}

func (c *Config) setValidated(name, value string) error {
	n := c.Clone()
	if err := n.set(name, value); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := n.Validate(); err != nil {
		return err
	}
	*c = *n
	return nil
}

// set parses the text of a server setting or of a session setting's default into c, without
// validating relations between values.
func (c *Config) set(name, value string) error {
	if s, ok := lookupServerSetting(name); ok {
		return s.set(c, textValue(s.kind, value))
	}
	s, ok := lookupSessionSetting(name)
	if !ok {
		return fmt.Errorf("unknown setting")
	}
	v, err := toFloat(textValue(kindFloat, value))
	if err != nil {
		return err
	}
	*s.field(&c.Settings) = v
	return nil
}

func serverSettingNames() []string {
	names := make([]string, len(serverSettings))
	for i, s := range serverSettings {
		names[i] = s.name
	}
	return names
}

// RestartRequired returns the names of the settings that differ between old and new and take
// effect only after a restart (the settings not marked reloadable in the catalog), and "users"
// when the users changed.
func RestartRequired(old, new *Config) []string {
	var names []string
	for _, s := range serverSettings {
		if !s.reloadable && s.get(old) != s.get(new) {
			names = append(names, s.name)
		}
	}
	if !slices.Equal(old.Users, new.Users) {
		names = append(names, "users")
	}
	return names
}

// get returns the setting's value as text.
func (s serverSettingDef) get(c *Config) string {
	switch p := s.field(c).(type) {
	case *string:
		return *p
	case *int:
		return strconv.Itoa(*p)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *float64:
		return formatFloat(*p)
	case *time.Duration:
		return formatFloat(float64(*p) / float64(s.kind.unit()))
	}
	panic(fmt.Sprintf("config: setting %s has an unsupported field type", s.name))
}

// set converts a TOML value (string, int64, float64, ...) to the setting's field. Relations
// between values are left to Validate.
func (s serverSettingDef) set(c *Config, v any) error {
	switch p := s.field(c).(type) {
	case *string:
		str, err := toString(v)
		*p = str
		return err
	case *int:
		n, err := toInt(v)
		*p = int(n)
		return err
	case *uint64:
		n, err := toInt(v)
		if err == nil && n < 0 {
			err = fmt.Errorf("must be >= 0, got %d", n)
		}
		*p = uint64(n)
		return err
	case *float64:
		f, err := toFloat(v)
		*p = f
		return err
	case *time.Duration:
		d, err := toDuration(v, s.kind)
		*p = d
		return err
	}
	panic(fmt.Sprintf("config: setting %s has an unsupported field type", s.name))
}

func (k valueKind) unit() time.Duration {
	if k == kindMillis {
		return time.Millisecond
	}
	return time.Second
}

func toDuration(v any, kind valueKind) (time.Duration, error) {
	unit := kind.unit()
	limit := float64(math.MaxInt64 / int64(unit))
	if kind == kindFloatSeconds {
		f, err := toFloat(v)
		if err != nil {
			return 0, err
		}
		if math.Abs(f) > limit {
			return 0, fmt.Errorf("must be between %s and %s", formatFloat(-limit), formatFloat(limit))
		}
		return time.Duration(math.Round(f * float64(unit))), nil
	}
	n, err := toInt(v)
	if err != nil {
		return 0, err
	}
	if math.Abs(float64(n)) > limit {
		return 0, fmt.Errorf("must be between %s and %s", formatFloat(-limit), formatFloat(limit))
	}
	return time.Duration(n) * unit, nil
}

// textValue turns the text of SET GLOBAL or of a persisted entry into the value a TOML file
// would hold, so that both go through the same conversions and give the same errors.
func textValue(kind valueKind, text string) any {
	if kind == kindString {
		return text
	}
	t := strings.TrimSpace(text)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return f
	}
	return text
}

// toString, toInt, toFloat and toBool accept a decoded TOML value of the right type.
// toInt accepts a float without a fraction; toFloat accepts an integer.
func toString(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("expected a string, got %s", describe(v))
}

func toInt(v any) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<63 {
			return int64(n), nil
		}
	}
	return 0, fmt.Errorf("expected an integer, got %s", describe(v))
}

func toFloat(v any) (float64, error) {
	switch n := v.(type) {
	case int64:
		return float64(n), nil
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, fmt.Errorf("expected a finite number, got %s", formatFloat(n))
		}
		return n, nil
	}
	return 0, fmt.Errorf("expected a number, got %s", describe(v))
}

func toBool(v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, fmt.Errorf("expected a boolean (true or false), got %s", describe(v))
}

// describe names the TOML type of a decoded value, with the value when it is short.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("a string (%q)", x)
	case int64:
		return fmt.Sprintf("an integer (%d)", x)
	case float64:
		return fmt.Sprintf("a float (%s)", formatFloat(x))
	case bool:
		return fmt.Sprintf("a boolean (%t)", x)
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	default:
		return fmt.Sprintf("a date/time (%v)", x)
	}
}

// formatFloat gives the shortest text that parses back to v, without an exponent for whole
// numbers (1000000, not 1e+06).
func formatFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func formatSeconds(d time.Duration) string { return formatFloat(d.Seconds()) }
func formatMillis(d time.Duration) string  { return formatFloat(float64(d) / float64(time.Millisecond)) }

func sortedKeys[M ~map[string]V, V any](m M) []string {
	return slices.Sorted(maps.Keys(m))
}

// Persistable reports whether name is a setting SET PERSIST may save: a server setting or a
// session setting.
func Persistable(name string) bool {
	for _, s := range ServerSettings() {
		if s.Name == name {
			return true
		}
	}
	for _, s := range SessionSettings() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// SetValues sets several server settings and session defaults (name -> text) as one change: each
// value is parsed, then the result is validated as a whole, so relations between the values are
// checked once they are all in place and the order does not matter. On error c is unchanged and
// the error names the key. This is SET GLOBAL / SET PERSIST of several variables in one statement.
func (c *Config) SetValues(values map[string]string) error {
	n := c.Clone()
	for _, name := range sortedKeys(values) {
		if err := n.set(name, values[name]); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := n.Validate(); err != nil {
		return err
	}
	*c = *n
	return nil
}
