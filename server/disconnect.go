package server

import "overloadsql/server/wire"

// A name kept for transactions.go, which the storage wiring (issue 24) deletes: the disconnect
// watch lives in package server/wire. This file goes with it.

var cancelWhenPeerCloses = wire.CancelWhenPeerCloses
