package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Revocation (SECURITY.md "Revoking access", THREAT_MODEL.md T6): a spent
// token stays spent whatever happens to pairing.json, and `unpair` removes
// pairings without reviving tokens. The spent-token file's name and format
// are written here from SECURITY.md: <config-dir>/spent-tokens, one
// fingerprint (hex(SHA-256(token))[:32]) per line.

func spentTokensPath(dir string) string { return filepath.Join(dir, "spent-tokens") }

// awaitSpentLine waits for token's fingerprint on a line of its own in the
// spent-token file, and checks the file's mode.
func awaitSpentLine(t *testing.T, dir, token string) {
	t.Helper()
	path := spentTokensPath(dir)
	want := fingerprint(token)
	deadline := time.Now().Add(guard)
	for {
		data, err := os.ReadFile(path)
		if err == nil && slices.Contains(strings.Split(string(data), "\n"), want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("spent-token file %s: got %q (%v), want a line %s", path, data, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(data), "\n") {
		t.Errorf("spent-token file %q: got no final newline, want one fingerprint per line", data)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if len(line) != 32 || strings.Trim(line, "0123456789abcdef") != "" {
			t.Errorf("spent-token file line %q: want 32 lower-case hex characters", line)
		}
	}
	if strings.Contains(string(data), strings.TrimPrefix(token, "tok_")) {
		t.Errorf("spent-token file holds the token in the clear: %q", data)
	}
	if m := fileMode(t, path); m != 0o600 {
		t.Errorf("spent-token file mode: got %o, want 600", m)
	}
}

// refused opens a page and wants cred refused with bad_credential.
func refused(t *testing.T, b *bridge, cred map[string]any) {
	t.Helper()
	p := openPage(t, b.port, false)
	wantRefusal(t, p, p.handshake(cred), "bad_credential")
}

// wantNoStart restarts a bridge on dir with token and wants it to refuse to
// start: exit 1, never listening, a message on stderr. With neither an
// unspent token nor a stored pairing it has no way to authenticate a tab
// (§1).
func wantNoStart(t *testing.T, dir string, port int, token string) {
	t.Helper()
	b := startBridge(t, bridgeOpts{configDir: dir, port: port, token: token, expectExit: true})
	if _, _, listening := b.stderr.lines.await(0, guard, listeningRE.MatchString); listening {
		b.awaitListening()
		p := openPage(t, b.port, false)
		reply := p.handshake(map[string]any{"token": token})
		t.Fatalf("restart with the spent token and no pairing: got a listening bridge (handshake with the token: %s), want exit 1; stderr:\n%s", reply.raw, b.stderr)
	}
	code := b.awaitExit()
	if code != 1 {
		t.Errorf("restart with the spent token and no pairing: got exit %d, want 1 (no unspent token, no stored pairing); stderr:\n%s", code, b.stderr)
	}
	if strings.TrimSpace(b.stderr.String()) == "" {
		t.Error("restart with the spent token: got empty stderr, want a message")
	}
	if strings.Contains(b.stderr.String(), token) {
		t.Errorf("stderr echoes the token: %s", b.stderr)
	}
}

// Deleting pairing.json (the old advice for revoking) does not revive the
// token: not on the running bridge, and not after a restart with the same
// STITCHSLOP_TOKEN.
func TestRevocation_TokenStaysSpentAfterPairingDeleted(t *testing.T) {
	t.Parallel()
	tok := newToken()
	dir := filepath.Join(t.TempDir(), "cfg")
	port := freePort(t)
	b := startBridge(t, bridgeOpts{configDir: dir, port: port, token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	spent(t, dir, testOrigin, tok)
	awaitSpentLine(t, dir, tok)
	p.conn.Close()
	b.awaitConnected(false)

	if err := os.Remove(filepath.Join(dir, "pairing.json")); err != nil {
		t.Fatal(err)
	}
	refused(t, b, map[string]any{"token": tok})
	if exists(filepath.Join(dir, "pairing.json")) {
		if e := readPairing(t, dir, testOrigin); e.Secret != "" || len(e.Secrets) != 0 {
			t.Errorf("a refused token minted a pairing: %+v", e)
		}
	}
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit after SIGTERM: got %d, want 0", code)
	}
	wantNoStart(t, dir, port, tok)
}

// A running bridge remembers that its own token is spent: deleting both
// pairing.json and the spent-token file under it does not let the token pair
// again. (Run under umask 000: the spent-token file is 0600 all the same.)
func TestRevocation_RunningBridgeRemembersItsToken(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, openUmask: true})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	spent(t, b.configDir, testOrigin, tok)
	awaitSpentLine(t, b.configDir, tok)
	p.conn.Close()
	b.awaitConnected(false)
	for _, name := range []string{"pairing.json", "spent-tokens"} {
		if err := os.Remove(filepath.Join(b.configDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	refused(t, b, map[string]any{"token": tok})
	b.mustRun()
}

// Deleting only the spent-token file does not revive the token either:
// pairing.json's usedTokens still holds it (the reference bridge's record).
func TestRevocation_TokenStaysSpentAfterSpentFileDeleted(t *testing.T) {
	t.Parallel()
	tok := newToken()
	dir := filepath.Join(t.TempDir(), "cfg")
	port := freePort(t)
	b := startBridge(t, bridgeOpts{configDir: dir, port: port, token: tok})
	_, hello := connectPage(t, b, map[string]any{"token": tok})
	spent(t, dir, testOrigin, tok)
	awaitSpentLine(t, dir, tok)
	b.signal(syscall.SIGTERM)
	b.awaitExit()
	if err := os.Remove(spentTokensPath(dir)); err != nil {
		t.Fatal(err)
	}
	b = startBridge(t, bridgeOpts{configDir: dir, port: port, token: tok})
	refused(t, b, map[string]any{"token": tok})
	connectPage(t, b, map[string]any{"secret": hello.str("pairingSecret")})
}

// `unpair ORIGIN`: exit 0 with one JSON document; the attached tab keeps
// working until it disconnects; then the removed secret is refused, the
// token stays spent (in pairing.json and the spent-token file), and a
// restart with the same token cannot pair.
func TestRevocation_Unpair(t *testing.T) {
	t.Parallel()
	tok := newToken()
	dir := filepath.Join(t.TempDir(), "cfg")
	port := freePort(t)
	b := startBridge(t, bridgeOpts{configDir: dir, port: port, token: tok})
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	secret := hello.str("pairingSecret")
	spent(t, dir, testOrigin, tok)
	awaitSpentLine(t, dir, tok)

	// A spelling of the origin the user might paste.
	r := runCLI(t, "--config-dir", dir, "unpair", "HTTPS://WWW.StitchSlop.com/")
	if r.code != 0 {
		t.Fatalf("unpair: got exit %d, want 0; stdout %s; stderr %s", r.code, r.stdout, r.stderr)
	}
	d := r.doc(t)
	if d["ok"] != true || !reflect.DeepEqual(d["removed"], []any{testOrigin}) {
		t.Errorf("unpair: got %s, want ok:true and removed [%q]", r.stdout, testOrigin)
	}
	if msg, _ := d["message"].(string); !strings.Contains(msg, "disconnect") {
		t.Errorf("unpair message %q: want it to say a running bridge keeps its tab until it disconnects", msg)
	}
	if strings.Contains(r.stdout+r.stderr, secret) || strings.Contains(r.stdout+r.stderr, tok) {
		t.Errorf("unpair printed a credential: %s %s", r.stdout, r.stderr)
	}
	e := readPairing(t, dir, testOrigin)
	if e.Secret != "" || len(e.Secrets) != 0 {
		t.Errorf("pairing.json after unpair: got secret %q secrets %v, want none", e.Secret, e.Secrets)
	}
	if !contains(e.UsedTokens, fingerprint(tok)) {
		t.Errorf("pairing.json usedTokens after unpair: got %v, want %s kept", e.UsedTokens, fingerprint(tok))
	}
	awaitSpentLine(t, dir, tok)

	// The attached tab is not cut off by unpair.
	b.mustRun()
	if c := b.cli("call", "scene.describe"); c.code != 0 {
		t.Errorf("call after unpair, tab still attached: got exit %d, want 0 (the tab keeps working until it disconnects); %s", c.code, c.stdout)
	}
	p.conn.Close()
	b.awaitConnected(false)

	refused(t, b, map[string]any{"secret": secret})
	refused(t, b, map[string]any{"token": tok})
	refused(t, b, map[string]any{"secret": secret, "token": tok})

	b.signal(syscall.SIGTERM)
	b.awaitExit()
	wantNoStart(t, dir, port, tok)
}

// `unpair --all` removes every origin's secrets and keeps everything else:
// spent-token fingerprints, unknown fields, a future schema field. No
// bridge need be running.
func TestRevocation_UnpairAllKeepsEverythingElse(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	a, c := pairingFor(newSecret()), pairingFor(newSecret(), newSecret())
	a["usedTokens"] = []string{fingerprint("tok_0123456789ab")}
	c["device"] = map[string]any{"name": "laptop"}
	seedPairing(t, dir, map[string]any{
		"schema":                         2,
		"note":                           "kept",
		testOrigin:                       a,
		"https://staging.stitchslop.com": c,
	})
	r := runCLI(t, "--config-dir", dir, "unpair", "--all")
	if r.code != 0 {
		t.Fatalf("unpair --all: got exit %d, want 0; %s %s", r.code, r.stdout, r.stderr)
	}
	if got, want := r.doc(t)["removed"], []any{"https://staging.stitchslop.com", testOrigin}; !reflect.DeepEqual(got, want) {
		t.Errorf("unpair --all removed: got %v, want %v", got, want)
	}
	top := readPairingRaw(t, dir)
	if string(top["schema"]) != "2" || string(top["note"]) != `"kept"` {
		t.Errorf("top-level fields after unpair --all: got schema %s note %s, want 2 and \"kept\"", top["schema"], top["note"])
	}
	for _, o := range []string{testOrigin, "https://staging.stitchslop.com"} {
		if e := readPairing(t, dir, o); e.Secret != "" || len(e.Secrets) != 0 {
			t.Errorf("%s after unpair --all: got secret %q secrets %v, want none", o, e.Secret, e.Secrets)
		}
	}
	if e := readPairing(t, dir, testOrigin); !slices.Equal(e.UsedTokens, []string{fingerprint("tok_0123456789ab")}) {
		t.Errorf("usedTokens after unpair --all: got %v, want it kept", e.UsedTokens)
	}
	var dev map[string]any
	json.Unmarshal(top["https://staging.stitchslop.com"], &dev)
	if !reflect.DeepEqual(dev["device"], map[string]any{"name": "laptop"}) {
		t.Errorf("unknown entry field after unpair --all: got %v, want it kept", dev["device"])
	}
	// The fingerprint only pairing.json held is now in the spent-token file
	// too, so deleting pairing.json does not revive it.
	data, _ := os.ReadFile(spentTokensPath(dir))
	if !slices.Contains(strings.Split(string(data), "\n"), fingerprint("tok_0123456789ab")) {
		t.Errorf("spent-token file after unpair --all: got %q, want the fingerprint from usedTokens", data)
	}

	r = runCLI(t, "--config-dir", dir, "unpair", "--all")
	if d := r.doc(t); r.code != 0 || !reflect.DeepEqual(d["removed"], []any{}) {
		t.Errorf("second unpair --all: got exit %d, %s; want 0 and removed []", r.code, r.stdout)
	}
	r = runCLI(t, "--config-dir", filepath.Join(t.TempDir(), "none"), "unpair", testOrigin)
	if d := r.doc(t); r.code != 0 || d["ok"] != true {
		t.Errorf("unpair with no config dir: got exit %d, %s; want 0 and ok:true", r.code, r.stdout)
	}
}

// The CLI contract (§4.4) for unpair's mistakes: exit 64 with one JSON
// document, and a token pasted by mistake is never echoed.
func TestRevocation_UnpairUsage(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret())})
	before, _ := os.ReadFile(filepath.Join(dir, "pairing.json"))
	tok := newToken()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"neither ORIGIN nor --all", []string{"unpair"}},
		{"both ORIGIN and --all", []string{"unpair", testOrigin, "--all"}},
		{"two origins", []string{"unpair", testOrigin, "https://staging.stitchslop.com"}},
		{"not an origin", []string{"unpair", "stitchslop"}},
		{"a path", []string{"unpair", testOrigin + "/app"}},
		{"another scheme", []string{"unpair", "ftp://www.stitchslop.com"}},
		{"a token by mistake", []string{"unpair", tok}},
		{"--all with another verb", []string{"status", "--all"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"--config-dir", dir}, c.args...)...)
			if r.code != 64 {
				t.Errorf("%v: got exit %d, want 64; stderr %s", c.args, r.code, r.stderr)
			}
			if d := r.doc(t); d["ok"] != false {
				t.Errorf("%v: got %s, want ok:false", c.args, r.stdout)
			}
			if strings.Contains(r.stdout+r.stderr, strings.TrimPrefix(tok, "tok_")) {
				t.Errorf("%v: the token was echoed: %s %s", c.args, r.stdout, r.stderr)
			}
		})
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "pairing.json")); !bytes.Equal(before, after) {
		t.Errorf("pairing.json changed after usage errors: %s", after)
	}
}

