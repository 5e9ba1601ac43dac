package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBridgeLinksNoneOfTheTools holds the split of the module's two
// programs: nothing of stitchslop (the demo, setup, doctor, the voice
// listener, completions and manual pages, all in internal/toolbox and what
// it alone imports) is linked into the bridge, nor any package made for
// tests.
func TestBridgeLinksNoneOfTheTools(t *testing.T) {
	const module = "github.com/stitchslop/stitchslop-bridge/"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	bridge := deps("./")
	tools := deps("../stitchslop")
	if !slices.Contains(tools, module+"internal/toolbox") {
		t.Fatalf("stitchslop does not link internal/toolbox: the check below would hold for nothing")
	}
	for _, p := range []string{"internal/toolbox", "internal/demo", "internal/setup", "internal/doctor", "cmd/stitchslop"} {
		if slices.Contains(bridge, module+p) {
			t.Errorf("stitchslop-bridge links %s%s", module, p)
		}
	}
}
