//go:build !cgo

package server

// cgoBuild says whether the binary is built with cgo: without it, Pebble's block cache and
// memtables are Go heap memory (storageOffHeapBytes).
const cgoBuild = false
