package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"overloadsql/history"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// recorded is a history of four frames, one a second from epoch, and one warning event.
func recorded() (*history.Metrics, *history.Warnings) {
	metrics := history.NewMetrics(time.Hour)
	warns := history.NewWarnings(time.Hour)
	for i := range 4 {
		values := []history.Value{{Name: "OSCPUOverload", Value: float64(i)}, {Name: "ProfileEvent_Query", Value: float64(10 * i), Counter: true}}
		if i == 2 {
			values = values[1:] // OSCPUOverload absent in one frame
		}
		metrics.Record(epoch.Add(time.Duration(i)*time.Second), values)
	}
	warns.Add(history.WarningEvent{At: epoch.Add(1500 * time.Millisecond), Key: "cpu", Resource: "cpu", Event: history.Raised, Message: "High CPU usage"})
	return metrics, warns
}

func historyServer(t *testing.T) *httptest.Server {
	t.Helper()
	metrics, warns := recorded()
	srv, err := Listen("127.0.0.1:0", Options{
		State: &fakeState{}, Logger: discard(), Metrics: metrics, Warnings: warns, Retention: time.Hour,
		Authenticate: func(user, password, _ string) bool { return user == "admin" && password == "secret" },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.http.Handler)
	t.Cleanup(ts.Close)
	return ts
}

func get(t *testing.T, ts *httptest.Server, path, user, password string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+path, nil)
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

func TestDashboardNeedsAnAdmin(t *testing.T) {
	ts := historyServer(t)
	tests := []struct {
		path, user, password string
		status               int
	}{
		{"/dashboard", "", "", 401},
		{"/dashboard", "admin", "wrong", 401},
		{"/dashboard", "other", "secret", 401},
		{"/dashboard", "admin", "secret", 200},
		{"/history", "", "", 401},
		{"/history", "admin", "secret", 200},
		{"/dashboard/uPlot.iife.min.js", "", "", 200}, // the library is public code
		{"/dashboard/dashboard.js", "", "", 200},
		{"/metrics", "", "", 200},
	}
	for _, tt := range tests {
		code, h, _ := get(t, ts, tt.path, tt.user, tt.password)
		if code != tt.status {
			t.Errorf("GET %s as %q: %d, want %d", tt.path, tt.user, code, tt.status)
		}
		if code == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("GET %s: 401 without a Basic challenge", tt.path)
		}
	}
	_, h, page := get(t, ts, "/dashboard", "admin", "secret")
	if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("the page must forbid loading from other servers: CSP %q", h.Get("Content-Security-Policy"))
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Errorf("the page refers to another server:\n%s", page)
	}
}

func TestHistoryJSON(t *testing.T) {
	metrics, warns := recorded()
	h := historyHandler{metrics: metrics, warnings: warns, retention: time.Hour, now: func() time.Time { return epoch.Add(3 * time.Second) }}
	tests := []struct {
		name, query string
		status      int
		want        string
	}{
		{"chosen metrics", "?metric=OSCPUOverload&metric=ProfileEvent_Query&metric=Nope", 200,
			`{"t":[1767225600,1767225601,1767225602,1767225603],"series":{"Nope":[null,null,null,null],"OSCPUOverload":[0,1,null,3],"ProfileEvent_Query":[null,10,10,10]},` +
				`"warnings":[{"t":1767225601.5,"resource":"cpu","event":"raised","message":"High CPU usage","value":0}]}`},
		{"every metric", "", 200,
			`{"t":[1767225600,1767225601,1767225602,1767225603],"series":{"OSCPUOverload":[0,1,null,3],"ProfileEvent_Query":[null,10,10,10]},` +
				`"warnings":[{"t":1767225601.5,"resource":"cpu","event":"raised","message":"High CPU usage","value":0}]}`},
		{"a metric twice", "?metric=OSCPUOverload&metric=OSCPUOverload&minutes=99999999999999", 200,
			`{"t":[1767225600,1767225601,1767225602,1767225603],"series":{"OSCPUOverload":[0,1,null,3]},` +
				`"warnings":[{"t":1767225601.5,"resource":"cpu","event":"raised","message":"High CPU usage","value":0}]}`},
		{"bad minutes", "?minutes=0", 400, "minutes must be a whole number >= 1\n"},
		{"too many metrics", "?" + strings.Repeat("metric=a&", maxHistoryMetrics+1), 400, "at most 32 metric parameters\n"},
		{"long name", "?metric=" + strings.Repeat("a", maxMetricNameLength+1), 400, "a metric name is at most 128 bytes\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/history"+tt.query, nil))
			if rec.Code != tt.status || rec.Body.String() != tt.want {
				t.Errorf("= %d %s\nwant %d %s", rec.Code, rec.Body.String(), tt.status, tt.want)
			}
		})
	}
	// One minute back from 3 s: the window excludes nothing; 1 minute from 90 s excludes all.
	h.now = func() time.Time { return epoch.Add(90 * time.Second) }
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/history?minutes=1", nil))
	if want := `{"t":[],"series":{},"warnings":[]}`; rec.Body.String() != want {
		t.Errorf("a window after the frames = %s, want %s", rec.Body.String(), want)
	}
}
