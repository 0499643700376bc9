// Package warnings keeps the server's current warnings — the rows of
// system.warnings — and decides when CPU and memory overload warnings are
// raised and cleared.
//
// It is pure: numbers and a clock go in, current warnings come out. It reads
// no /proc, knows no SQL and starts no goroutines; the sampler calls it.
//
// # Registry
//
// A [Registry] holds the current warnings of every source, keyed by a stable
// identity ("cpu", "memory", "simulation", "reload",
// "unavailable:per-thread schedstat", ...). A source raises a warning with
// [Registry.Raise] on every evaluation while its condition holds (an upsert: the
// first raise sets RaisedAt, later ones refresh the message, UpdatedAt, Value
// and Peak) and removes it with [Registry.Clear]. Cleared warnings are gone, not
// kept as history. [Registry.Truncate] is TRUNCATE system.warnings. A suppress
// regexp (warning_suppress_regexp) hides warnings whose message matches from
// [Registry.List] and [Registry.Len]; they still exist, so a later change of the
// regexp shows them again with their original RaisedAt.
//
// An [Observer] set with [Registry.SetObserver] sees every change of a shown
// warning as it happens — raised, updated (each later Raise) or cleared (Clear,
// Truncate) — which is how the server keeps system.warning_log.
//
// # The hysteresis trackers
//
// A [Monitor] owns one tracker for CPU and one for memory. Each tracker is a
// Schmitt trigger with a hold time and three phases:
//
//	idle ──value >= warn──▶ pending ──held for Duration──▶ raised ──value <= clear──▶ idle
//	                          │                               │
//	                          └──value < warn──▶ idle          └──clear < value < warn: stays raised
//
// In words:
//   - A warning is raised once the value has been at or above warn on every
//     sample for at least Duration: with the first such sample at t0, it
//     appears on the first sample with now-t0 >= Duration. Duration 0 raises
//     on the first sample at or above warn.
//   - A value below warn while pending resets the timer: the run at or above
//     warn has to start again.
//   - A raised warning stays until a sample is at or below clear, and is then
//     removed at once. Values between clear and warn leave it alone. That gap
//     is the point of the two thresholds: ClickHouse drops a raised warning when
//     the value dips below warn and restarts its timer, so a resource hovering
//     around warn makes the warning flap in and out; here it stays raised and
//     its Value shows the dip.
//   - Every sample is evaluated against itself, so a warning appears on the
//     sample that completes the hold time and disappears on the sample at or
//     below clear (ClickHouse acts one cycle late, issue #101759).
//
// While raised, the message is rebuilt from every sample (current numbers),
// Value is the current value and Peak the highest value seen while raised.
// Raising is logged once at Warn and clearing once at Info; the samples in
// between are not logged.
//
// # Unknown values
//
// When a measurement is unavailable (Observation.CPUKnown or MemoryKnown false,
// or the value is NaN), the sample carries no information: it never raises a
// warning and never clears one. A raised warning is kept as it is — its message
// and UpdatedAt are not refreshed, so updated_at shows how old the evidence is —
// because a failing reader is no proof that the overload is over. A pending
// timer is reset: "continuously for Duration" cannot be claimed across a gap in
// the evidence. The source that lost the measurement raises its own
// "unavailable" warning.
//
// # Configuration changes
//
// [Monitor.SetConfig] swaps the thresholds between two samples; the next sample
// is evaluated with the new ones and nothing is re-evaluated at the moment of
// the change:
//   - a raised warning stays until a sample is at or below the new clear, and
//     its message shows the new warn ratio and duration from that sample on;
//   - a pending timer keeps its start, so a shorter Duration can raise on the
//     next sample and a longer one postpones the raise; if the next sample is
//     below the new warn, the timer resets as usual.
//
// # Truncation
//
// TRUNCATE system.warnings removes the warnings from the registry, not the
// trackers' memory of the samples. A tracker notices on its next sample that
// its raised warning is gone, goes back to idle and logs that once; a resource
// still at or above warn then starts a new pending period and is raised again
// only after a full Duration. An operator who truncates is saying "I have seen
// these": the warning returns only if the condition is still there after the
// whole hold time.
package warnings