// unpair on a pairing.json that does not parse fails (exit 1) and leaves it
// as it is: a revocation must not look as if it worked.
func TestRevocation_UnpairCorruptPairing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	corrupt := []byte(`{"https://www.stitchslop.com": {"secret": "abc"`)
	path := filepath.Join(dir, "pairing.json")
	if err := os.WriteFile(path, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "--config-dir", dir, "unpair", testOrigin)
	if d := r.doc(t); r.code != 1 || d["ok"] != false {
		t.Errorf("unpair on a corrupt pairing.json: got exit %d, %s; want 1 and ok:false", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, path) {
		t.Errorf("stderr %q: want it to name %s", r.stderr, path)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, corrupt) {
		t.Errorf("pairing.json after a failed unpair: got %q, want it untouched", got)
	}
}

// A spent-token file that does not parse refuses redemption (fails closed),
// naming its path, and is left as it was. The bridge may refuse to start
// (exit 1) or start and refuse the token.
func TestRevocation_CorruptSpentFileRefusesToken(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	junk := []byte(fingerprint("tok_old") + "\nthis is not a fingerprint\n")
	if err := os.WriteFile(spentTokensPath(dir), junk, 0o600); err != nil {
		t.Fatal(err)
	}
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok, expectExit: true})
	if _, _, ok := b.stderr.lines.await(0, guard, listeningRE.MatchString); ok {
		b.awaitListening()
		refused(t, b, map[string]any{"token": tok})
		b.signal(syscall.SIGTERM)
	}
	b.awaitExit()
	if !strings.Contains(b.stderr.String(), spentTokensPath(dir)) {
		t.Errorf("stderr: got no mention of %s, want the path of the file that refused; stderr:\n%s", spentTokensPath(dir), b.stderr)
	}
	if got, _ := os.ReadFile(spentTokensPath(dir)); !bytes.Equal(got, junk) {
		t.Errorf("spent-token file: got %q, want it untouched", got)
	}
	if exists(filepath.Join(dir, "pairing.json")) {
		var top map[string]json.RawMessage
		data, _ := os.ReadFile(filepath.Join(dir, "pairing.json"))
		json.Unmarshal(data, &top)
		if _, ok := top[testOrigin]; ok {
			t.Errorf("pairing.json after a refused redemption: got %s, want no pairing", data)
		}
	}
}

