// Package mysqlerr is every MySQL error number and SQLSTATE overloadsql sends, in one place.
//
// Clients and ORMs branch on an error's number and SQLSTATE, not on its text, so each error
// that reaches a client carries MySQL 8's number and the SQLSTATE MySQL gives that number.
// The model has three parts:
//
//   - Numbers. Vitess's mysql package (github.com/dolthub/vitess/go/mysql) names most of
//     MySQL's numbers (mysql.ERNoSuchTable, mysql.ERDupEntry, ...); code uses those. The
//     numbers it has no constant for are declared in numbers.go, in the same style: MySQL's
//     ones (ERTableAccessDenied, ...) and overloadsql's own, borrowed from ClickHouse
//     (ERServerOverloaded 745, ERTooManySimultaneousQueries 202, ERMemoryLimitExceeded 241).
//   - SQLSTATEs. states.go lists every number the server sends with its SQLSTATE. New makes
//     an error from a number and a message and takes the SQLSTATE from that list, so a call
//     site never spells a SQLSTATE; State answers for the protocol layer, which writes ERR
//     packets itself.
//   - The engine's errors. go-mysql-server answers many errors as 1105 (HY000) with its own
//     wording, and gives the numbers it knows SQLSTATE HY000. ForClient, applied to every
//     error on its way to a client, gives known engine wordings MySQL's number and message
//     (engine.go) and fills in the SQLSTATE of a number sent with HY000.
//
// To add an error: use vitess's constant for its number or declare it in numbers.go, and add
// the number to states.go with MySQL 8's SQLSTATE (HY000 included, so the list stays
// complete). To give an engine message MySQL's number, add its pattern to engineMessages.
//
// The package imports only vitess and the engine's sql package; any package of overloadsql
// may import it.
package mysqlerr
