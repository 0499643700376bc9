package kv

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

const testReserve = 1 << 20

// TestReserveFileIsWholeOrAbsent: a half-made reserve from a crash (its temporary name) is
// dropped and made again whole, and a reserve the configuration no longer keeps is removed.
func TestReserveFileIsWholeOrAbsent(t *testing.T) {
	fs := vfs.NewMem()
	open := func(reserve int64) *Store {
		s, err := Open("data", Options{FS: fs, DiskReserveBytes: reserve})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	exists := func(name string) bool {
		_, err := fs.Stat(fs.PathJoin("data", name))
		return err == nil
	}
	s := open(testReserve)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fs.Remove(fs.PathJoin("data", reserveFile)); err != nil {
		t.Fatal(err)
	}
	f, err := fs.Create(fs.PathJoin("data", reserveFile+".tmp"), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close() // a crash before the space was allocated
	s = open(testReserve)
	if exists(reserveFile+".tmp") || !exists(reserveFile) {
		t.Fatalf("after a half-made reserve: tmp %v, reserve %v; want the reserve only", exists(reserveFile+".tmp"), exists(reserveFile))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(-1)
	defer s.Close()
	if exists(reserveFile) {
		t.Fatal("a reserve the configuration does not keep was left on disk")
	}
}
