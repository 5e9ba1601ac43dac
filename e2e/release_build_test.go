package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// releaseBuild builds cmd/NAME as a release does: no build tags (so no
// stitchslop_testhooks), -trimpath. It returns the binary's path.
func releaseBuild(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/"+name)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	return bin
}

// TestSec_ReleaseBuildHasNoTestHooks: a build without the
// stitchslop_testhooks tag carries none of the black-box tests' seams. No
// symbol of this module names a test hook, no environment variable of the
// tests is named anywhere in it (so none can be read), and the SIGUSR1
// heap report is not there to print.
func TestSec_ReleaseBuildHasNoTestHooks(t *testing.T) {
	bin := releaseBuild(t, "stitchslop-bridge")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, seam := range []string{
		"STITCHSLOP_TEST_", // the variables of timings, ports and the demo's page port
		"heapKB",           // the SIGUSR1 report's field
	} {
		if bytes.Contains(data, []byte(seam)) {
			t.Errorf("the release binary holds %q: a test seam is compiled in", seam)
		}
	}
	nm, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, line := range strings.Split(string(nm), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		sym := f[len(f)-1]
		if strings.HasPrefix(sym, modulePath+"/") && strings.Contains(strings.ToLower(sym), "testhook") {
			t.Errorf("the release binary holds the test seam %s", sym)
		}
	}

}
