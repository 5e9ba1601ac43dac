// Package fuzzseed keeps fuzz targets honest: each target's committed seed
// corpus must exist, so a moved or deleted folder fails the build instead
// of silently fuzzing from nothing.
package fuzzseed

import (
	"os"
	"path/filepath"
	"testing"
)

// Require fails t unless testdata/fuzz/<target> holds at least one seed.
func Require(t testing.TB, target string) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("seed corpus %s is missing or empty (err=%v); it must be committed", dir, err)
	}
}
