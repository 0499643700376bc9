package server

import (
	"testing"

	"overloadsql/mysqlerr"

	"github.com/dolthub/vitess/go/mysql"
)

func TestMySQLErrorNumbers(t *testing.T) {
	unknown := func(msg string) error {
		return mysqlerr.New(mysql.ERUnknownError, "%s", msg)
	}
	tests := []struct {
		err  error
		want int
	}{
		{unknown("Access denied for user 'app'@'%' to database 'mysql'"), mysql.ERDBAccessDenied},
		{unknown("Access denied for user 'app'@'%' to table 'user'"), mysqlerr.ERTableAccessDenied},
		{unknown("command denied to user 'app'@'%'"), mysql.ERSpecifiedAccessDenied},
		{unknown("Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL"), mysql.ERGlobalVariable},
		{unknown("table not found: t"), mysql.ERNoSuchTable},
		{unknown("something else"), mysql.ERUnknownError},
		{mysqlerr.New(mysql.ERDupEntry, "Access denied for user x to database y"), mysql.ERDupEntry},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := mysqlerr.Number(errorOrNil(mysqlerr.ForClient(tt.err))); got != tt.want {
			t.Errorf("mysqlerr.ForClient(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
	e := mysqlerr.ForClient(unknown("Access denied for user 'app'@'%' to database 'mysql'"))
	if e == nil || e.State != "42000" {
		t.Errorf("%v: SQLSTATE is not 42000", e)
	}
}
