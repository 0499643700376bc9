// Package rowcodec is the stored form of a table row: its columns as (tag, kind, payload) triples
// in ascending tag order; a NULL column is absent. Tags are stable per column (the storage's
// catalog gives them), so a renamed or moved column is read from old rows unchanged, a dropped
// column's value is skipped and a column added without a rewrite reads as NULL. The kind is the
// Go type the engine handed the storage, and decoding gives back exactly that Go type: the
// engine's comparisons and hash joins depend on the Go types of values. Payloads are
// self-delimiting so that a reader decodes only the columns it projects. The encoding is
// canonical: equal rows give equal bytes, which keyless tables rely on to find a row by its
// value.
package rowcodec
