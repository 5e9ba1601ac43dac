package e2e

import (
	"strings"
	"testing"
)

// Limits on untrusted input that protocol.md leaves open (THREAT_MODEL.md T9).

// TestLimits_ControlBodyCap: a control-plane body over limits.ControlBody (24 MB) is
// refused with 413 and never reaches the tab.
func TestLimits_ControlBodyCap(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	huge := map[string]any{"command": "scene.describe", "args": map[string]any{"blob": strings.Repeat("a", 25<<20)}}
	status, data := ctlDo(t, b.port, "POST", "/call", huge, keyHeader(b.session().Key), "")
	if status != 413 {
		t.Fatalf("POST /call with a 25 MB body: got HTTP %d %s, want 413", status, data)
	}
}
