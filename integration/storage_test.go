package integration

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"overloadsql/internal/serverproc"

	"github.com/cockroachdb/pebble/v2"
)

// Exit codes of a data directory that does not open (cmd/overloadsql, docs/storage.md).
const (
	exitStoreLocked      = 11
	exitStoreNewerFormat = 12
)

// runToExit runs the server on config path until it exits by itself (at most 30 s) and returns
// its exit code and output.
func runToExit(t *testing.T, path string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--config", path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the server on %s did not fail: %v\n%s", path, err, out)
	}
	return exit.ExitCode(), string(out)
}

// A second server on a data_dir that a running server uses exits with code 11 and says why;
// the first one serves on.
func TestSecondServerOnSameDataDir(t *testing.T) {
	s := startServer(t, serverOptions{})
	db := s.db()
	mustExec(t, db, "CREATE TABLE kept (id INT PRIMARY KEY)")
	mustExec(t, db, "INSERT INTO kept VALUES (1)")

	other := t.TempDir()
	data := filepath.Join(s.dir, "data")
	path, _, _, err := serverproc.WriteConfig(other, "data_dir = "+quote(data)+"\n", "")
	if err != nil {
		t.Fatal(err)
	}
	code, out := runToExit(t, path)
	if code != exitStoreLocked {
		t.Errorf("second server: exit code %d, want %d\n%s", code, exitStoreLocked, out)
	}
	if !strings.Contains(out, "cannot open the data directory") || !strings.Contains(out, "in use by another server") || !strings.Contains(out, data) {
		t.Errorf("second server's log does not say that %s is in use:\n%s", data, out)
	}
	if got := queryStrings(t, db, "SELECT id FROM kept"); strings.Join(got, ",") != "1" {
		t.Errorf("the first server after the second one's attempt: rows %q, want [1]", got)
	}
}

