package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Load reads and parses the config file at path. The path must lead to a regular file (see
// ReadFile).
func Load(path string) (*Config, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// ReadFile reads the config file at path without ever blocking: anything but a regular file of
// at most MaxFileSize bytes is refused.
func ReadFile(path string) ([]byte, error) {
	data, err := readRegularFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return data, nil
}

// LoadForReload reads and parses the config file for a reload of a running server. Unlike at
// start, an empty file is an error: it is far more likely a file caught while being written (or
// truncated by mistake) than a wish to go back to every built-in default.
func LoadForReload(path string) (*Config, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the file is empty; a reload needs a complete file (write it to a temp file and rename it over the config)", path)
	}
	return Parse(data, path)
}

// Parse decodes a config file strictly: an unknown key, a value of the wrong type or a value that
// fails validation is an error naming the file, the line and the key. Keys left out keep their
// built-in defaults; [[users]], when present, replace the default user. path is only used in
// messages and in Config.Path.
func Parse(data []byte, path string) (*Config, error) {
	name := path
	if name == "" {
		name = "config"
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}

	c := Default()
	c.Path = path
	d := decoder{c: c}
	d.decode(raw)
	if len(d.errs) == 0 {
		d.collect(c.Validate())
	}
	if len(d.errs) == 0 {
		return c, nil
	}

	lines := scanKeyLines(string(data))
	type located struct {
		line int
		msg  string
	}
	problems := make([]located, len(d.errs))
	for i, e := range d.errs {
		problems[i] = located{lines.lineOf(e), e.msg}
	}
	slices.SortStableFunc(problems, func(a, b located) int { return cmp.Compare(a.line, b.line) })
	errs := make([]error, len(problems))
	for i, p := range problems {
		if p.line > 0 {
			errs[i] = fmt.Errorf("%s:%d: %s", name, p.line, p.msg)
		} else {
			errs[i] = fmt.Errorf("%s: %s", name, p.msg)
		}
	}
	return nil, errors.Join(errs...)
}

// decoder walks the decoded TOML tree into a Config, collecting every problem.
type decoder struct {
	c    *Config
	errs []*keyError
}

func (d *decoder) fail(path []string, err error) {
	d.errs = append(d.errs, &keyError{path: path, msg: displayPath(path) + ": " + err.Error()})
}

// collect adds the keyErrors of a (joined) validation error.
func (d *decoder) collect(err error) {
	if err == nil {
		return
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			d.collect(e)
		}
		return
	}
	var ke *keyError
	if errors.As(err, &ke) {
		d.errs = append(d.errs, ke)
		return
	}
	d.errs = append(d.errs, &keyError{msg: err.Error()})
}

func (d *decoder) unknown(path []string) {
	d.errs = append(d.errs, &keyError{path: path,
		msg: fmt.Sprintf("unknown key %q%s", displayPath(path), suggestKey(path))})
}

func (d *decoder) table(path []string, v any) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		d.fail(path, fmt.Errorf("expected a table ([%s]), got %s", displayPath(path), describe(v)))
	}
	return t, ok
}

func (d *decoder) decode(raw map[string]any) {
	for _, key := range sortedKeys(raw) {
		path := []string{key}
		switch v := raw[key]; key {
		case warningsSection:
			if t, ok := d.table(path, v); ok {
				d.serverSettings(path, t)
			}
		case "settings":
			if t, ok := d.table(path, v); ok {
				d.settings(path, t)
			}
		case "constraints":
			if t, ok := d.table(path, v); ok {
				d.constraints(path, t)
			}
		case "users":
			d.users(path, v)
		case "workloads":
			d.workloads(path, v)
		default:
			d.serverSettings(nil, map[string]any{key: v})
		}
	}
}

