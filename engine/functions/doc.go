// Package functions is the engine's function provider that bounds the functions building large
// values: a result over max_allowed_packet is NULL with warning 1301, as MySQL's, instead of a
// value the engine would allocate at any size.
//
// # The model
//
// The engine looks a function's name up in its database provider first, then among its
// built-ins. [BoundedProvider] answers:
//
//   - the names given to [Override]: the server's own functions (its user-level locks,
//     package server/userlock) and the engine's functions that package engine replaces
//     (engine.CheckedFunctions: the geometry functions checking their input, JSON_SEARCH
//     stopping at KILL);
//   - the bounded functions (boundedFunctions: REPEAT, LPAD, CONCAT, HEX, the JSON builders,
//     ...): the engine's function, called only once the bound of its result, computed from its
//     evaluated arguments, fits in max_allowed_packet;
//   - the bounded aggregates (boundedAggregates: JSON_ARRAYAGG, JSON_OBJECTAGG): the engine's
//     aggregate, whose buffer sums the bound of each value it is given and keeps no more once
//     the sum is over max_allowed_packet;
//   - nothing for every other name, which the engine's built-ins then answer.
//
// A bound is an upper bound of the result's bytes, never below it, and saturates instead of
// overflowing; it is checked before the value is built. GROUP_CONCAT is not here: it stops at
// group_concat_max_len, which the server bounds by max_allowed_packet.
//
// # What the server gives
//
// The package imports neither package engine nor the server. [NewBoundedProvider] takes what
// the bounded functions read of the server: max_allowed_packet, read at each call, and the
// memory guard's request to stop a statement (the function the server also gives to package
// engine as Hooks.Stopped), which a bounded function checks beside the statement's
// cancellation before it builds a value and after.
package functions
