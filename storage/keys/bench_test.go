package keys

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	v := any(int32(123456))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = Append(buf[:0], types.Int32, v)
	}
}

func benchmarkString(b *testing.B, coll sql.CollationID) {
	typ := types.MustCreateString(sqltypes.VarChar, 100, coll)
	v := any("The Quick Brown Fox1") // 20 characters
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = Append(buf[:0], typ, v)
	}
}

func BenchmarkAppendString20_0900_ai_ci(b *testing.B) {
	benchmarkString(b, sql.Collation_utf8mb4_0900_ai_ci)
}

func BenchmarkAppendString20_general_ci(b *testing.B) {
	benchmarkString(b, sql.Collation_utf8mb4_general_ci)
}

func BenchmarkAppendString20_0900_bin(b *testing.B) {
	benchmarkString(b, sql.Collation_utf8mb4_0900_bin)
}

func BenchmarkAppendDecimal(b *testing.B) {
	typ := types.MustCreateColumnDecimalType(10, 2)
	v, _, _ := typ.Convert(ctx, "12345.67")
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = Append(buf[:0], typ, v)
	}
}