// serverSettings decodes the keys of one section (nil = top level) of server settings.
func (d *decoder) serverSettings(section []string, t map[string]any) {
	sectionName := strings.Join(section, ".")
	for _, key := range sortedKeys(t) {
		path := append(slices.Clone(section), key)
		i := slices.IndexFunc(serverSettings, func(s serverSettingDef) bool {
			return s.name == key && s.section == sectionName
		})
		if i < 0 {
			d.unknown(path)
			continue
		}
		if err := serverSettings[i].set(d.c, t[key]); err != nil {
			d.fail(path, err)
		}
	}
}

func (d *decoder) settings(section []string, t map[string]any) {
	for _, key := range sortedKeys(t) {
		path := append(slices.Clone(section), key)
		s, ok := lookupSessionSetting(key)
		if !ok {
			d.unknown(path)
			continue
		}
		v, err := toFloat(t[key])
		if err != nil {
			d.fail(path, err)
			continue
		}
		*s.field(&d.c.Settings) = v
	}
}

// constraints decodes [constraints.<setting>] tables; whether the setting exists is a question
// for Validate, as constraints can also be built in code.
func (d *decoder) constraints(section []string, t map[string]any) {
	for _, name := range sortedKeys(t) {
		path := append(slices.Clone(section), name)
		ct, ok := d.table(path, t[name])
		if !ok {
			continue
		}
		var k Constraint
		for _, key := range sortedKeys(ct) {
			keyPath := append(slices.Clone(path), key)
			v := ct[key]
			switch key {
			case "min", "max":
				f, err := toFloat(v)
				if err != nil {
					d.fail(keyPath, err)
					continue
				}
				if key == "min" {
					k.Min = &f
				} else {
					k.Max = &f
				}
			case "readonly":
				b, err := toBool(v)
				if err != nil {
					d.fail(keyPath, err)
					continue
				}
				k.Readonly = b
			default:
				d.unknown(keyPath)
			}
		}
		d.c.Constraints[name] = k
	}
}

// arrayOfTables returns the tables of [[name]]; ok is false (and the problem recorded) when v
// is something else.
func (d *decoder) arrayOfTables(path []string, v any) (tables []map[string]any, ok bool) {
	switch arr := v.(type) {
	case []map[string]any:
		return arr, true
	case []any:
		for i, e := range arr {
			t, ok := e.(map[string]any)
			if !ok {
				d.fail(append(slices.Clone(path), indexPiece(i)), fmt.Errorf("expected a table, got %s", describe(e)))
				return nil, false
			}
			tables = append(tables, t)
		}
		return tables, true
	}
	d.fail(path, fmt.Errorf("expected an array of tables ([[%s]]), got %s", path[0], describe(v)))
	return nil, false
}

func (d *decoder) workloads(path []string, v any) {
	tables, ok := d.arrayOfTables(path, v)
	if !ok {
		return
	}
	workloads := make([]Workload, len(tables))
	for i, t := range tables {
		w := &workloads[i]
		w.Weight = 1
		for _, key := range sortedKeys(t) {
			keyPath := []string{path[0], indexPiece(i), key}
			var err error
			var n int64
			switch key {
			case "name":
				w.Name, err = toString(t[key])
			case "priority":
				n, err = toInt(t[key])
				w.Priority = int(max(min(n, 1<<31), -(1 << 31)))
			case "weight":
				w.Weight, err = toFloat(t[key])
			case "max_concurrent_statements":
				n, err = toInt(t[key])
				w.MaxConcurrentStatements = int(max(min(n, 1<<31), -1))
			case "max_queued_statements":
				n, err = toInt(t[key])
				w.MaxQueuedStatements = int(max(min(n, 1<<31), -1))
			case "max_memory_usage":
				n, err = toInt(t[key])
				if err == nil && n < 0 {
					err = fmt.Errorf("must be >= 0 bytes (0 = no bound of its own), got %d", n)
				}
				w.MaxMemoryUsage = uint64(max(n, 0))
			default:
				d.unknown(keyPath)
			}
			if err != nil {
				d.fail(keyPath, err)
			}
		}
	}
	d.c.Workloads = workloads
}

