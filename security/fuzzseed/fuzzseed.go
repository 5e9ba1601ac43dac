// Package fuzzseed keeps fuzz targets honest: each target's committed seed
// corpus must exist and be in Go's corpus format, so a moved, deleted or
// mangled folder fails the tests instead of silently fuzzing from nothing.
// Tests alone import it; it lives under security/ so that the security
// packages' tests may use it too (security/ imports nothing of internal/).
package fuzzseed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Require fails t unless testdata/fuzz/<target> holds at least one seed,
// and every seed there is a Go fuzz corpus file.
func Require(t testing.TB, target string) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("seed corpus %s is missing or empty (err=%v); it must be committed", dir, err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(string(b), "go test fuzz v1\n") {
			t.Errorf("seed %s/%s is not a Go fuzz corpus file (err=%v)", dir, e.Name(), err)
		}
	}
}
