// Package clients holds the end-to-end tests that drive overloadsql with the MySQL clients,
// ORMs and tools people already use: PyMySQL, mysqlclient (MySQLdb) and SQLAlchemy in python/,
// the npm packages mysql2, mysql and knex in node/, the mariadb CLI and mariadb-dump.
//
// Each client is driven by a short script committed beside the tests. A script runs one
// scenario (connect, CRUD, a transaction, a foreign key, prepared statements, overload, a pool
// across dropping) against a server whose addresses it gets in its environment, and prints one
// JSON line per observation; the Go test starts the real server, runs the script with a time
// bound and asserts on those lines, so a client's own behaviour stays in the client's language
// and every expectation stays here. The expectations are MySQL 8's.
//
// A missing client (Debian's python3-pymysql, python3-mysqldb, python3-sqlalchemy,
// mariadb-client; node and `npm install` in node/) skips its tests, except under CI=true,
// where it fails them: .ci/run installs every one.
package clients
