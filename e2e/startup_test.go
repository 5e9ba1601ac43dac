package e2e

// Start-up flags the Stitch Slop team's bridge has and its plugin passes
// (protocol.md §7.2): a --port list,
// --idle-minutes, --takeover.

import (
	"fmt"
	"strings"
	"testing"
)

// --port takes a comma-separated list, tried in order in place of
// 8787-8790; a shell verb still drives exactly one bridge.
func TestRef_PortList(t *testing.T) {
	t.Parallel()
	busy, free := heldPort(t), freePort(t)
	b := startBridge(t, bridgeOpts{port: -1, token: newToken(), args: []string{"--port", fmt.Sprintf("%d,%d", busy, free)}})
	if b.port != free {
		t.Fatalf("with --port %d,%d and %d busy: listening on %d, want %d", busy, free, busy, b.port, free)
	}
	if !exists(sessionPath(b.configDir, free)) {
		t.Fatal("no session file for the port taken from the list")
	}
	for _, bad := range []string{"8787,x", "0", "1,1", "8787,", strings.Repeat("9000,", 16) + "9016"} {
		r := runCLI(t, "--origin", testOrigin, "--config-dir", t.TempDir(), "--port", bad)
		if r.code != 64 || !strings.Contains(r.stderr, "--port") {
			t.Errorf("--port %q: exit %d, stderr %q; want 64 naming --port", bad, r.code, r.stderr)
		}
	}
	if r := b.cli("status"); r.code != 0 {
		t.Errorf("status with one --port: exit %d", r.code)
	}
	r := runCLI(t, "--config-dir", b.configDir, "--port", fmt.Sprintf("%d,%d", free, busy), "status")
	if r.code != 64 {
		t.Errorf("a shell verb with a --port list: exit %d, want 64", r.code)
	}
}

// §2.7 with --idle-minutes: a bridge no tab reaches exits 0 after the
// minutes given (fractions allowed); 0 means never.
func TestSpec2_7_IdleMinutesFlag(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken(), args: []string{"--idle-minutes", "0.01"}})
	if code := b.awaitExit(); code != 0 || !strings.Contains(b.stderr.String(), "no Stitch Slop tab connected") {
		t.Fatalf("--idle-minutes 0.01: exit %d; stderr:\n%s", code, b.stderr)
	}
	for _, bad := range []string{"-1", "soon", "NaN"} {
		r := runCLI(t, "--origin", testOrigin, "--config-dir", t.TempDir(), "--idle-minutes", bad)
		if r.code != 64 || !strings.Contains(r.stderr, "--idle-minutes") {
			t.Errorf("--idle-minutes %q: exit %d, stderr %q; want 64", bad, r.code, r.stderr)
		}
	}
}

// §2.6's opt-in: with --takeover a second tab that authenticates displaces
// the live first one, which is told so, instead of being refused busy.
func TestSpec2_6_TakeoverFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir, args: []string{"--takeover"}})
	first, _ := connectPage(t, b, map[string]any{"secret": secret})
	second := openPage(t, b.port, false)
	wantHello(t, second.handshake(map[string]any{"secret": secret}), b.port)
	f, _ := first.frameAt(0, func(f frame) bool { return f.m["displaced"] == true })
	if !strings.Contains(f.str("message"), "--takeover") {
		t.Errorf("displaced notice %s does not say why", f.raw)
	}
	first.awaitClosed()
	if r := b.cli("status"); r.code != 0 || r.doc(t)["connected"] != true {
		t.Fatalf("after the takeover: %v", r.doc(t))
	}
}
