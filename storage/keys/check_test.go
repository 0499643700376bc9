package keys

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

func TestCheck(t *testing.T) {
	vector, err := types.CreateVectorType(3)
	if err != nil {
		t.Fatal(err)
	}
	utf8mb4 := func(n int64) sql.Type {
		return types.MustCreateString(sqltypes.VarChar, n, sql.Collation_utf8mb4_0900_ai_ci)
	}
	latin1 := types.MustCreateString(sqltypes.VarChar, 3000, sql.Collation_latin1_swedish_ci)
	for _, c := range []struct {
		name   string
		typ    sql.Type
		prefix int64
		num    int // 0: a key part
		state  string
	}{
		{"int", types.Int32, 0, 0, ""},
		{"bigint unsigned", types.Uint64, 0, 0, ""},
		{"double", types.Float64, 0, 0, ""},
		{"decimal", types.MustCreateColumnDecimalType(65, 30), 0, 0, ""},
		{"datetime", types.DatetimeMaxPrecision, 0, 0, ""},
		{"time", types.Time, 0, 0, ""},
		{"year", types.Year, 0, 0, ""},
		{"enum", types.MustCreateEnumType([]string{"a"}, sql.Collation_Default), 0, 0, ""},
		{"set", types.MustCreateSetType([]string{"a"}, sql.Collation_Default), 0, 0, ""},
		{"bit", types.MustCreateBitType(8), 0, 0, ""},
		{"varchar", utf8mb4(10), 0, 0, ""},
		{"varchar prefix", utf8mb4(10), 5, 0, ""},
		{"varchar whole prefix", utf8mb4(10), 10, 0, ""},
		{"varbinary prefix", types.MustCreateBinary(sqltypes.VarBinary, 10), 10, 0, ""},
		{"text prefix", types.Text, 100, 0, ""},
		{"blob prefix", types.Blob, 3072, 0, ""},
		{"latin1 prefix 3000", latin1, 3000, 0, ""},
		{"text", types.Text, 0, 1170, "42000"},
		{"longtext", types.LongText, 0, 1170, "42000"},
		{"blob", types.Blob, 0, 1170, "42000"},
		{"int prefix", types.Int32, 4, 1089, "HY000"},
		{"varchar prefix too long", utf8mb4(10), 11, 1089, "HY000"},
		{"varbinary prefix too long", types.MustCreateBinary(sqltypes.VarBinary, 10), 11, 1089, "HY000"},
		{"utf8mb4 prefix over 3072 bytes", utf8mb4(2000), 769, 1071, "42000"},
		{"blob prefix over 3072 bytes", types.Blob, 3073, 1071, "42000"},
		{"json", types.JSON, 0, 3152, "42000"},
		{"geometry", types.GeometryType{}, 0, 1235, "42000"},
		{"point", types.PointType{}, 0, 1235, "42000"},
		{"vector", vector, 0, 1235, "42000"},
	} {
		err := Check("c", c.typ, c.prefix)
		if c.num == 0 {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		wantSQLError(t, c.name, err, c.num, c.state)
	}
	// A type that passes Check encodes; one that fails does not.
	if _, err := Append(nil, types.JSON, types.JSONDocument{Val: 1}); err == nil {
		t.Error("a JSON value was keyed")
	}
}

func TestCollationFingerprint(t *testing.T) {
	ids := []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_general_ci,
		sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_bin, sql.Collation_binary}
	seen := map[uint64]sql.CollationID{}
	for _, id := range ids {
		fp := CollationFingerprint(id)
		if fp == 0 {
			t.Errorf("%s: fingerprint 0", id.Name())
		}
		if other, dup := seen[fp]; dup {
			t.Errorf("%s and %s share fingerprint %x", id.Name(), other.Name(), fp)
		}
		seen[fp] = id
		if again := CollationFingerprint(id); again != fp {
			t.Errorf("%s: fingerprint %x, then %x", id.Name(), fp, again)
		}
	}
	// The cached value is the hash of the engine's table, and one changed weight changes it.
	sorter := sql.Collation_utf8mb4_general_ci.Sorter()
	if got := fingerprint(sorter, false, false); got != CollationFingerprint(sql.Collation_utf8mb4_general_ci) {
		t.Errorf("cached fingerprint %x differs from a fresh one %x", CollationFingerprint(sql.Collation_utf8mb4_general_ci), got)
	}
	drifted := func(r rune) int32 {
		if r == 0x1F600 {
			return sorter(r) + 1
		}
		return sorter(r)
	}
	if fingerprint(drifted, false, false) == fingerprint(sorter, false, false) {
		t.Error("a changed weight for U+1F600 leaves the fingerprint unchanged")
	}
	if fingerprint(sorter, false, true) == fingerprint(sorter, false, false) {
		t.Error("the encoding choice is not in the fingerprint")
	}
	if CollationFingerprint(sql.CollationID(60000)) != 0 {
		t.Error("an unknown collation has a fingerprint")
	}
}

func TestCorruptKeys(t *testing.T) {
	vc := types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_utf8mb4_0900_bin)
	ci := types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_utf8mb4_0900_ai_ci)
	d := types.MustCreateColumnDecimalType(10, 2)
	for _, c := range []struct {
		typ       sql.Type
		key       []byte
		skipFails bool // also malformed in its framing, not only in its value
	}{
		{types.Int32, nil, true},
		{types.Int32, []byte{0x02, 0, 0, 0, 0, 0, 0, 0, 0}, true},
		{types.Int8, []byte{0x01, 0x80, 0, 0, 0, 0, 0, 0x01, 0}, false}, // 256 in a TINYINT
		{types.Uint8, []byte{0x01, 0, 0, 0, 0, 0, 0, 0x01, 0}, false},
		{vc, []byte{0x01, 'a', 0x00, 0x05}, true},
		{vc, []byte{0x01, 'a', 0x00}, true},
		{ci, []byte{0x01, 0x09, 0x00}, true},
		{ci, []byte{0x01, 0x03, 0x00}, true},
		{d, []byte{0x01, 0x07}, true},
		{d, []byte{0x01, 0x02, 0x00}, true},
		{d, []byte{0x01, 0x02, 0x01, 0x00}, false}, // leading zero byte
		{d, []byte{0x01, 0x02, 0x03, 0x01}, true},
	} {
		if Decodable(c.typ) {
			v, _, err := Decode(c.key, c.typ)
			if err == nil {
				t.Errorf("%s: corrupt key %x decodes as %#v", c.typ, c.key, v)
			} else {
				wantSQLError(t, c.typ.String(), err, 1712, "HY000")
			}
		}
		if _, err := Skip(c.key, c.typ); c.skipFails {
			wantSQLError(t, c.typ.String()+" Skip", err, 1712, "HY000")
		}
	}
	_, _, err := Decode(mustAppend(t, ci, "a"), ci)
	wantSQLError(t, "decoding a weight string", err, 1105, "HY000")
}
