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
//   - GET /history: the recorded history (MetricHistory, WarningHistory) of the last minutes as
//     JSON, one array per series, counters as increments per frame.
//   - GET /dashboard: one page that charts /history with uPlot, embedded from dashboard/ (the
//     library's dist file, its licence beside it), and refreshes every few seconds.
//     Its Content-Security-Policy allows this server only, so it needs no internet access; the
//     page sets data-points on every chart after drawing, which the browser test reads.
//
// /history and /dashboard need HTTP basic auth, checked by the server's Authenticate (admins
// of [[users]]); the chart library and the page's script and style are public.
//
// The package knows nothing of the SQL engine: it reads the server through small interfaces
// (State, MetricHistory, WarningHistory, Authenticate). Every phase of a request has a timeout,
// headers, /history's parameters and the number of connections are bounded, and Shutdown drains
// requests in progress.
package httpapi
