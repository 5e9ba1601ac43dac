package e2e

// Sharing one tab between agent sessions (protocol.md §7.13): a
// lazy bridge asked to reach a tab follows a live bridge serving the same
// site instead of taking a second port, and takes the port over when that
// bridge goes.

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// sharedPair starts two lazy MCP bridges on one config dir and port list,
// with a stored pairing for testOrigin, and attaches a tab to the first.
// It returns the leader, the follower, the tab and its secret.
func sharedPair(t *testing.T) (leader, follower *bridge, tab *page, secret string) {
	t.Helper()
	dir := t.TempDir() + "/cfg"
	secret = newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	p1, p2 := freePort(t), freePort(t)
	ports := []string{"--lazy", "--port", strconv.Itoa(p1) + "," + strconv.Itoa(p2)}
	start := func() *bridge {
		b := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true, args: ports})
		b.rpc.initialize()
		return b
	}
	leader = start()
	if r := leader.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.1}); r.IsError {
		t.Fatalf("leader wait: %q", r.text())
	}
	leader.port = p1
	leader.awaitListening()
	tab, _ = connectPage(t, leader, map[string]any{"secret": secret})

	follower = start()
	follower.port = p1
	from := follower.rpc.msgs.len()
	r := follower.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5})
	if r.IsError || !strings.Contains(r.text(), "Already connected") || !strings.Contains(r.text(), "3 shapes") {
		t.Fatalf("follower wait_for_connection: %q, want the leader's tab, already attached, described", r.text())
	}
	follower.rpc.awaitListChanged(from)
	if follower.listenings() != 0 || !closedPort(p2) {
		t.Fatalf("the follower took a port of its own; stderr:\n%s", follower.stderr)
	}
	return leader, follower, tab, secret
}

// Two MCP sessions share one tab without a second port: the follower lists
// the tab's tools, its calls reach the tab through the leader, a 2 MB image
// comes back whole, and connection_status says follower.
func TestRef_TwoSessionsShareOneTab(t *testing.T) {
	t.Parallel()
	_, follower, tab, _ := sharedPair(t)
	if got := sortedNames(follower.rpc.toolNames()); !slices.Equal(got, withBridgeTools("render.png", "scene.describe")) {
		t.Errorf("follower tools/list: %v, want the tab's tools", got)
	}
	img := make([]byte, 2<<20)
	for i := range img {
		img[i] = byte(i * 7)
	}
	copy(img, "\x89PNG\r\n\x1a\n") // a PNG's signature: image blocks carry only what they claim
	tab.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "render.png" {
			return map[string]any{"ok": true, "dataUrl": "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)}
		}
		return defaultHandler(cmd, args)
	})
	from := tab.frames.len()
	r := follower.rpc.toolCall("render.png", map[string]any{"size": 2})
	if f, _ := tab.command(from); f.str("command") != "render.png" {
		t.Errorf("the tab got %s, want render.png from the follower", f.raw)
	}
	var got []byte
	for _, c := range r.Content {
		if c.Type == "image" {
			got, _ = base64.StdEncoding.DecodeString(c.Data)
		}
	}
	if !slices.Equal(got, img) {
		t.Errorf("the 2 MB image through the follower: %d bytes, want the %d sent, whole", len(got), len(img))
	}
	cs := follower.rpc.toolCall("connection_status", map[string]any{}).text()
	if !strings.Contains(cs, `"mode":"follower"`) || !strings.Contains(cs, `"port":`+strconv.Itoa(follower.port)) || !strings.Contains(cs, `"connected":true`) {
		t.Errorf("follower connection_status: %s, want mode follower, the leader's port, connected", cs)
	}
}

// SIGKILL of the leader hands its port to the follower; the tab comes back
// by its stored pairing, and the follower's client is told the tools went
// and came back.
func TestRef_FollowerTakesOverFromKilledLeader(t *testing.T) {
	t.Parallel()
	leader, follower, tab, secret := sharedPair(t)
	from := follower.rpc.msgs.len()
	leader.signal(syscall.SIGKILL)
	leader.awaitExit()
	tab.awaitClosed()
	follower.awaitListening() // the leader's port, bound by the follower
	i := follower.rpc.awaitListChanged(from)

	back, _ := connectPage(t, follower, map[string]any{"secret": secret})
	follower.rpc.awaitListChanged(i + 1)
	if got := sortedNames(follower.rpc.toolNames()); !slices.Equal(got, withBridgeTools("render.png", "scene.describe")) {
		t.Errorf("tools after the tab came back: %v", got)
	}
	back.serve(defaultHandler)
	if _, env := follower.rpc.toolCall("scene.describe", map[string]any{}).envelope(t); env["shapes"] != float64(3) {
		t.Errorf("a call after the takeover: %v", env)
	}
	cs := follower.rpc.toolCall("connection_status", map[string]any{}).text()
	if !strings.Contains(cs, `"mode":"serving"`) {
		t.Errorf("connection_status after the takeover: %s, want serving", cs)
	}
	if s := follower.session(); s.PID != follower.pid() {
		t.Errorf("session file after the takeover names pid %d, want the follower's %d", s.PID, follower.pid())
	}
}

// ownBridge: true opts out of following: a second tab gets a port of its
// own.
func TestRef_OwnBridgeTakesItsOwnPort(t *testing.T) {
	t.Parallel()
	leader, follower, _, _ := sharedPair(t)
	r := follower.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.1, "ownBridge": true})
	if r.IsError || !strings.Contains(r.text(), "Still waiting") {
		t.Errorf("ownBridge wait: %q, want it waiting on its own port", r.text())
	}
	follower.port = 0
	follower.awaitListening()
	if follower.port == leader.port {
		t.Errorf("ownBridge: listening on the leader's port %d", leader.port)
	}
	cs := follower.rpc.toolCall("connection_status", map[string]any{}).text()
	if !strings.Contains(cs, `"mode":"serving"`) || !strings.Contains(cs, `"connected":false`) {
		t.Errorf("connection_status with a port of its own: %s, want serving, no tab", cs)
	}
}
