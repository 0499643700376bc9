package server

import (
	"fmt"
	"time"
)

// statisticsText is MySQL's COM_STATISTICS line, with the figures overloadsql has; the ones it
// has no notion of (slow queries, opened and open tables) are 0.
func (s *Server) statisticsText() string {
	uptime := max(time.Since(s.started), time.Second)
	questions := s.counters.queries.Load()
	return fmt.Sprintf("Uptime: %d  Threads: %d  Questions: %d  Slow queries: 0  Opens: 0  Open tables: 0  Queries per second avg: %.3f",
		int64(uptime.Seconds()), s.counters.connections.Load(), questions, float64(questions)/uptime.Seconds())
}
