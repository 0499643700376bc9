// Package integration holds the end-to-end tests: each starts the real overloadsql binary
// (built once per test run, by TestMain) on free loopback ports with a temporary config, talks
// to it over real MySQL connections (go-sql-driver, the mariadb CLI where the behaviour is
// visible to a person, and the clients people use: the scripts in clients/), and stops it, also
// when the test fails.
//
// harness_test.go is the one harness: the server process (startServer), its pools, and the
// helpers the test files share. A test that needs something outside Go (a tool such as the
// mariadb CLI or haproxy, a Python module, an npm package in clients/node, root) asks for it
// with need, needFile or unavailable: it is skipped where that is missing, except under
// CI=true, where it fails, since .ci/run installs every one. Tests that measure real CPU
// contention (realCPU) run only with OVERLOADSQL_REAL_CPU=1.
package integration
