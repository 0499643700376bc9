package statement

import "testing"

func TestSummaryStorage(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want Storage
	}{
		{"SELECT * FROM main.t", ReadsStorage},
		{"select 1", ReadsStorage},
		{"SELECT * FROM t WHERE name = 'for update'", ReadsStorage},
		{"SELECT `for`, `update` FROM t", ReadsStorage},
		{"SELECT * FROM t /* FOR UPDATE */", ReadsStorage},
		{"SHOW CREATE TABLE t", ReadsStorage},
		{"DESCRIBE t", ReadsStorage},
		{"EXPLAIN SELECT * FROM t", ReadsStorage},
		{"SET @x = 1", ReadsStorage},
		{"SET NAMES utf8mb4", ReadsStorage},
		{"USE main", ReadsStorage},
		{"KILL 7", ReadsStorage},
		{"kill query 7", ReadsStorage},
		{"/*!40101 SET NAMES utf8mb4 */", ReadsStorage},
		{"SELECT * FROM t WHERE id = 1 FOR UPDATE", WritesStorage},
		{"select * from t for share", WritesStorage},
		{"SELECT * FROM t LOCK IN SHARE MODE", WritesStorage},
		{"SELECT * FROM (SELECT * FROM t FOR UPDATE) x", WritesStorage},
		{"INSERT INTO t VALUES (1)", WritesStorage},
		{"UPDATE t SET v = v + 1", WritesStorage},
		{"DELETE FROM t", WritesStorage},
		{"REPLACE INTO t VALUES (1)", WritesStorage},
		{"CREATE TABLE t (id INT PRIMARY KEY)", WritesStorage},
		{"ALTER TABLE t ADD COLUMN v INT", WritesStorage},
		{"TRUNCATE t", WritesStorage},
		{"WITH x AS (SELECT 1) SELECT * FROM x", ReadsStorage},
		{"with recursive r (n) as (select 1 union all select n + 1 from r where n < 3), y as (select 2) select * from r, y", ReadsStorage},
		{"WITH `x y` AS ((SELECT 1)) (SELECT * FROM `x y`)", ReadsStorage},
		{"(SELECT 1)", ReadsStorage},
		{"((SELECT a FROM t)) UNION (SELECT b FROM u)", ReadsStorage},
		{"WITH x AS (SELECT 1) UPDATE t SET v = 1", WritesStorage},
		{"WITH x AS (SELECT 1) DELETE FROM t", WritesStorage},
		{"WITH x AS (SELECT * FROM t FOR UPDATE) SELECT * FROM x", WritesStorage},
		{"WITH x AS (SELECT 1) SELECT * FROM t FOR SHARE", WritesStorage},
		{"(SELECT * FROM t LOCK IN SHARE MODE)", WritesStorage},
		{"WITH x AS (SELECT 1", WritesStorage},
		{"WITH x (a, b AS (SELECT 1) SELECT 1", WritesStorage},
		{"WITH x SELECT 1", WritesStorage},
		{"WITH x AS (SELECT 1), SELECT 1", WritesStorage},
		{"WITH /*!50000 x */ AS (SELECT 1) SELECT 1", WritesStorage},
		{"(INSERT INTO t VALUES (1))", WritesStorage},
		{"(", WritesStorage},
		{"TABLE t ORDER BY id LIMIT 1", ReadsStorage},
		{"VALUES ROW(1, 2), ROW(3, 4)", ReadsStorage},
		{"(TABLE t) UNION (VALUES ROW(1))", ReadsStorage},
		{"WITH x AS (SELECT 1) TABLE x", ReadsStorage},
		{"SET @v = (SELECT v FROM t WHERE id = 1 FOR UPDATE)", WritesStorage},
		{"set @v := (select v from t lock in share mode)", WritesStorage},
		{"SET @v = 'for update'", ReadsStorage},
		{"/*!50000 SELECT v INTO @v FROM t FOR UPDATE */", WritesStorage},
		{"/*!50000 SELECT v FROM t */ FOR SHARE", WritesStorage},
		{"/*!50000 SELECT v FROM t */", ReadsStorage},
		{"/*!40101 SET autocommit = 1 */", EndsTransaction},
		{"/*!COMMIT*/", EndsTransaction},
		{"/*!40000 ALTER TABLE t DISABLE KEYS */", WritesStorage},
		{"/*!50000 /*!50000 SELECT 1 */", WritesStorage},
		{"/*!/*!/*!/*!/*!", WritesStorage},
		{"/*!50000 */ UPDATE t SET v = 1", WritesStorage},
		{"/*!50000 */ SELECT 1", ReadsStorage},
		{"/*!50000 */ SELECT 1 FOR UPDATE", WritesStorage},
		{"/*!50000 */ /*!50000 SELECT 1 */", WritesStorage},
		{"/*!50000 UPDATE */ t SET v = 1", WritesStorage},
		{"SELECT v FROM t /*!50000 FOR UPDATE */", WritesStorage},
		{"SELECT v FROM t /*!50000 /*!50000 x */", WritesStorage},
		{"SELECT v FROM t /*!50000 WHERE a = 'for update' */", ReadsStorage},
		{"CALL p()", WritesStorage},
		{"BEGIN", EndsTransaction},
		{"START TRANSACTION WITH CONSISTENT SNAPSHOT", EndsTransaction},
		{"COMMIT", EndsTransaction},
		{"rollback work", EndsTransaction},
		{"SET autocommit = 1", EndsTransaction},
		{"SET @@SESSION.AUTOCOMMIT = 0", EndsTransaction},
		{"LOCK TABLES t WRITE", EndsTransaction},
		{"UNLOCK TABLES", EndsTransaction},
		{"SAVEPOINT sp", ReadsStorage},
		{"DO 1", ReadsStorage},
		{"", ReadsStorage},
	} {
		s := summarize(c.sql)
		for range 2 {
			if got := s.Storage(); got != c.want {
				t.Errorf("Storage(%q) = %v, want %v", c.sql, got, c.want)
			}
		}
	}
}

