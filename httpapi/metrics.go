package httpapi

import (
	"log/slog"
	"net/http"
	"sync"

	"overloadsql/overload"
	"overloadsql/warnings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// maxScrapesInFlight bounds concurrent /metrics requests; more get 503 at once.
const maxScrapesInFlight = 4

// collector exports the system tables on every scrape: it reads the live rows and keeps no
// samples of its own. The set of rows varies (absent sources are absent rows), so it describes
// nothing up front and is an unchecked collector.
type collector struct {
	state   State
	logger  *slog.Logger
	warning *prometheus.Desc

	mu     sync.Mutex // guards descs, names and logged
	descs  map[descKey]*prometheus.Desc
	names  map[descKey]Name
	logged map[descKey]bool // rows without an entry in Names, logged once
}

type descKey struct{ table, sql string }

func newCollector(state State, logger *slog.Logger) *collector {
	return &collector{
		state:   state,
		logger:  logger,
		warning: prometheus.NewDesc(warningMetric, "1 for every resource with a warning in system.warnings.", []string{"resource"}, nil),
		descs:   make(map[descKey]*prometheus.Desc),
		names:   make(map[descKey]Name),
		logged:  make(map[descKey]bool),
	}
}

func (c *collector) Describe(chan<- *prometheus.Desc) {}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.state.AsynchronousMetrics() {
		c.emit(ch, tableAsynchronousMetrics, m, prometheus.GaugeValue)
	}
	for _, e := range c.state.Events() {
		c.emit(ch, tableEvents, overload.Metric{Name: e.Name, Value: float64(e.Value), Description: e.Description}, prometheus.CounterValue)
	}
	for _, g := range c.state.Gauges() {
		c.emit(ch, tableMetrics, g, prometheus.GaugeValue)
	}
	for _, v := range c.state.Workloads() {
		desc, name, ok := c.describeWorkload(v.SQL)
		if !ok {
			continue
		}
		kind := prometheus.GaugeValue
		if workloadType(name) == "counter" {
			kind = prometheus.CounterValue
		}
		ch <- prometheus.MustNewConstMetric(desc, kind, v.Value*name.Scale, v.Workload)
	}
	for _, h := range c.state.Histograms() {
		if desc, name, ok := c.describeHistogram(h); ok {
			buckets := make(map[float64]uint64, len(h.Bounds))
			for i, b := range h.Bounds {
				buckets[b*name.Scale] = h.Buckets[i]
			}
			ch <- prometheus.MustNewConstHistogram(desc, h.Count, h.Sum*name.Scale, buckets)
		}
	}
	for _, r := range warningResources(c.state.Warnings()) {
		ch <- prometheus.MustNewConstMetric(c.warning, prometheus.GaugeValue, 1, r)
	}
}

func (c *collector) emit(ch chan<- prometheus.Metric, table string, m overload.Metric, kind prometheus.ValueType) {
	desc, name := c.describe(table, m)
	ch <- prometheus.MustNewConstMetric(desc, kind, m.Value*name.Scale)
}

// describe returns the Desc of a row, built on its first scrape: descriptions do not change.
func (c *collector) describe(table string, m overload.Metric) (*prometheus.Desc, Name) {
	key := descKey{table, m.Name}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.descs[key]; ok {
		return d, c.names[key]
	}
	name, known := Lookup(table, m.Name)
	if !known && !c.logged[key] {
		c.logged[key] = true
		c.logger.Warn("a system table row has no Prometheus name in httpapi.Names; exported under a derived name",
			"table", "system."+table, "row", m.Name, "metric", name.Prometheus)
	}
	help := m.Description
	if help == "" {
		help = "system." + table + " " + m.Name
	} else {
		help += " (system." + table + " " + m.Name + ")"
	}
	d := prometheus.NewDesc(name.Prometheus, help, nil, nil)
	c.descs[key], c.names[key] = d, name
	return d, name
}

// describeWorkload returns the Desc of a column of system.workloads; false for a column
// WorkloadNames does not export.
func (c *collector) describeWorkload(column string) (*prometheus.Desc, Name, bool) {
	key := descKey{tableWorkloads, column}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.descs[key]; ok {
		return d, c.names[key], true
	}
	for _, n := range WorkloadNames {
		if n.SQL == column {
			d := prometheus.NewDesc(n.Prometheus, "system.workloads "+column+" of each workload.", []string{workloadLabel}, nil)
			c.descs[key], c.names[key] = d, n
			return d, n, true
		}
	}
	return nil, Name{}, false
}

// describeHistogram returns the Desc of a histogram of HistogramNames; false for one it lacks.
func (c *collector) describeHistogram(h Histogram) (*prometheus.Desc, Name, bool) {
	key := descKey{"histogram", h.SQL}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.descs[key]; ok {
		return d, c.names[key], true
	}
	for _, n := range HistogramNames {
		if n.SQL == h.SQL {
			d := prometheus.NewDesc(n.Prometheus, h.Description, nil, nil)
			c.descs[key], c.names[key] = d, n
			return d, n, true
		}
	}
	if !c.logged[key] {
		c.logged[key] = true
		c.logger.Warn("a histogram has no Prometheus name in httpapi.HistogramNames; not exported", "histogram", h.SQL)
	}
	return nil, Name{}, false
}

// warningResources are the distinct resources of ws, in order of first appearance.
func warningResources(ws []warnings.Warning) []string {
	var rs []string
	seen := make(map[string]bool, len(ws))
	for _, w := range ws {
		if !seen[w.Resource] {
			seen[w.Resource] = true
			rs = append(rs, w.Resource)
		}
	}
	return rs
}

// metricsHandler serves the exposition of the system tables, the Go runtime and the process.
func metricsHandler(state State, logger *slog.Logger) (http.Handler, error) {
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{
		newCollector(state, logger),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: maxScrapesInFlight,
		Timeout:             scrapeTimeout,
	}), nil
}
