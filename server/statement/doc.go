// Package statement looks at SQL text without parsing it: it answers the questions the server
// must settle for every statement before the engine parses it.
//
// # Why text, not the parser
//
// The overload check runs on the hot path of every query, before go-mysql-server parses it: a
// statement that is going to be rejected must cost as little as possible, and the check must not
// add a parse to every statement that is going to be served. So the package reads the text with
// a small tokenizer that splits it the way the engine's parser (vitess) does — strings with
// backslash escapes and doubled quotes, backquoted identifiers, the comments /* */, /*! */, /*+ */,
// -- , # and //, numbers, @variables — and decides from the tokens. It allocates nothing when
// there is nothing to do.
//
// # One summary per statement
//
// The server asks many questions of every statement on its way in: is it SHOW ERRORS, a
// savepoint statement, a write, a SET, SYSTEM RELOAD CONFIG or SYSTEM BACKUP TO, does it carry hints, is it exempt.
// Rather than read the text again for each, [Summarize] reads a statement once, where its text arrives (the server's protocol handler, per
// statement of a multi-statement query, per execution of a prepared statement), into a
// [Summary], and every decision is made from that: one pass over the leading words settles the
// statement's kind, its effect on savepoints and the savepoint's name, what it does with the
// diagnostics area, whether it may write or change settings, whether it is one of the server's own
// statements, and whether a /*+ ... */ comment follows its first keyword. What only some
// statements need is read on first demand and kept in the summary: the SET_VAR hints (only when a
// hint comment is there), whether the text names the overload thresholds, and the exemption,
// which depends on the session's current database and is needed only for a statement about to be
// rejected or queued. Summarize allocates nothing; nor do its answers, except the hints when
// there are some.
//
// # SYSTEM is a reserved word
//
// MySQL's grammar, and the engine's, reserves SYSTEM, so `SELECT * FROM system.warnings` and
// `USE system` are syntax errors unless the name is backquoted. Every ClickHouse user types them
// unquoted, so [RewriteSystem] backquotes the bare word where it names something, and leaves
// alone every other use: strings, comments, quoted identifiers, longer words, the grammar's own
// SPATIAL REFERENCE SYSTEM and WITH SYSTEM VERSIONING, and SYSTEM RELOAD CONFIG, which the
// server runs itself. Backquoting an identifier never changes what a statement means: a
// statement that parsed before parses to the same tree after the rewrite (the fuzz test checks
// this against the real parser).
//
// # Exempt statements
//
// Under CPU overload the server rejects statements at random. ClickHouse rejects
// everything, which locks its users out of the server they have to repair (ClickHouse issue
// #79880): the queries that show what is happening and the commands that fix it are refused
// like any other. [Summary.Exempt] marks the statements an operator needs to
// inspect and repair an overloaded server as exempt: SET, SHOW, KILL, USE, COMMIT, ROLLBACK, SELECTs
// without FROM of system variables and session functions (DATABASE(), VERSION(), ...: what a
// connection pool asks a new connection), SELECTs that read exactly one system.* or
// information_schema.* table, DESCRIBE of those tables, TRUNCATE system.warnings and SYSTEM
// RELOAD CONFIG.
//
// An exemption switches protection off, so it is granted only to statements that are cheap by
// construction: an exempt statement calls only functions of an allow-list (no SLEEP, REPEAT,
// BENCHMARK, REGEXP_*, GET_LOCK, ...), matches no regular expression, and has no subquery, no
// join and no UNION. When in doubt, a statement is not exempt: SELECT 1 and SELECT NOW() (the
// probes of clients), a statement that reads a user table anywhere, a text holding a second
// statement, a SELECT with a /*! ... */ comment (the parser executes its content as SQL), and
// anything this package cannot follow are ordinary work.
//
// [Summary.Hints] reads MySQL 8's per-statement settings, /*+ SET_VAR(name = value) */, so that the
// overload settings can be overridden for one statement before it is parsed.
package statement
