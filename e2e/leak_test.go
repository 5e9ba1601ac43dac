package e2e

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// §2.3, §2.4, §4.3: across a whole session no token, pairing secret or
// session key appears on stderr, on the MCP stdout, in CLI output, or in any
// page frame but the hello that hands over pairingSecret; a credential a page
// tries and fails with is not echoed either.
func TestSpec2_4_CredentialsNeverLeak(t *testing.T) {
	t.Parallel()
	tok := newToken()
	wrongSecret := newSecret()
	wrongToken := newToken()
	wrongKey := newSecret()
	port := freePort(t)
	b := startBridge(t, bridgeOpts{token: tok, mcp: true, port: port})
	dir := b.configDir
	var outputs []string // name + ": " + text, scanned at the end
	record := func(name, text string) { outputs = append(outputs, name+": "+text) }

	b.rpc.initialize()
	q := openPage(t, port, false)
	wantRefusal(t, q, q.handshake(map[string]any{"secret": wrongSecret, "token": wrongToken}), "bad_credential")
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	secret := hello.str("pairingSecret")
	spent(t, dir, testOrigin, tok)
	key1 := b.session().Key
	b.rpc.toolCall("scene.describe", map[string]any{"limit": 3})
	b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5})
	b.rpc.toolNames()
	for _, args := range [][]string{{"status"}, {"tools"}, {"call", "scene.describe", `{"limit":1}`}, {"wait", "1"}} {
		r := b.cli(args...)
		record("cli "+strings.Join(args, " ")+" stdout", r.stdout)
		record("cli "+strings.Join(args, " ")+" stderr", r.stderr)
	}
	_, body := ctlDo(t, port, "GET", "/status", nil, keyHeader(wrongKey), "")
	record("/status with a wrong key", string(body))
	h := http.Header{}
	h.Set("Origin", testOrigin)
	h.Set("x-stitchslop-key", key1)
	_, body = ctlDo(t, port, "GET", "/status", nil, h, "")
	record("/status with an Origin", string(body))
	_, body = ctlDo(t, port, "GET", "/status", nil, keyHeader(key1), "")
	record("/status", string(body))
	for _, f := range p.frames.all()[1:] { // [0] is the hello that hands over the secret
		record("page frame", string(f.raw))
	}
	b.closeStdin()
	b.awaitExit()
	record("bridge 1 stderr", b.stderr.String())
	record("bridge 1 stdout", b.stdout.String())

	// A restart with the spent token still in the environment.
	b2 := startBridge(t, bridgeOpts{token: tok, port: port, configDir: dir})
	key2 := b2.session().Key
	q = openPage(t, port, false)
	wantRefusal(t, q, q.handshake(map[string]any{"token": tok}), "bad_credential")
	p2, hello2 := connectPage(t, b2, map[string]any{"secret": secret})
	record("hello on a secret handshake", string(hello2.raw))
	r := b2.cli("call", "scene.describe", "{}")
	record("cli stdout", r.stdout)
	record("cli stderr", r.stderr)
	for _, f := range p2.frames.all() {
		record("page frame", string(f.raw))
	}
	b2.signal(syscall.SIGTERM)
	b2.awaitExit()
	record("bridge 2 stderr", b2.stderr.String())
	record("bridge 2 stdout", b2.stdout.String())

	creds := map[string]string{
		"token": tok, "token body": strings.TrimPrefix(tok, "tok_"), "pairing secret": secret,
		"session key 1": key1, "session key 2": key2,
		"refused secret": wrongSecret, "refused token": strings.TrimPrefix(wrongToken, "tok_"), "refused key": wrongKey,
	}
	for _, out := range outputs {
		for name, c := range creds {
			if c != "" && strings.Contains(out, c) {
				t.Errorf("%s leaks the %s:\n%s", out[:strings.Index(out, ":")], name, out)
			}
		}
	}
}