func TestSummaryCommitsImplicitly(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"CREATE TABLE t (id INT PRIMARY KEY)", true},
		{"create index k on t (k)", true},
		{"ALTER TABLE t RENAME COLUMN k TO k2", true},
		{"DROP TABLE t", true},
		{"drop index k on t", true},
		{"RENAME TABLE t TO u", true},
		{"TRUNCATE t", true},
		{"GRANT SELECT ON main.* TO u", true},
		{"REVOKE SELECT ON main.* FROM u", true},
		{"ANALYZE TABLE t", true},
		{"FLUSH PRIVILEGES", true},
		{"CHECK TABLE t", true},
		{"/*!40000 ALTER TABLE t DISABLE KEYS */", true},
		{"/*!50000 */ ALTER TABLE t ADD c INT", true},
		{"/*!50000 */ /*!50000 ALTER TABLE t ADD c INT */", false},
		{"/*!50000 */ INSERT INTO t VALUES (1)", false},
		{"/* c */ CREATE VIEW v AS SELECT 1", true},
		{"CREATE TEMPORARY TABLE t (id INT)", false},
		{"drop /* c */ temporary table t", false},
		{"INSERT INTO t VALUES (1)", false},
		{"UPDATE t SET v = 1", false},
		{"SELECT 'create'", false},
		{"SET @x = 'drop'", false},
		{"COMMIT", false},
		{"/*!40101 SET NAMES utf8mb4 */", false},
		{"", false},
	} {
		s := Summarize(c.sql)
		if got := s.CommitsImplicitly(); got != c.want {
			t.Errorf("%q: CommitsImplicitly = %v, want %v", c.sql, got, c.want)
		}
	}
}

func TestSummaryExecutedName(t *testing.T) {
	for _, c := range []struct {
		sql  string
		name string
		ok   bool
	}{
		{"EXECUTE s", "s", true},
		{"execute `my stmt` USING @a, @b", "my stmt", true},
		{"/* c */ Execute s2", "s2", true},
		{"/*!50000 EXECUTE s */", "s", true},
		{"/*!50000 */ EXECUTE s", "s", true},
		{"EXECUTE 's'", "", false},
		{"EXECUTE", "", false},
		{"SELECT 'execute s'", "", false},
		{"PREPARE s FROM 'ALTER TABLE t ADD c INT'", "", false},
		{"", "", false},
	} {
		s := Summarize(c.sql)
		if name, ok := s.ExecutedName(); name != c.name || ok != c.ok {
			t.Errorf("%q: ExecutedName = %q, %v, want %q, %v", c.sql, name, ok, c.name, c.ok)
		}
	}
}
