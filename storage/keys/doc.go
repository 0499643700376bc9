// Package keys is the order-preserving encoding of SQL values into index keys.
//
// The storage keeps every index, the primary key included, as byte strings compared with
// bytes.Compare. This package turns column values into such bytes so that the byte order
// is exactly the engine's order: for values a and b of column type t,
//
//	sign(bytes.Compare(Append(nil, t, a), Append(nil, t, b))) == sign(t.Compare(ctx, a, b))
//
// with NULL before every value (t.Compare itself ranks NULL last; ORDER BY and the server's
// merge joins want it first). Values the engine compares equal get identical bytes, so a
// unique index is unique under the column's collation ('a' and 'A' collide under a _ci
// collation) and an equality lookup is one seek. It is the engine's comparison that is
// reproduced, also where the engine differs from MySQL (see "Deviations" below).
//
// # Framing
//
// A column value is one frame byte and a payload: NULL is 00, any other value is 01 and
// the payload. Every payload is self-delimiting (fixed width, length-prefixed, or
// terminated), so the concatenation of several columns' encodings compares column by
// column, and a key can be cut into its parts with Skip.
//
// # Payloads
//
//	SQL type                          Go value held    payload
//	TINYINT…BIGINT (BOOLEAN),         int8, int16,     8 bytes big-endian of uint64(v) ^ 1<<63, for
//	  MEDIUMINT = int32               int32, int64     every width, so widening keeps the bytes
//	… UNSIGNED                        uint8…uint64     8 bytes big-endian
//	YEAR                              int16            as a signed integer
//	TIME                              types.Timespan   as a signed integer (µs)
//	ENUM                              uint16 (index)   as an unsigned integer
//	SET                               uint64 (bits)    as an unsigned integer
//	BIT(n)                            uint64           as an unsigned integer
//	FLOAT, DOUBLE                     float32, float64 8 bytes of the float64 bits, −0 as +0; a
//	                                                   negative value has all bits flipped, a
//	                                                   positive one the sign bit; NaN, ±Inf refused
//	DECIMAL(p,s)                      *apd.Decimal     u = value × 10^s: 01 if u = 0; 02 len mag if
//	                                                   u > 0; 00 ^len ^mag if u < 0, mag = |u| in
//	                                                   minimal big-endian bytes (≤ 27 at p = 65)
//	DATE, DATETIME, TIMESTAMP         time.Time (UTC)  signed µs since 1970 (DATE cut to the day)
//	BINARY, VARBINARY, BLOB           []byte           the bytes, 00 escaped as 00 FF, then 00 01
//	CHAR, VARCHAR, TEXT in a          string           the UTF-8 bytes, escaped and terminated as
//	  code-point collation                             binary strings
//	CHAR, VARCHAR, TEXT in any        string           the weight string: per character its
//	  other collation                                  weight under the collation's Sorter, in
//	                                                   a class byte 01…05 and 1–4 bytes; then 00
//	JSON, GEOMETRY, VECTOR            –                refused (Check)
//
// The code-point collations are utf8mb4_0900_bin (the default), utf8mb4_bin, utf16_bin and
// utf32_bin: their weights are strictly increasing in the code point, so the UTF-8 bytes
// already order as the weights, and the key can be decoded. Every other collation
// (utf8mb4_0900_ai_ci, utf8mb4_general_ci, latin1_swedish_ci, …) is keyed by weights
// exactly as the engine's StringType.Compare reads them: each rune (encoder NextRune), its
// int32 weight from collation.Sorter(), compared weight by weight, a shorter string first.
// Such keys are lossy: Decode refuses them and the value is read from the row.
//
// # Deviations of the engine from MySQL that the keys keep
//
//   - No PAD SPACE. MySQL compares PAD SPACE collations (utf8mb4_bin, utf8mb4_general_ci,
//     latin1_*, every collation but the _0900_ ones) as if the shorter string were padded
//     with spaces, so 'a' = 'a '. The engine ignores the pad attribute: 'a' < 'a '.
//   - One weight per character. The engine's weight tables give each rune one weight, so
//     there are no expansions or contractions: under utf8mb4_0900_ai_ci MySQL has
//     'ß' = 'ss', the engine has 'ß' > 's' and 'ß' ≠ 'ss'; and a combining mark is its own
//     character, not part of the letter before it.
//   - Any UTF-8 string is accepted in any character set, so a latin1 column can hold '日本';
//     characters outside the collation's table share its "unknown" weight and compare equal.
//   - DECIMAL −0 and FLOAT/DOUBLE −0 equal +0 (as in MySQL); the keys have one form for both.
//
// # API
//
//	Append(dst, t, v) ([]byte, error)             encode one column value (nil = NULL)
//	AppendPrefix(dst, t, v, n) ([]byte, error)    the first n characters (bytes for binary
//	                                              types) of a string, for c(n) key parts
//	Decode(src, t) (v, rest, error)               the value at the start of src, as the Go
//	                                              type the engine holds (table above)
//	Decodable(t) bool                             Decode(Append(v)) == v exactly, same Go type
//	Skip(src, t) (rest, error)                    step over one value (weight strings too)
//	Check(col, t, prefix) error                   can this column be a key part? MySQL's error
//	PrefixEnd(prefix) []byte                      exclusive upper bound of a prefix scan
//	CollationFingerprint(id) uint64               hash of a collation's weights, for drift
//	Version                                       the encoding version, stored with the data
//
// Values are as the engine holds them after t.Convert for the column type; Append accepts
// any Go integer for integer, ENUM, SET and BIT columns, a string or []byte for string
// columns, and unwraps sql.AnyWrapper. A DECIMAL value with more than s fraction digits is
// rounded to s as the engine's Compare does; a DATETIME with a fraction of a microsecond is
// refused. Range bounds must be converted to the column type first (the engine does so);
// a bound converted with rounding needs the usual inclusive/exclusive adjustment.
//
// Store CollationFingerprint for each collation an index uses and Version with the data;
// when either changes, the affected indexes must be rebuilt, because their order is no
// longer the engine's.
package keys
