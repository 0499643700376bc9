package httpapi

import (
	"embed"
	"encoding/json"
	"io/fs"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"overloadsql/history"
)

//go:embed dashboard
var dashboardFiles embed.FS

// Limits of /history.
const (
	defaultHistoryMinutes = 15
	maxHistoryMetrics     = 32
	maxMetricNameLength   = 128
)

// MetricHistory is the server's recorded frames (history.Metrics).
type MetricHistory interface {
	Range(now time.Time, window time.Duration, fn func(at time.Time, frame history.FrameReader))
}

// WarningHistory is the server's recorded warning events (history.Warnings).
type WarningHistory interface {
	Events(now time.Time, window time.Duration) []history.WarningEvent
}

// Authenticate reports whether user and password, sent from remoteAddr (host:port), are an
// admin's: it guards /dashboard and /history (HTTP basic auth). It must compare in constant
// time, and may slow down an address that keeps failing.
type Authenticate func(user, password, remoteAddr string) bool

// admin wraps h in HTTP basic auth.
func admin(auth Authenticate, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, ok := r.BasicAuth()
		if !ok || auth == nil || !auth(user, password, r.RemoteAddr) {
			w.Header().Set("WWW-Authenticate", `Basic realm="overloadsql", charset="UTF-8"`)
			plain(w, http.StatusUnauthorized, "an admin user of the server and its password are needed (HTTP basic auth)")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// dashboardPage serves the page; its scripts and styles come from /dashboard/ on this server
// only (the Content-Security-Policy forbids anything else), so it works without internet access.
func dashboardPage() (http.Handler, error) {
	page, err := dashboardFiles.ReadFile("dashboard/index.html")
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(page)
	}), nil
}

// dashboardAssets serves the chart library and the page's script and style.
func dashboardAssets() http.Handler {
	sub, _ := fs.Sub(dashboardFiles, "dashboard")
	return http.StripPrefix("/dashboard/", http.FileServerFS(sub))
}

// historyHandler serves GET /history?minutes=N&metric=A&metric=B as JSON, column by column:
//
//	{"t": [unix seconds], "series": {"A": [value or null]}, "warnings": [{"t","resource","event","message","value"}]}
//
// Counters are increments since the previous frame. Without metric, every name is returned.
type historyHandler struct {
	metrics   MetricHistory
	warnings  WarningHistory
	retention time.Duration
	now       func() time.Time
}

type historyJSON struct {
	T        []float64             `json:"t"`
	Series   map[string][]*float64 `json:"series"`
	Warnings []warningJSON         `json:"warnings"`
}

type warningJSON struct {
	T        float64 `json:"t"`
	Resource string  `json:"resource"`
	Event    string  `json:"event"`
	Message  string  `json:"message"`
	Value    float64 `json:"value"`
}

func (h historyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	minutes := defaultHistoryMinutes
	if text := q.Get("minutes"); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 {
			plain(w, http.StatusBadRequest, "minutes must be a whole number >= 1")
			return
		}
		minutes = n
	}
	// Clamped before multiplying, so a huge number cannot overflow the duration.
	minutes = min(minutes, int(h.retention/time.Minute)+1)
	window := min(time.Duration(minutes)*time.Minute, h.retention)
	names := q["metric"]
	if len(names) > maxHistoryMetrics {
		plain(w, http.StatusBadRequest, "at most "+strconv.Itoa(maxHistoryMetrics)+" metric parameters")
		return
	}
	for _, n := range names {
		if len(n) > maxMetricNameLength {
			plain(w, http.StatusBadRequest, "a metric name is at most "+strconv.Itoa(maxMetricNameLength)+" bytes")
			return
		}
	}
	names = slices.Compact(slices.Sorted(slices.Values(names))) // a name asked twice is one series

	now := h.now()
	out := historyJSON{Series: make(map[string][]*float64, len(names)), Warnings: []warningJSON{}}
	for _, n := range names {
		out.Series[n] = []*float64{}
	}
	h.metrics.Range(now, window, func(at time.Time, f history.FrameReader) {
		i := len(out.T)
		out.T = append(out.T, float64(at.UnixMilli())/1000)
		put := func(name string, v float64, ok bool) {
			s, listed := out.Series[name]
			if !listed {
				s = make([]*float64, i)
			}
			for len(s) < i {
				s = append(s, nil)
			}
			if ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				s = append(s, &v)
			} else {
				s = append(s, nil)
			}
			out.Series[name] = s
		}
		if len(names) > 0 {
			for _, n := range names {
				v, ok := f.Get(n)
				put(n, v, ok)
			}
			return
		}
		f.Each(func(name string, v float64) { put(name, v, true) })
	})
	for name, s := range out.Series { // names absent from the newest frames
		for len(s) < len(out.T) {
			s = append(s, nil)
		}
		out.Series[name] = s
	}
	if out.T == nil {
		out.T = []float64{}
	}
	for _, e := range h.warnings.Events(now, window) {
		out.Warnings = append(out.Warnings, warningJSON{T: float64(e.At.UnixMilli()) / 1000, Resource: e.Resource,
			Event: e.Event.String(), Message: e.Message, Value: e.Value})
	}
	body, err := json.Marshal(out)
	if err != nil {
		plain(w, http.StatusInternalServerError, "encode the history: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
}
