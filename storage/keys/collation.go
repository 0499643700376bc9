package keys

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sync"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
)

// codePointCollations are the collations whose rune weights are strictly increasing in the
// code point over every Unicode scalar value, so that the UTF-8 bytes of a string order as
// the engine's comparison does and distinct strings never compare equal. Their strings are
// encoded as bytes and can be decoded. Membership is part of the on-disk format: a
// collation leaves this list only with a new Version. TestCodePointCollationsAreMonotone
// checks every entry against the engine's weight tables.
var codePointCollations = map[sql.CollationID]bool{
	sql.Collation_utf8mb4_0900_bin: true,
	sql.Collation_utf8mb4_bin:      true,
	sql.Collation_utf16_bin:        true,
	sql.Collation_utf32_bin:        true,
}

// collation is the per-collation state the encoder needs.
type collation struct {
	id sql.CollationID
	// binaryCharset: the engine reads a string of this collation byte by byte
	// (encodings.Binary's NextRune); every other character set is read as UTF-8.
	binaryCharset bool
	// raw: strings are encoded by their code points (see codePointCollations).
	raw    bool
	sorter sql.CollationSorter
	// low caches sorter(r) for r < 256, the common runes.
	low [256]int32

	fpOnce sync.Once
	fp     uint64
}

func (c *collation) weight(r rune) int32 {
	if uint32(r) < uint32(len(c.low)) {
		return c.low[r]
	}
	return c.sorter(r)
}

// collations caches collation state by id; the engine has a few hundred ids.
var collations sync.Map // sql.CollationID → *collation

func collationOf(id sql.CollationID) (*collation, error) {
	if c, ok := collations.Load(id); ok {
		return c.(*collation), nil
	}
	sorter := sorterOf(id)
	if sorter == nil {
		return nil, errNotKey(nil, fmt.Sprintf("indexes on strings in the collation %d", id))
	}
	c := &collation{
		id:            id,
		binaryCharset: id.CharacterSet() == sql.CharacterSet_binary,
		raw:           codePointCollations[id],
		sorter:        sorter,
	}
	for r := range c.low {
		c.low[r] = sorter(rune(r))
	}
	actual, _ := collations.LoadOrStore(id, c)
	return actual.(*collation), nil
}

// sorterOf is id.Sorter(), or nil for an id the engine does not know (Sorter panics on
// one beyond its table; an id read from disk may be one).
func sorterOf(id sql.CollationID) (s sql.CollationSorter) {
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	return id.Sorter()
}

// CollationFingerprint is a hash of everything this package's key order depends on for
// strings of the collation c: the format Version, the way the engine reads the character
// set, whether the collation is a code-point collation, and the weight of every rune
// 0…U+10FFFF under c's Sorter. Store it beside the data for each collation in use; when it
// differs at startup, the engine's weight table changed, and indexes on strings of c must
// be rebuilt. The first call for a collation costs up to about 100 ms (one Sorter call per
// rune); later calls are cached. A collation the engine cannot sort has fingerprint 0.
func CollationFingerprint(c sql.CollationID) uint64 {
	coll, err := collationOf(c)
	if err != nil {
		return 0
	}
	coll.fpOnce.Do(func() {
		coll.fp = fingerprint(coll.sorter, coll.binaryCharset, coll.raw)
	})
	return coll.fp
}

// fingerprint hashes a sorter over all runes with the encoding choices made for it.
func fingerprint(sorter sql.CollationSorter, binaryCharset, raw bool) uint64 {
	h := fnv.New64a()
	var head [4]byte
	head[0] = Version
	if binaryCharset {
		head[1] = 1
	}
	if raw {
		head[2] = 1
	}
	h.Write(head[:])
	buf := make([]byte, 0, 4*4096)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		buf = binary.BigEndian.AppendUint32(buf, uint32(sorter(r)))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return h.Sum64()
}
