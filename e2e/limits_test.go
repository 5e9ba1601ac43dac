package e2e

import (
	"strings"
	"testing"
)

// Limits on untrusted input that protocol.md leaves open (THREAT_MODEL.md T9).

// TestLimits_UnauthenticatedSocketCap: a page may hold at most 16 upgraded
// sockets that have not sent their handshake; the next upgrade is refused
// with 503.
func TestLimits_UnauthenticatedSocketCap(t *testing.T) {
	t.Parallel()
	const maxPending = 16 // written from THREAT_MODEL.md, not imported
	b := startBridge(t, bridgeOpts{token: newToken()})
	for i := range maxPending {
		c, _, err := dialWS(b.port, originHeader(testOrigin))
		if err != nil {
			t.Fatalf("silent socket %d of %d: %v", i+1, maxPending, err)
		}
		defer c.Close()
	}
	c, resp, err := dialWS(b.port, originHeader(testOrigin))
	if err == nil {
		c.Close()
		t.Fatalf("upgrade number %d while %d sockets sit unauthenticated: admitted, want 503", maxPending+1, maxPending)
	}
	if resp == nil || resp.StatusCode != 503 {
		t.Fatalf("upgrade number %d: got %v (%v), want HTTP 503", maxPending+1, resp, err)
	}
}

// TestLimits_ControlBodyCap: a control-plane body over the maxPending (24 MB) is
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
