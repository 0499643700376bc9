// Command sqlfuzz runs the same seeded random SQL against overloadsql and against MariaDB and
// reports where their answers differ (package fuzz has the model; docs/fuzzing.md the use).
package main

import (
	_ "embed"
	"os"

	"overloadsql/cmd/sqlfuzz/fuzz"
)

// knownDifferences is the list of known differences, with the reason for each.
//
//go:embed known-differences.toml
var knownDifferences string

func main() {
	os.Exit(fuzz.Run(os.Args[1:], knownDifferences, os.Stdout, os.Stderr))
}
