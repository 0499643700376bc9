//go:build cgo

package data

// cgoBuild says whether the binary is built with cgo: then Pebble's block cache and memtables
// are C memory, outside the Go heap (OffHeap).
const cgoBuild = true
