package demo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// testBridge is the stitchslop-bridge the tests' demos start, built once
// from this module's source.
var testBridge string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "stitchslop-demo-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	testBridge = filepath.Join(dir, "stitchslop-bridge")
	out, err := exec.Command("go", "build", "-o", testBridge, "github.com/stitchslop/stitchslop-bridge/cmd/stitchslop-bridge").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the bridge: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}
