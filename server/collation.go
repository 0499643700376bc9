package server

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// Variables that carry the default collation and its character set.
var (
	collationVariables    = []string{"collation_server", "collation_database", "collation_connection"}
	characterSetVariables = []string{"character_set_server", "character_set_database"}
)

// useCollation makes name (collation_server) the default collation: the default of the
// collation variables every new session starts with, from which the engine takes the collation
// of CREATE DATABASE (@@collation_server) and of string literals (@@collation_connection). The
// engine keeps these variables process-wide. `main` gets the collation from the caller.
func useCollation(name string) (sql.CollationID, error) {
	collation, err := sql.ParseCollation("", name, false)
	if err != nil {
		return 0, fmt.Errorf("collation_server (%q): %w; SHOW COLLATION lists the collations", name, err)
	}
	values := map[string]any{}
	for _, v := range collationVariables {
		values[v] = collation.Name()
	}
	for _, v := range characterSetVariables {
		values[v] = collation.CharacterSet().Name()
	}
	for name, value := range values {
		sv, _, ok := sql.SystemVariables.GetGlobal(name)
		if !ok {
			return 0, fmt.Errorf("collation_server: the engine has no variable %s", name)
		}
		sv.SetDefault(value)
	}
	if err := sql.SystemVariables.AssignValues(values); err != nil {
		return 0, fmt.Errorf("collation_server (%q): %w", name, err)
	}
	return collation, nil
}
