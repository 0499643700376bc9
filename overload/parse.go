package overload

import "fmt"

// The parsers below read the cgroup controller files (procfs reads none of
// them) from their bytes without allocating: they run on every sample.

// nextLine splits b at the first newline.
func nextLine(b []byte) (line, rest []byte) {
	for i, c := range b {
		if c == '\n' {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

// nextField skips spaces and tabs and returns the next run of other bytes.
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' {
		j++
	}
	return b[i:j], b[j:]
}

// parseUint parses a decimal unsigned integer.
func parseUint(b []byte) (uint64, error) {
	if len(b) == 0 || len(b) > 20 {
		return 0, fmt.Errorf("%q is not an unsigned integer", b)
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not an unsigned integer", b)
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, fmt.Errorf("%q overflows 64 bits", b)
		}
		v = v*10 + d
	}
	return v, nil
}

// trimSpace removes surrounding white space, including the final newline.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// hasPrefix reports whether b starts with the string p.
func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == p
}

// lookupKey finds the line "key value" (memory.stat, cpu.stat) and returns
// value's field.
func lookupKey(content []byte, key string) ([]byte, bool) {
	for range len(content) + 1 {
		if len(content) == 0 {
			return nil, false
		}
		var line []byte
		line, content = nextLine(content)
		if hasPrefix(line, key) && len(line) > len(key) && (line[len(key)] == ' ' || line[len(key)] == '\t') {
			v, _ := nextField(line[len(key):])
			return v, true
		}
	}
	return nil, false
}

// uintKey looks up key and parses its value.
func uintKey(content []byte, key, path string) (uint64, error) {
	v, ok := lookupKey(content, key)
	if !ok {
		return 0, fmt.Errorf("parse %s: no %q line", path, key)
	}
	n, err := parseUint(v)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %s: %w", path, key, err)
	}
	return n, nil
}
