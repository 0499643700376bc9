package warnings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// roundedPercent formats a ratio as a whole percent: 0.954 → "95".
func roundedPercent(ratio float64) string {
	return strconv.FormatFloat(math.Round(ratio*100), 'f', 0, 64)
}

// exactPercent formats a configured ratio as a percent in its shortest exact
// form: 0.9 → "90", 0.925 → "92.5", 1.5 → "150". It shifts the decimal point
// of the ratio's shortest decimal text instead of multiplying, which would
// print 0.29 as 28.999999999999996.
func exactPercent(ratio float64) string {
	text := strconv.FormatFloat(ratio, 'f', -1, 64)
	sign := ""
	if rest, ok := strings.CutPrefix(text, "-"); ok {
		sign, text = "-", rest
	}
	whole, frac, _ := strings.Cut(text, ".")
	frac += "00"
	whole = strings.TrimLeft(whole+frac[:2], "0")
	if whole == "" {
		whole = "0"
	}
	if frac = strings.TrimRight(frac[2:], "0"); frac != "" {
		return sign + whole + "." + frac
	}
	return sign + whole
}

// seconds formats a duration in seconds, shortest form: 600s → "600", 500ms → "0.5".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

var decimalUnits = [...]string{"B", "kB", "MB", "GB", "TB"}

// decimalSize formats a byte count in decimal units with two decimals:
// 9_123_456_789 → "9.12 GB". A value that would round to 1000.00 of one unit
// is printed in the next one (999_999 → "1.00 MB").
func decimalSize(bytes uint64) string {
	v, unit := float64(bytes), 0
	for unit < len(decimalUnits)-1 && math.Round(v*100) >= 1000*100 {
		v /= 1000
		unit++
	}
	return fmt.Sprintf("%.2f %s", v, decimalUnits[unit])
}
