package keys

import (
	"math/big"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
)

// DECIMAL(p,s) keys: the value's unscaled integer u = value × 10^s, as
//
//	00 ^len ^magnitude   negative (length and magnitude complemented)
//	01                   zero (either sign)
//	02  len  magnitude   positive
//
// where magnitude is |u| in minimal big-endian bytes (no leading zero byte) and len its
// length. A longer magnitude is a larger one, so the bytes order as the values. The key does
// not depend on p. A value with more than s fraction digits is first rounded to s digits
// with sql.DecimalRound, as the engine's DecimalType.Compare does for column types.
const (
	decNeg  = 0x00
	decZero = 0x01
	decPos  = 0x02

	// maxDecimalBytes bounds the magnitude (the length is one byte); DECIMAL(65,30) needs 27.
	maxDecimalBytes = 255
	// maxDecimalShift bounds the power of ten a coefficient is multiplied by, so a huge
	// exponent fails instead of allocating.
	maxDecimalShift = 600
)

var pow10 = func() [20]uint64 {
	var p [20]uint64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

func appendDecimal(dst []byte, d *apd.Decimal, scale int32) ([]byte, error) {
	if d.Form != apd.Finite {
		return dst, errOutOfRange("DECIMAL %s", d.String())
	}
	if d.Exponent < -scale {
		r, err := sql.DecimalRound(d, scale)
		if err != nil {
			return dst, errOutOfRange("DECIMAL %s at scale %d: %v", d.String(), scale, err)
		}
		d = r
	}
	if d.Coeff.Sign() == 0 {
		return append(dst, decZero), nil
	}
	shift := int64(d.Exponent) + int64(scale) // ≥ 0
	if shift+int64(d.NumDigits()) > maxDecimalShift {
		return dst, errOutOfRange("DECIMAL %s", d.String())
	}
	var mag []byte
	var small [8]byte
	if d.Coeff.IsUint64() && shift < int64(len(pow10)) {
		hi, lo := bits.Mul64(d.Coeff.Uint64(), pow10[shift])
		if hi == 0 {
			n := (bits.Len64(lo) + 7) / 8
			for i := 0; i < n; i++ {
				small[i] = byte(lo >> (8 * (n - 1 - i)))
			}
			mag = small[:n]
		}
	}
	if mag == nil {
		u := new(big.Int).Set(d.Coeff.MathBigInt())
		if shift > 0 {
			u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(shift), nil))
		}
		mag = u.Bytes()
	}
	if len(mag) > maxDecimalBytes {
		return dst, errOutOfRange("DECIMAL %s", d.String())
	}
	if !d.Negative {
		dst = append(dst, decPos, byte(len(mag)))
		return append(dst, mag...), nil
	}
	dst = append(dst, decNeg, ^byte(len(mag)))
	for _, b := range mag {
		dst = append(dst, ^b)
	}
	return dst, nil
}

// decodeDecimal returns the value at exponent −scale, the form the engine's Convert gives a
// DECIMAL(p,s) column value; zero is positive.
func decodeDecimal(p []byte, scale int32) (*apd.Decimal, []byte, error) {
	if len(p) == 0 {
		return nil, nil, errCorrupt("short DECIMAL")
	}
	switch p[0] {
	case decZero:
		return apd.New(0, -scale), p[1:], nil
	case decPos, decNeg:
	default:
		return nil, nil, errCorrupt("DECIMAL sign byte %#x", p[0])
	}
	neg := p[0] == decNeg
	if len(p) < 2 {
		return nil, nil, errCorrupt("short DECIMAL")
	}
	n := int(p[1])
	if neg {
		n = int(^p[1])
	}
	if n == 0 || len(p) < 2+n {
		return nil, nil, errCorrupt("DECIMAL magnitude of %d bytes", n)
	}
	mag := make([]byte, n)
	copy(mag, p[2:2+n])
	if neg {
		for i := range mag {
			mag[i] = ^mag[i]
		}
	}
	if mag[0] == 0 {
		return nil, nil, errCorrupt("DECIMAL magnitude with a leading zero")
	}
	d := &apd.Decimal{Negative: neg, Exponent: -scale}
	d.Coeff.SetBytes(mag)
	return d, p[2+n:], nil
}

func skipDecimal(p []byte) ([]byte, error) {
	if len(p) == 0 {
		return nil, errCorrupt("short DECIMAL")
	}
	switch p[0] {
	case decZero:
		return p[1:], nil
	case decPos, decNeg:
	default:
		return nil, errCorrupt("DECIMAL sign byte %#x", p[0])
	}
	if len(p) < 2 {
		return nil, errCorrupt("short DECIMAL")
	}
	n := int(p[1])
	if p[0] == decNeg {
		n = int(^p[1])
	}
	if n == 0 || len(p) < 2+n {
		return nil, errCorrupt("DECIMAL magnitude of %d bytes", n)
	}
	return p[2+n:], nil
}
