package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// scraper reads the server's /metrics every interval, as a Prometheus server would, while a
// scenario runs.
type scraper struct {
	url      string
	interval time.Duration
	client   *http.Client

	mu             sync.Mutex
	scrapes, fails int
	lastErr        error
	busy           time.Duration // wall time of the scrapes, summed
}

// scrapeResult is what the scraper saw.
type scrapeResult struct {
	IntervalSeconds float64 `json:"interval_seconds"`
	Scrapes         int     `json:"scrapes"`
	Failed          int     `json:"failed"`
	MeanMillis      float64 `json:"mean_ms"`
}

func newScraper(httpAddr string, interval time.Duration) *scraper {
	return &scraper{url: "http://" + httpAddr + "/metrics", interval: interval, client: &http.Client{Timeout: 5 * time.Second}}
}

// run scrapes until ctx is done.
func (s *scraper) run(ctx context.Context) {
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.scrape(ctx)
		}
	}
}

func (s *scraper) scrape(ctx context.Context) {
	start := time.Now()
	err := s.get(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scrapes++
	s.busy += time.Since(start)
	if err != nil && ctx.Err() == nil {
		s.fails++
		s.lastErr = err
	}
}

func (s *scraper) get(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", s.url, resp.Status)
	}
	return nil
}

func (s *scraper) result() (*scrapeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &scrapeResult{IntervalSeconds: s.interval.Seconds(), Scrapes: s.scrapes, Failed: s.fails}
	if s.scrapes > 0 {
		r.MeanMillis = float64(s.busy.Microseconds()) / 1000 / float64(s.scrapes)
	}
	if s.fails > 0 {
		return r, fmt.Errorf("%d of %d scrapes of /metrics failed, the last: %w", s.fails, s.scrapes, s.lastErr)
	}
	return r, nil
}
