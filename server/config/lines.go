package config

import (
	"slices"
	"strconv"
	"strings"
)

// keyLines maps the key paths of a TOML text to the line each is first defined on, so that a
// problem found after decoding can point at its line. The TOML library knows these positions but
// does not export them. The i-th table of an array of tables has the path piece indexPiece(i).
type keyLines map[string]int

func pathID(path []string) string { return strings.Join(path, "\x00") }

// line returns the line of path, or of its nearest ancestor found (a key inside an inline table
// points at the table's line), or 0.
func (l keyLines) line(path []string) int {
	for n := len(path); n > 0; n-- {
		if line, ok := l[pathID(path[:n])]; ok {
			return line
		}
	}
	return 0
}

// lineOf returns the line of a problem: of its key, or of the other key of the pair when the
// file sets only that one.
func (l keyLines) lineOf(e *keyError) int {
	if _, set := l[pathID(e.path)]; !set && e.also != nil {
		if line, alsoSet := l[pathID(e.also)]; alsoSet {
			return line
		}
	}
	return l.line(e.path)
}

func (l keyLines) add(path []string, line int) {
	for n := 1; n <= len(path); n++ {
		if id := pathID(path[:n]); l[id] == 0 {
			l[id] = line
		}
	}
}

// scanKeyLines is a line-oriented scan of a TOML text that already parsed: it follows table
// headers, arrays of tables and dotted keys, and skips the inside of multi-line strings.
func scanKeyLines(text string) keyLines {
	l := keyLines{}
	var table []string
	arrays := map[string]int{}
	closing := "" // delimiter of the multi-line string being skipped
	for i, raw := range strings.Split(text, "\n") {
		lineNo := i + 1
		if closing != "" {
			if strings.Contains(raw, closing) {
				closing = ""
			}
			continue
		}
		s := strings.TrimLeft(raw, " \t")
		switch {
		case s == "" || s[0] == '#':
		case strings.HasPrefix(s, "[["):
			keys, rest, ok := parseKey(s[2:])
			if !ok || !strings.HasPrefix(rest, "]]") {
				continue
			}
			id := pathID(keys)
			table = append(keys, indexPiece(arrays[id]))
			arrays[id]++
			l.add(table, lineNo)
		case s[0] == '[':
			keys, rest, ok := parseKey(s[1:])
			if !ok || !strings.HasPrefix(rest, "]") {
				continue
			}
			table = keys
			l.add(table, lineNo)
		default:
			keys, rest, ok := parseKey(s)
			if !ok || !strings.HasPrefix(rest, "=") {
				continue
			}
			l.add(append(slices.Clone(table), keys...), lineNo)
			closing = multilineStringStart(rest[1:])
		}
	}
	return l
}

// parseKey reads a possibly dotted key (bare, "basic" or 'literal' pieces) from the start of s
// and returns its pieces and the text after it.
func parseKey(s string) (keys []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		var piece string
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, "", false
			}
			var err error
			if piece, err = strconv.Unquote(s[:end+1]); err != nil {
				piece = s[1:end]
			}
			s = s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			piece, s = s[1:1+end], s[2+end:]
		default:
			n := 0
			for n < len(s) && isBareKey(s[n:n+1]) {
				n++
			}
			if n == 0 {
				return nil, "", false
			}
			piece, s = s[:n], s[n:]
		}
		keys = append(keys, piece)
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return keys, s, true
		}
		s = s[1:]
	}
}

// multilineStringStart returns the closing delimiter when value opens a multi-line string that
// does not close on the same line, else "".
func multilineStringStart(value string) string {
	v := strings.TrimLeft(value, " \t")
	for _, delim := range []string{`"""`, `'''`} {
		if strings.HasPrefix(v, delim) && !strings.Contains(v[3:], delim) {
			return delim
		}
	}
	return ""
}
