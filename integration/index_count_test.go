package integration

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// The engine created a CREATE TABLE's indexes one by one and looked through all of them after
// each, deaf to KILL QUERY and to the client leaving: 8000 index definitions (150 KB) ran 24 s
// and the table was created after its client had gone. A table now has at most MySQL's 64
// secondary indexes (1069), by CREATE TABLE, CREATE INDEX or ALTER TABLE ... ADD INDEX.
func TestIndexesPerTableAreBounded(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app := s.open("app", "secret", s.addr)
	app.SetMaxOpenConns(1)
	indexes := func(n int, clause string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(clause, i)
		}
		return strings.Join(parts, ", ")
	}
	for _, c := range []struct {
		query   string
		refused bool
	}{
		{"CREATE TABLE wide (id INT PRIMARY KEY, a INT, " + indexes(8000, "INDEX i%d (a)") + ")", true},
		{"CREATE TABLE t65 (id INT PRIMARY KEY, a INT, " + indexes(65, "INDEX i%d (a)") + ")", true},
		{"CREATE TABLE t64 (id INT PRIMARY KEY, a INT, b INT, UNIQUE KEY u (b), " + indexes(62, "INDEX i%d (a)") + ")", false},
		{"CREATE INDEX last ON t64 (a)", false},
		{"CREATE INDEX more ON t64 (a)", true},
		{"ALTER TABLE t64 ADD INDEX more (a)", true},
		{"CREATE TABLE t (id INT PRIMARY KEY, a INT)", false},
		{"ALTER TABLE t " + indexes(65, "ADD INDEX i%d (a)"), true},
		{"ALTER TABLE t " + indexes(64, "ADD INDEX i%d (a)"), false},
	} {
		_, err := app.Exec(c.query)
		var me *mysql.MySQLError
		switch {
		case c.refused && (!errors.As(err, &me) || me.Number != 1069):
			t.Errorf("%.60s: %v, want error 1069", c.query, err)
		case !c.refused && err != nil:
			t.Errorf("%.60s: %v", c.query, err)
		}
	}
	if got := oneValue(t, app, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name IN ('wide', 't65')"); got != "0" {
		t.Errorf("%s of the refused tables exist", got)
	}
}

// For a DELETE or UPDATE of a parent table the engine planned, for each foreign key of a child
// referring to it, the checks of all the child's foreign keys, deaf to KILL QUERY: a
// non-admin's table of 3000 foreign keys to another table made every DELETE of that table run
// for minutes. A table now declares at most 64 foreign keys (1235).
func TestForeignKeysPerTableAreBounded(t *testing.T) {
	s := startServer(t, serverOptions{sections: appUsers})
	app := s.open("app", "secret", s.addr)
	app.SetMaxOpenConns(1)
	fks := func(from, n int, clause string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(clause, from+i)
		}
		return strings.Join(parts, ", ")
	}
	const fk = "CONSTRAINT f%d FOREIGN KEY (a) REFERENCES parent (id)"
	for _, c := range []struct {
		query   string
		refused bool
	}{
		{"CREATE TABLE parent (id INT PRIMARY KEY)", false},
		{"INSERT INTO parent VALUES (1), (2)", false},
		{"CREATE TABLE many (id INT PRIMARY KEY, a INT, INDEX (a), " + fks(0, 3000, fk) + ")", true},
		{"CREATE TABLE c65 (id INT PRIMARY KEY, a INT, INDEX (a), " + fks(0, 65, fk) + ")", true},
		{"CREATE TABLE c63 (id INT PRIMARY KEY, a INT, INDEX (a), " + fks(100, 63, fk) + ")", false},
		{"ALTER TABLE c63 ADD CONSTRAINT g1 FOREIGN KEY (a) REFERENCES parent (id)", false},
		{"ALTER TABLE c63 ADD CONSTRAINT g2 FOREIGN KEY (a) REFERENCES parent (id)", true},
		{"CREATE TABLE c0 (id INT PRIMARY KEY, a INT, INDEX (a))", false},
		{"ALTER TABLE c0 " + fks(200, 65, "ADD "+fk), true},
		{"ALTER TABLE c0 " + fks(200, 64, "ADD "+fk), false},
		{"DELETE FROM parent WHERE id = 2", false},
	} {
		_, err := app.Exec(c.query)
		var me *mysql.MySQLError
		switch {
		case c.refused && (!errors.As(err, &me) || me.Number != 1235):
			t.Errorf("%.60s: %v, want error 1235", c.query, err)
		case !c.refused && err != nil:
			t.Errorf("%.60s: %v", c.query, err)
		}
	}
}
