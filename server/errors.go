package server

import (
	"overloadsql/mysqlerr"

	"github.com/dolthub/vitess/go/mysql"
)

// Error numbers and their translation for clients live in package mysqlerr. These two names
// remain for sideindex.go and sideindex_test.go, which the storage wiring (issue 24) deletes;
// this file goes with them.

const erDropIndexFK = mysqlerr.ERDropIndexFK

func clientError(err error) *mysql.SQLError { return mysqlerr.ForClient(err) }
