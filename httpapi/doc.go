// Package httpapi serves overloadsql's HTTP listener (http_listen): what operators and their
// tools read over HTTP rather than SQL.
//
//   - GET /metrics: the Prometheus exposition. A custom collector reads the rows of
//     system.asynchronous_metrics (gauges), system.events (counters) and system.metrics (gauges)
//     live on every scrape, under the names of the Names table (docs/metrics.md), plus one
//     overloadsql_warning{resource} series per resource with a current warning, and the Go
//     runtime and process collectors. Nothing is recorded between scrapes.
//   - GET /ping: 200 "Ok." while the process serves HTTP.
//   - GET /ready: 200 "Ok." while a new MySQL connection would be accepted, 503 with a one-line
//     reason while the server would drop or refuse it (CPU overload over the drop threshold,
//     max_connections reached, shutting down), so a load balancer takes the server out of
//     rotation before clients see error 1040.
//
// The package knows nothing of the SQL engine: it reads the server through the small State
// interface. Every phase of a request has a timeout, headers and the number of connections are
// bounded, and Shutdown drains requests in progress.
package httpapi