func (d *decoder) users(path []string, v any) {
	tables, ok := d.arrayOfTables(path, v)
	if !ok {
		return
	}
	users := make([]User, len(tables))
	for i, t := range tables {
		u := &users[i]
		for _, key := range sortedKeys(t) {
			keyPath := []string{path[0], indexPiece(i), key}
			var err error
			switch key {
			case "name":
				u.Name, err = toString(t[key])
			case "password":
				u.Password, err = toString(t[key])
			case "password_sha256_hex":
				u.PasswordSHA256Hex, err = toString(t[key])
			case "password_double_sha1_hex":
				u.PasswordDoubleSHA1Hex, err = toString(t[key])
			case "admin":
				u.Admin, err = toBool(t[key])
			case "workload":
				u.Workload, err = toString(t[key])
			default:
				d.unknown(keyPath)
			}
			if err != nil {
				d.fail(keyPath, err)
			}
		}
	}
	d.c.Users = users
}

var userKeys = []string{"name", "password", "password_sha256_hex", "password_double_sha1_hex", "admin", "workload"}

var workloadKeys = []string{"name", "priority", "weight", "max_concurrent_statements", "max_queued_statements", "max_memory_usage"}

// indexPiece is the path piece of the i-th table of an array of tables.
func indexPiece(i int) string { return "[" + strconv.Itoa(i) + "]" }

func isIndexPiece(p string) bool { return strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]") }

// displayPath writes a key path as an operator reads it: resource_overload_warnings.x, users[1].name.
func displayPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case isIndexPiece(p):
			b.WriteString(p)
			continue
		case i > 0:
			b.WriteByte('.')
		}
		if isBareKey(p) {
			b.WriteString(p)
		} else {
			b.WriteString(strconv.Quote(p))
		}
	}
	return b.String()
}

func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// knownKeys returns the keys that may appear in the table at parent.
func knownKeys(parent []string) []string {
	var keys []string
	switch {
	case len(parent) == 0:
		for _, s := range serverSettings {
			if s.section == "" {
				keys = append(keys, s.name)
			}
		}
		keys = append(keys, warningsSection, "settings", "constraints", "users", "workloads")
	case len(parent) == 1 && parent[0] == warningsSection:
		for _, s := range serverSettings {
			if s.section == warningsSection {
				keys = append(keys, s.name)
			}
		}
	case len(parent) == 1 && (parent[0] == "settings" || parent[0] == "constraints"):
		for _, s := range sessionSettings {
			keys = append(keys, s.Name)
		}
		if parent[0] == "constraints" {
			keys = append(keys, WorkloadSetting)
		}
	case len(parent) == 2 && parent[0] == "constraints":
		keys = []string{"min", "max", "readonly"}
	case len(parent) == 2 && parent[0] == "users":
		keys = userKeys
	case len(parent) == 2 && parent[0] == "workloads":
		keys = workloadKeys
	}
	return keys
}

// suggestKey proposes what an unknown key was meant to be: the same key in another table (a
// top-level key written after a [section] header lands in that section), or a near spelling.
func suggestKey(path []string) string {
	key, parent := path[len(path)-1], path[:len(path)-1]
	for _, elsewhere := range [][]string{nil, {warningsSection}, {"settings"}} {
		if slices.Equal(elsewhere, parent) || !slices.Contains(knownKeys(elsewhere), key) {
			continue
		}
		want := displayPath(append(slices.Clone(elsewhere), key))
		if elsewhere == nil {
			return fmt.Sprintf(" (did you mean the top-level %q? top-level keys must come before the first [section] header)", want)
		}
		return fmt.Sprintf(" (did you mean %q?)", want)
	}
	return suggest(key, knownKeys(parent))
}

// suggest returns ` (did you mean "x"?)` for the candidate closest to name, if one is close.
func suggest(name string, candidates []string) string {
	best, bestDist := "", len(name)/3+2
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
