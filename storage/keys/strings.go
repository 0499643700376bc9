package keys

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// Escaped byte strings: 00 → 00 FF, then the terminator 00 01. The result is prefix-free,
// and bytes.Compare orders it as the unescaped strings, a proper prefix first.
const (
	escByte  = 0x00
	escZero  = 0xFF
	escFinal = 0x01
)

func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, escByte, escZero)
		s = s[i+1:]
	}
	return append(dst, escByte, escFinal)
}

// appendCodePoints encodes a string of a code-point collation: its UTF-8 bytes, escaped.
// The engine reads a byte that is not valid UTF-8 as U+FFFD, so such a byte is keyed as
// U+FFFD; values the engine converted for a column are always valid UTF-8.
func appendCodePoints(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return appendEscaped(dst, s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		b.WriteRune(r)
		s = s[size:]
	}
	return appendEscaped(dst, b.String())
}

func unescape(p []byte) ([]byte, []byte, error) {
	out := []byte{}
	for {
		i := bytes.IndexByte(p, escByte)
		if i < 0 || i+1 >= len(p) {
			return nil, nil, errCorrupt("unterminated string")
		}
		out = append(out, p[:i]...)
		switch p[i+1] {
		case escZero:
			out = append(out, 0)
			p = p[i+2:]
		case escFinal:
			return out, p[i+2:], nil
		default:
			return nil, nil, errCorrupt("escape %#x in a string", p[i+1])
		}
	}
}

func skipEscaped(p []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(p, escByte)
		if i < 0 || i+1 >= len(p) {
			return nil, errCorrupt("unterminated string")
		}
		switch p[i+1] {
		case escZero:
			p = p[i+2:]
		case escFinal:
			return p[i+2:], nil
		default:
			return nil, errCorrupt("escape %#x in a string", p[i+1])
		}
	}
}

// Weight strings: one element per character, then the terminator 00. An element is a class
// byte and the weight in that class:
//
//	01 + 4 bytes   negative weight, two's complement
//	02 + 1 byte    weight 0 … 2^8−1
//	03 + 2 bytes   weight 2^8 … 2^16−1
//	04 + 3 bytes   weight 2^16 … 2^24−1
//	05 + 4 bytes   weight 2^24 … 2^31−1
//
// All big-endian. Classes order as the weights they hold and every element is prefix-free,
// so bytes.Compare orders weight strings element by element, a proper prefix first: the
// engine's StringType.Compare.
const (
	wEnd = 0x00
	wNeg = 0x01
	w1   = 0x02
	w2   = 0x03
	w3   = 0x04
	w4   = 0x05
)

func appendWeights(dst []byte, c *collation, s string) []byte {
	for len(s) > 0 {
		var r rune
		if s[0] < utf8.RuneSelf {
			r = rune(s[0])
			s = s[1:]
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(s)
			s = s[size:]
		}
		dst = appendWeight(dst, c.weight(r))
	}
	return append(dst, wEnd)
}

func appendWeight(dst []byte, w int32) []byte {
	u := uint32(w)
	switch {
	case w < 0:
		return binary.BigEndian.AppendUint32(append(dst, wNeg), u)
	case u < 1<<8:
		return append(dst, w1, byte(u))
	case u < 1<<16:
		return append(dst, w2, byte(u>>8), byte(u))
	case u < 1<<24:
		return append(dst, w3, byte(u>>16), byte(u>>8), byte(u))
	}
	return binary.BigEndian.AppendUint32(append(dst, w4), u)
}

func skipWeights(p []byte) ([]byte, error) {
	for len(p) > 0 {
		var n int
		switch p[0] {
		case wEnd:
			return p[1:], nil
		case wNeg, w4:
			n = 4
		case w1:
			n = 1
		case w2:
			n = 2
		case w3:
			n = 3
		default:
			return nil, errCorrupt("weight class %#x", p[0])
		}
		if len(p) < 1+n {
			break
		}
		p = p[1+n:]
	}
	return nil, errCorrupt("unterminated weight string")
}
