package integration

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// A geometry's binary form announces its element counts; the engine allocated what they said
// before reading the elements, so a 50-byte LINESTRING of 2^31 points asked for a 48 GiB block
// and the server died, whether the bytes reached ST_GeomFromWKB, an INSERT or UPDATE of a
// spatial column, a spatial column's default or generated value, or an IN list against a
// spatial column. A GEOMETRYCOLLECTION nested 7 million deep overflowed the stack; its text
// form nested 3 million deep ran for minutes past KILL QUERY. Each now fails with 3037 while
// the server keeps serving, as an ordinary user, and valid geometries still round-trip.
func TestMalformedGeometriesAreRefused(t *testing.T) {
	s := startServer(t, serverOptions{addressSpace: memoryLimit, sections: appUsers})
	app := s.open("app", "secret", s.addr)
	app.SetMaxOpenConns(1)

	// A LINESTRING (type 2) whose count says 2^31-1 points, followed by two; EWKB is the
	// same after a four-byte SRID.
	const wkb = "0102000000FFFFFF7F000000000000F03F000000000000F03F00000000000000400000000000000040"
	const ewkb = "0x00000000" + wkb
	for _, setup := range []string{
		"CREATE TABLE g (id INT PRIMARY KEY, g GEOMETRY)",
		"INSERT INTO g VALUES (1, POINT(1, 1))",
		"CREATE TABLE b (id INT PRIMARY KEY, x BLOB)",
		"INSERT INTO b VALUES (1, " + ewkb + ")",
		"CREATE TABLE d (id INT PRIMARY KEY, g GEOMETRY DEFAULT (" + ewkb + "))",
		"CREATE TABLE gen (id INT PRIMARY KEY, x BLOB, g GEOMETRY AS (x) STORED)",
		"INSERT INTO gen (id, x) VALUES (1, NULL)",
	} {
		if _, err := app.Exec(setup); err != nil {
			t.Fatalf("%s: %v", setup, err)
		}
	}
	nested := "CAST(CONCAT(REPEAT(UNHEX('010700000001000000'), 7000000), UNHEX('010700000000000000')) AS BINARY)"
	for _, query := range []string{
		"SELECT ST_AsText(ST_GeomFromWKB(0x" + wkb + "))",
		"SELECT ST_AsText(ST_LineStringFromWKB(0x" + wkb + "))",
		"SELECT ST_AsText(ST_GeomFromWKB(0x0107000000FFFFFF7F00000000))",
		"SELECT LENGTH(ST_AsText(ST_GeomFromWKB(" + nested + ")))",
		"SELECT LENGTH(ST_AsText(ST_GeomFromText(CONCAT(REPEAT('GEOMETRYCOLLECTION(', 3000000), 'POINT(1 1)', REPEAT(')', 3000000)))))",
		"INSERT INTO g VALUES (2, " + ewkb + ")",
		"INSERT INTO g SELECT 3, x FROM b",
		"INSERT INTO g VALUES (1, POINT(2, 2)) ON DUPLICATE KEY UPDATE g = " + ewkb,
		"UPDATE g SET g = " + ewkb,
		"UPDATE g, b SET g.g = b.x",
		"INSERT INTO d (id) VALUES (1)",
		"UPDATE gen SET x = " + ewkb,
		"ALTER TABLE b ADD COLUMN g GEOMETRY AS (x) STORED",
		"ALTER TABLE b ADD COLUMN g GEOMETRY DEFAULT (x)",
		"SELECT * FROM g WHERE g IN (" + ewkb + ")",
		"SELECT * FROM g WHERE (g, 1) IN ((" + ewkb + ", 1))",
		"SELECT * FROM g, b WHERE g.g IN (b.x, POINT(1, 1))",
	} {
		_, err := app.Exec(query)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 3037 {
			t.Errorf("%.90s: %v, want error 3037", query, err)
		}
		s.alive(t, query)
	}

	// A column of another type cannot become spatial: its values would be read as geometries.
	_, err := app.Exec("ALTER TABLE b MODIFY x GEOMETRY")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1235 {
		t.Errorf("ALTER TABLE b MODIFY x GEOMETRY: %v, want error 1235", err)
	}
	s.alive(t, "ALTER TABLE b MODIFY x GEOMETRY")

	// Valid geometries are unchanged, through the functions and stored as EWKB.
	const collection = "GEOMETRYCOLLECTION(MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((0 0,2 0,2 2,0 0))),POINT(1 2),LINESTRING(0 0,1 1))"
	var hexWKB string
	if err := app.QueryRow("SELECT HEX(ST_AsWKB(ST_GeomFromText('" + collection + "')))").Scan(&hexWKB); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"INSERT INTO g VALUES (10, ST_GeomFromWKB(0x" + hexWKB + "))",
		"INSERT INTO g VALUES (11, 0x00000000" + hexWKB + ")",
		"UPDATE g SET g = 0x00000000" + hexWKB + " WHERE id = 1",
	} {
		if _, err := app.Exec(q); err != nil {
			t.Fatalf("%.90s: %v", q, err)
		}
	}
	rows := queryStrings(t, app, "SELECT ST_AsText(g) FROM g WHERE id IN (1, 10, 11) AND g IN (0x00000000"+hexWKB+")")
	if len(rows) != 3 || strings.Join(rows, "") != strings.Repeat(collection, 3) {
		t.Errorf("valid geometries read back as %q, want 3 times %s", rows, collection)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var n sql.NullInt64
	if err := app.QueryRowContext(ctx, "SELECT COUNT(*) FROM g").Scan(&n); err != nil || n.Int64 != 3 {
		t.Errorf("SELECT COUNT(*) FROM g: %v, %v; want 3", n, err)
	}
}
