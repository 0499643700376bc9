package fuzz

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// knownDifference is one entry of known-differences.toml: a difference the servers are known
// to have, why, and the patterns (Go regular expressions) that recognise it. A difference
// matches when every pattern given matches its field; an entry must give at least one.
type knownDifference struct {
	ID     string `toml:"id"`
	Status string `toml:"status"` // "bug, open", "documented", "mariadb" (MariaDB differs from MySQL 8), "undefined" (SQL leaves it open)
	Reason string `toml:"reason"`

	// Each field is one pattern or a list of patterns that must all match.
	Kind        patterns `toml:"kind"`        // the difference's kind: rows, table, outcome, errno, ...
	Statement   patterns `toml:"statement"`   // the statement
	Schema      patterns `toml:"schema"`      // CREATE TABLE of the tables the statement names (overloadsql's spelling)
	Overloadsql patterns `toml:"overloadsql"` // overloadsql's outcome: "ok, 3 rows", "error 1264: ..."
	MariaDB     patterns `toml:"mariadb"`     // MariaDB's outcome
	Detail      patterns `toml:"detail"`      // the difference's detail: "overloadsql error 1105, mariadb ok", rows
	Data        patterns `toml:"data"`        // the rows of the tables the statement names, before it, as SQL literals
	Tags        patterns `toml:"tags"`        // the generator's notes on the statement, one a line ("join DOUBLE = INT")

	patterns []*regexp.Regexp
	fields   []func(*finding, difference) string
}

// patterns is a field's patterns: a TOML string or array of strings.
type patterns []string

func (p *patterns) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*p = patterns{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("pattern %v is not a string", e)
			}
			*p = append(*p, s)
		}
	default:
		return fmt.Errorf("patterns must be a string or an array of strings, not %T", v)
	}
	return nil
}

type knownFile struct {
	Difference []*knownDifference `toml:"difference"`
}

// validStatus are the statuses an entry may have.
var validStatus = map[string]bool{"bug, open": true, "documented": true, "mariadb": true, "undefined": true}

// parseKnown reads the known differences from TOML text.
func parseKnown(text string) ([]*knownDifference, error) {
	var f knownFile
	md, err := toml.Decode(text, &f)
	if err != nil {
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("unknown keys %v", und)
	}
	ids := map[string]bool{}
	for i, k := range f.Difference {
		if k.ID == "" || k.Reason == "" {
			return nil, fmt.Errorf("difference %d: id and reason are required", i+1)
		}
		if ids[k.ID] {
			return nil, fmt.Errorf("difference %q is listed twice", k.ID)
		}
		ids[k.ID] = true
		if !validStatus[k.Status] {
			return nil, fmt.Errorf("difference %q: status %q is not one of \"bug, open\", \"documented\", \"mariadb\", \"undefined\"", k.ID, k.Status)
		}
		add := func(ps patterns, field func(*finding, difference) string) error {
			for _, pattern := range ps {
				re, err := regexp.Compile(pattern)
				if err != nil {
					return fmt.Errorf("difference %q: %w", k.ID, err)
				}
				k.patterns = append(k.patterns, re)
				k.fields = append(k.fields, field)
			}
			return nil
		}
		for _, p := range []struct {
			pattern patterns
			field   func(*finding, difference) string
		}{
			{k.Kind, func(_ *finding, d difference) string { return d.kind }},
			{k.Statement, func(f *finding, _ difference) string { return f.st.sql }},
			{k.Schema, func(f *finding, _ difference) string { return f.schema }},
			{k.Overloadsql, func(f *finding, _ difference) string { return f.o.String() }},
			{k.MariaDB, func(f *finding, _ difference) string { return f.m.String() }},
			{k.Detail, func(_ *finding, d difference) string { return d.detail }},
			{k.Data, func(f *finding, _ difference) string { return f.data }},
			{k.Tags, func(f *finding, _ difference) string { return strings.Join(f.st.tags, "\n") }},
		} {
			if err := add(p.pattern, p.field); err != nil {
				return nil, err
			}
		}
		if len(k.patterns) == 0 {
			return nil, fmt.Errorf("difference %q has no pattern", k.ID)
		}
	}
	return f.Difference, nil
}

func (k *knownDifference) matches(f *finding, d difference) bool {
	for i, re := range k.patterns {
		if !re.MatchString(k.fields[i](f, d)) {
			return false
		}
	}
	return true
}

// classify returns the first known difference that matches d, or nil.
func classify(known []*knownDifference, f *finding, d difference) *knownDifference {
	for _, k := range known {
		if k.matches(f, d) {
			return k
		}
	}
	return nil
}