// §2.4 and the reference notes: a pairing.json with top-level fields of
// another shape (a future "schema": 2, a string, a list) is not corrupt. A
// bridge pairs on it, and afterwards every such field and every other
// origin's entry is still there, unchanged.
func TestSpec2_4_FutureSchemaSurvives(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	old := newSecret()
	mine := pairingFor(old)
	mine["futureField"] = []any{1, "two"}
	staging := pairingFor(newSecret())
	staging["device"] = map[string]any{"name": "laptop"}
	seed := map[string]any{
		"schema":                         2,
		"generator":                      "stitchslop 0.2",
		"migrations":                     []any{1, "two", map[string]any{"three": 3}},
		"disabled":                       nil,
		testOrigin:                       mine,
		"https://staging.stitchslop.com": staging,
		"http://localhost:5173":          pairingFor(newSecret()),
	}
	seedPairing(t, dir, seed)
	var want map[string]json.RawMessage
	json.Unmarshal(mustJSON(seed), &want)

	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok})
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	s := hello.str("pairingSecret")
	if s == "" {
		t.Fatalf("hello %s: got no pairingSecret, want one (a token handshake)", hello.raw)
	}
	spent(t, dir, testOrigin, tok)

	top := readPairingRaw(t, dir)
	if got := strings.TrimSpace(string(top["schema"])); got != "2" {
		t.Errorf(`"schema" after pairing: got %s, want 2`, top["schema"])
	}
	for _, k := range []string{"generator", "migrations", "disabled", "https://staging.stitchslop.com", "http://localhost:5173"} {
		var g, w any
		if err := json.Unmarshal(top[k], &g); err != nil || json.Unmarshal(want[k], &w) != nil || !reflect.DeepEqual(g, w) {
			t.Errorf("%q after pairing: got %s, want %s unchanged", k, top[k], want[k])
		}
	}
	e := readPairing(t, dir, testOrigin)
	if e.Secret != s || !contains(e.Secrets, s) || !contains(e.Secrets, old) {
		t.Errorf("our entry: got secret %q secrets %v, want the new %q first and the old %q kept", e.Secret, e.Secrets, s, old)
	}
	var raw map[string]any
	json.Unmarshal(top[testOrigin], &raw)
	if !reflect.DeepEqual(raw["futureField"], []any{float64(1), "two"}) {
		t.Errorf("unknown field of our entry: got %v, want [1 \"two\"]", raw["futureField"])
	}
	if aside, _ := filepath.Glob(filepath.Join(dir, "pairing.json.corrupt-*")); len(aside) != 0 {
		t.Errorf("pairing.json was set aside as corrupt: %v", aside)
	}
	// The stored pairing from before still works.
	p.conn.Close()
	b.awaitConnected(false)
	connectPage(t, b, map[string]any{"secret": old})
}
