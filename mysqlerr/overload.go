package mysqlerr

import "strconv"

// The messages of overloadsql's shedding errors are ClickHouse's words, so that clients and
// dashboards written for ClickHouse's SERVER_OVERLOADED read them alike. The ratio printed is
// the overload ratio clamped to [lo, hi]; p is the probability that was drawn against.

const overloadIntro = "CPU is overloaded, CPU is waiting for execution way more than executing, " +
	"ratio of wait time (OSCPUWaitMicroseconds metric) to busy time (OSCPUVirtualTimeMicroseconds metric) is "

// OverloadedMessage is the text of error 745 (ERServerOverloaded), a statement refused.
func OverloadedMessage(r, lo, hi, p float64) string {
	return overloadIntro + number(clamp(r, lo, hi)) +
		". Min ratio for error (min_os_cpu_wait_time_ratio_to_throw setting) " + number(lo) +
		", max ratio for error (max_os_cpu_wait_time_ratio_to_throw setting) " + number(hi) +
		", probability used to decide whether to discard the query " + number(p) +
		". Consider reducing the number of queries or increase backoff between retries. (SERVER_OVERLOADED)"
}

// DroppedMessage is the text of error 1040 for a connection dropped under overload.
func DroppedMessage(r, lo, hi, p float64) string {
	return "Too many connections: " + overloadIntro + number(clamp(r, lo, hi)) +
		". Min ratio for error " + number(lo) +
		", max ratio for error " + number(hi) +
		", probability used to decide whether to drop the connection " + number(p) + "."
}

// number prints a float in its shortest round-trip form (4, 0.5, 2.7679569453035255).
func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func clamp(r, lo, hi float64) float64 { return min(max(r, lo), hi) }
