package integration

import (
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// A non-admin may not make a database it cannot USE its current one by naming it at login or
// by COM_INIT_DB (mysql.select_db): both failed USE's way, 1044, only for the USE statement;
// the others made mysql current and SHOW TABLES listed it.
func TestInitDBChecksTheDatabase(t *testing.T) {
	s := startServer(t, serverOptions{sections: `
[[users]]
name = "default"
admin = true

[[users]]
name = "plain"
admin = false
`})
	connect := func(user, db string) error {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Net, cfg.Addr, cfg.DBName = user, "tcp", s.addr, db
		cfg.Timeout, cfg.ReadTimeout = 5*time.Second, 30*time.Second
		cfg.AllowNativePasswords = true
		connector, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		db2 := sql.OpenDB(connector)
		defer db2.Close()
		return db2.Ping()
	}
	for _, c := range []struct {
		user, db string
		denied   bool
	}{
		{"plain", "mysql", true},
		{"plain", "MySQL", true},
		{"plain", "main", false},
		{"plain", "system", false},
		{"plain", "information_schema", false},
		{"default", "mysql", false},
	} {
		err := connect(c.user, c.db)
		var me *mysql.MySQLError
		switch {
		case c.denied && (!errors.As(err, &me) || me.Number != 1044):
			t.Errorf("%s logging in to %s: %v, want 1044", c.user, c.db, err)
		case !c.denied && err != nil:
			t.Errorf("%s logging in to %s: %v", c.user, c.db, err)
		}
	}

	raw := rawLogin(t, s.addr, "plain")
	if err := raw.writePacket(0, append([]byte{0x02}, "mysql"...)); err != nil {
		t.Fatal(err)
	}
	if code, msg := raw.expectError(); code != 1044 {
		t.Errorf("COM_INIT_DB mysql: %d %s, want 1044", code, msg)
	}
	if err := raw.writePacket(0, append([]byte{0x02}, "main"...)); err != nil {
		t.Fatal(err)
	}
	if _, p := raw.mustReadPacket(); p[0] != 0x00 {
		t.Errorf("COM_INIT_DB main: %s, want OK", describePacket(p))
	}
}
