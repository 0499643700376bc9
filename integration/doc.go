// Package integration holds the end-to-end tests: each starts the real overloadsql binary
// (built once per test run) on free loopback ports with a temporary config, talks to it over
// real MySQL connections (go-sql-driver, and the mariadb CLI where the behaviour is visible to
// a person), and stops it, also when the test fails.
package integration
