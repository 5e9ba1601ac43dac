package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// §2.5: after the handshake the page's frames are untrusted: junk, stray
// replies and large frames leave the bridge serving.
func TestSpec2_5_PageFramesRobust(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.sendText("not json at all")
	p.mustSend(map[string]any{"id": 987654, "ok": true, "stray": "reply to nothing"})
	p.mustSend(map[string]any{"id": "a-string-id", "ok": true})
	p.mustSend(map[string]any{"tools": "not a list"})
	p.mustSend(map[string]any{"tools": []any{"x", 1, nil}})
	p.mustSend([]any{1, 2, 3})
	p.mustSend(map[string]any{"big": strings.Repeat("x", 1<<20)})
	p.mustSend(map[string]any{"tools": defaultTools})
	b.awaitStatus("two tools", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	_, env := b.ctl("POST", "/call", map[string]any{"command": "scene.describe", "args": map[string]any{}})
	if env["ok"] != true || env["shapes"] != float64(3) {
		t.Errorf("/call after junk frames: got %v, want the page's answer", env)
	}
	if p.closed() {
		t.Errorf("page socket closed by junk after the handshake, want it kept")
	}
	b.mustRun()
}

// §2.4 (reference notes): a bridge keeps at most 5 secrets per origin,
// the newest among them.
func TestSpec2_4_SecretsBounded(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	var seeded []string
	for range 5 {
		seeded = append(seeded, newSecret())
	}
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(seeded...)})
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok})
	_, hello := connectPage(t, b, map[string]any{"token": tok})
	s := hello.str("pairingSecret")
	e := spent(t, dir, testOrigin, tok)
	if len(e.Secrets) > 5 || !contains(e.Secrets, s) || e.Secret != s {
		t.Errorf("secrets after a sixth pairing: got secret %q secrets %v, want at most 5 holding the newest %q", e.Secret, e.Secrets, s)
	}
}

// §2.4 (reference notes): a corrupt pairing.json is never read as empty and
// overwritten: its bytes stay in the config dir (in place or set aside), with
// a word on stderr; refusing to start (exit 1) is fine too.
func TestSpec2_4_CorruptPairingKept(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	corrupt := []byte(`{"https://www.stitchslop.com": {"secret": "abc", "secrets": [`)
	path := filepath.Join(dir, "pairing.json")
	if err := os.WriteFile(path, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok, expectExit: true})
	_, _, listening := b.stderr.lines.await(0, guard, listeningRE.MatchString)
	if listening {
		b.awaitListening()
		p := openPage(t, b.port, false)
		p.handshake(map[string]any{"token": tok})
		b.signal(syscall.SIGTERM)
	}
	if code := b.awaitExit(); !listening && code != 1 {
		t.Errorf("exit with a corrupt pairing.json: got %d, want 1 (config problem)", code)
	}
	kept := false
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if got, _ := os.ReadFile(filepath.Join(dir, e.Name())); bytes.Equal(got, corrupt) {
			kept = true
		}
	}
	if !kept {
		got, _ := os.ReadFile(path)
		t.Errorf("corrupt pairing.json: got it rewritten to %q and its bytes kept nowhere in %s, want them kept", got, dir)
	}
	if strings.TrimSpace(b.stderr.String()) == "" {
		t.Errorf("got empty stderr, want a word on the corrupt pairing.json")
	}
}

// §2.4: pairing.json ends up 0600 and its directory 0700 even when they were
// looser before; refusing to start (exit 1) is fine too.
func TestSpec2_4_LoosePermissionsTightened(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	seedPairing(t, dir, map[string]any{"https://staging.stitchslop.com": pairingFor(newSecret())})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "pairing.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok, expectExit: true})
	if _, _, ok := b.stderr.lines.await(0, guard, listeningRE.MatchString); !ok {
		if code := b.awaitExit(); code != 1 {
			t.Errorf("exit with loose permissions: got %d, want 1 or a running bridge", code)
		}
		return
	}
	b.awaitListening()
	connectPage(t, b, map[string]any{"token": tok})
	if m := fileMode(t, filepath.Join(dir, "pairing.json")); m != 0o600 {
		t.Errorf("pairing.json mode after a write: got %o, want 600", m)
	}
	if m := fileMode(t, dir); m != 0o700 {
		t.Errorf("config dir mode: got %o, want 700", m)
	}
}
