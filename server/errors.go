package server

import (
	"overloadsql/mysqlerr"
	"overloadsql/server/wire"

	"github.com/dolthub/vitess/go/mysql"
)

// Names kept for the files the storage wiring (issue 24) deletes: sideindex.go and its test
// (error numbers and their translation for clients live in package mysqlerr) and
// transactions.go (the disconnect watch lives in package server/wire). This file goes with
// them.

const erDropIndexFK = mysqlerr.ERDropIndexFK

func clientError(err error) *mysql.SQLError { return mysqlerr.ForClient(err) }

var cancelWhenPeerCloses = wire.CancelWhenPeerCloses
