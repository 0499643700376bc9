package storage

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
)

func TestEngineQueries(t *testing.T) { enginetest.TestQueries(t, newHarness(t)) }