// A data_dir written by a newer version (a format record with a higher version) is refused with
// exit code 12, and left as it was.
func TestNewerFormatDataDir(t *testing.T) {
	s := startServer(t, serverOptions{})
	mustExec(t, s.db(), "CREATE TABLE kept (id INT PRIMARY KEY)")
	s.stop()

	// The format record is the key 01 'f' (storage/kv/doc.go): a JSON object with "version".
	data := filepath.Join(s.dir, "data")
	key := []byte{0x01, 'f'}
	pdb, err := pebble.Open(data, &pebble.Options{ErrorIfNotExists: true})
	if err != nil {
		t.Fatal(err)
	}
	raw, closer, err := pdb.Get(key)
	if err != nil {
		t.Fatalf("the data directory has no format record: %v", err)
	}
	var record map[string]any
	if err := json.Unmarshal(raw, &record); err != nil {
		t.Fatal(err)
	}
	_ = closer.Close()
	record["version"] = 999
	newer, _ := json.Marshal(record)
	if err := pdb.Set(key, newer, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := pdb.Close(); err != nil {
		t.Fatal(err)
	}

	code, out := runToExit(t, s.configPath)
	if code != exitStoreNewerFormat {
		t.Errorf("exit code %d, want %d\n%s", code, exitStoreNewerFormat, out)
	}
	if !strings.Contains(out, "newer format") {
		t.Errorf("the log does not name the newer format:\n%s", out)
	}
	pdb, err = pebble.Open(data, &pebble.Options{ErrorIfNotExists: true, ReadOnly: true})
	if err != nil {
		t.Fatalf("the refused data directory no longer opens: %v", err)
	}
	defer pdb.Close()
	got, closer, err := pdb.Get(key)
	if err != nil || string(got) != string(newer) {
		t.Errorf("format record after the refusal: %q, %v; want it unchanged", got, err)
	}
	if closer != nil {
		_ = closer.Close()
	}
}

// restartCorpus is DDL and data in main and in a database made with CREATE DATABASE: tables
// with and without a primary key, secondary, unique and prefix indexes, AUTO_INCREMENT, foreign
// keys, CHECK, generated columns, defaults, comments, views, triggers and a procedure.
var restartCorpus = []string{
	"CREATE TABLE parent (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) NOT NULL DEFAULT 'none' COMMENT 'who', UNIQUE KEY name_u (name))",
	"CREATE TABLE child (id BIGINT PRIMARY KEY, parent_id INT, note TEXT, amount DECIMAL(10,2) DEFAULT 1.50, " +
		"doubled DECIMAL(12,2) AS (amount * 2) STORED, KEY note_p (note(8)), " +
		"CONSTRAINT child_parent FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE, " +
		"CONSTRAINT amount_positive CHECK (amount > 0)) COMMENT 'children'",
	"CREATE TABLE log (at DATETIME DEFAULT CURRENT_TIMESTAMP, what VARCHAR(100), KEY what_k (what))",
	"CREATE TABLE stats (k VARCHAR(10) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, n INT NOT NULL DEFAULT 0, f DOUBLE, j JSON)",
	"INSERT INTO parent (name) VALUES ('ann'), ('bob'), ('cy')",
	"INSERT INTO child (id, parent_id, note, amount) VALUES (1, 1, 'first note', 2.25), (2, 1, NULL, 3.00), (3, 2, 'x', 10.10)",
	"INSERT INTO log (at, what) VALUES ('2026-01-02 03:04:05', 'start'), ('2026-01-02 03:04:05', 'start')",
	"INSERT INTO stats VALUES ('A', 1, -0.5, '{\"a\": [1, 2]}'), ('b', 2, 1e100, NULL)",
	"CREATE VIEW rich AS SELECT p.name, SUM(c.amount) AS total FROM parent p JOIN child c ON c.parent_id = p.id GROUP BY p.name",
	"CREATE TRIGGER count_child AFTER INSERT ON child FOR EACH ROW UPDATE stats SET n = n + 1 WHERE k = 'a'",
	"CREATE PROCEDURE add_parent(IN who VARCHAR(40)) BEGIN INSERT INTO parent (name) VALUES (who); END",
	"CALL add_parent('dee')",
	"INSERT INTO child (id, parent_id, note) VALUES (4, 4, 'dee''s')",
	"CREATE DATABASE shop",
	"CREATE TABLE shop.items (sku CHAR(8) PRIMARY KEY, price INT UNSIGNED NOT NULL, KEY price_k (price))",
	"INSERT INTO shop.items VALUES ('a-1', 5), ('b-2', 7)",
	"CREATE VIEW shop.cheap AS SELECT sku FROM shop.items WHERE price < 6",
}

// restartState is everything the corpus should keep over a restart, as text.
func restartState(t *testing.T, s *testServer) []string {
	t.Helper()
	db := s.db()
	var out []string
	add := func(q string) {
		out = append(out, "-- "+q)
		out = append(out, queryStrings(t, db, q)...)
	}
	add("SHOW DATABASES")
	for _, table := range []string{"main.parent", "main.child", "main.log", "main.stats", "shop.items"} {
		add("SHOW CREATE TABLE " + table)
		add("SELECT * FROM " + table + " ORDER BY 1, 2")
	}
	add("SHOW CREATE VIEW main.rich")
	add("SELECT * FROM main.rich ORDER BY name")
	add("SHOW CREATE VIEW shop.cheap")
	add("SELECT * FROM shop.cheap")
	add("SELECT trigger_name, event_manipulation, event_object_table, action_statement, action_timing FROM information_schema.triggers WHERE trigger_schema = 'main'")
	add("SELECT routine_name, routine_definition FROM information_schema.routines WHERE routine_schema = 'main'")
	add("SELECT table_schema, table_name, column_name, column_default, is_nullable, column_type, extra FROM information_schema.columns WHERE table_schema IN ('main', 'shop') ORDER BY 1, 2, ordinal_position")
	add("SELECT table_name, index_name, column_name, non_unique, sub_part FROM information_schema.statistics WHERE table_schema IN ('main', 'shop') ORDER BY 1, 2, seq_in_index")
	add("SELECT constraint_name, table_name, referenced_table_name, delete_rule FROM information_schema.referential_constraints WHERE constraint_schema = 'main'")
	add("SELECT constraint_name, check_clause FROM information_schema.check_constraints WHERE constraint_schema = 'main'")
	return out
}

// The databases, their tables, rows, indexes, views, triggers and procedures are the same after
// a SIGTERM and a start on the same data_dir, and they keep working: AUTO_INCREMENT goes on
// from where it was, the trigger fires, the procedure runs, the foreign key holds.
func TestRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, serverOptions{dir: dir})
	db := s.db()
	for _, q := range restartCorpus {
		mustExec(t, db, q)
	}
	before := restartState(t, s)
	s.stop()

	again := startWithConfig(t, serverOptions{dir: dir}, s.configPath, s.addr, s.adminAddr)
	after := restartState(t, again)
	if b, a := strings.Join(before, "\n"), strings.Join(after, "\n"); b != a {
		t.Errorf("state before the restart:\n%s\n\nafter it:\n%s", b, a)
	}
	db = again.db()
	mustExec(t, db, "CALL add_parent('eve')")
	if got := queryStrings(t, db, "SELECT id FROM parent WHERE name = 'eve'"); strings.Join(got, ",") != "5" {
		t.Errorf("AUTO_INCREMENT after the restart: id %q, want 5", got)
	}
	mustExec(t, db, "INSERT INTO child (id, parent_id) VALUES (5, 5)")
	if got := queryStrings(t, db, "SELECT n FROM stats WHERE k = 'a'"); strings.Join(got, ",") != "3" {
		t.Errorf("the trigger after the restart: stats.n %q, want 3", got)
	}
	if _, err := db.Exec("INSERT INTO child (id, parent_id) VALUES (6, 99)"); err == nil || mysqlError(t, err).Number != 1452 {
		t.Errorf("a child of a missing parent after the restart: %v, want error 1452", err)
	}
	if _, err := db.Exec("INSERT INTO shop.items VALUES ('a-1', 1)"); err == nil || mysqlError(t, err).Number != 1062 {
		t.Errorf("a duplicate key after the restart: %v, want error 1062", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err != nil {
		t.Errorf("data_dir beside the config file: %v", err)
	}
}
