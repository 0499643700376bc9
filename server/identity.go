package server

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// MySQLVersion is the MySQL version overloadsql answers as, the same in the handshake,
// VERSION() and @@version: the MySQL 8 release whose behaviour clients may expect.
const MySQLVersion = "8.0.33"

// versionComment is @@version_comment, which clients such as the mariadb CLI print on login.
const versionComment = "overloadsql"

// useIdentity makes @@version and @@version_comment say what the handshake says.
func useIdentity() error {
	values := map[string]any{"version": MySQLVersion, "version_comment": versionComment}
	for name, value := range values {
		sv, _, ok := sql.SystemVariables.GetGlobal(name)
		if !ok {
			return fmt.Errorf("the engine has no variable %s", name)
		}
		sv.SetDefault(value)
	}
	if err := sql.SystemVariables.AssignValues(values); err != nil {
		return fmt.Errorf("set @@version and @@version_comment: %w", err)
	}
	return nil
}
