package tables

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

func column(name string, typ sql.Type) *sql.Column {
	return &sql.Column{Name: name, Type: typ, Nullable: false}
}

func nullable(name string, typ sql.Type) *sql.Column {
	return &sql.Column{Name: name, Type: typ, Nullable: true}
}

var (
	text     = types.LongText
	double   = types.Float64
	uint64T  = types.Uint64
	int64T   = types.Int64
	boolean  = types.Uint8
	datetime = types.DatetimeMaxPrecision
)

func flag(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}
