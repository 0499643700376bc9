//go:build !cgo

package data

// cgoBuild says whether the binary is built with cgo: without it, Pebble's block cache and
// memtables are Go heap memory (OffHeap).
const cgoBuild = false
