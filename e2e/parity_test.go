package e2e

// Parity with the Stitch Slop team's bridge (protocol.md §7.2-7.5):
// --lazy, pairing through the agent (the pair tool, POST /pair, the pair
// verb), and the sites a bridge admits beyond the one it was started for.

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A site on localhost that the tests pair; allowed on any bridge.
const devSite = "http://localhost:5173"

// listening counts the bridge's "listening on" lines so far.
func (b *bridge) listenings() int {
	n := 0
	for _, l := range b.stderr.lines.all() {
		if listeningRE.MatchString(l) {
			n++
		}
	}
	return n
}

// closedPort reports whether nothing accepts connections on port.
func closedPort(port int) bool {
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err == nil {
		c.Close()
	}
	return err != nil
}

// Notes, Start-up: --lazy listens on nothing and needs no credential until
// an agent asks; parallel asks bind once.
func TestRef_LazyStart(t *testing.T) {
	t.Parallel()
	p1, p2 := freePort(t), freePort(t)
	b := startBridge(t, bridgeOpts{port: -1, mcp: true, expectExit: true,
		args: []string{"--lazy", "--port", strconv.Itoa(p1) + "," + strconv.Itoa(p2)}})
	if _, _, ok := b.stderr.lines.await(0, guard, func(l string) bool { return strings.Contains(l, "--lazy: listening on nothing") }); !ok {
		t.Fatalf("a lazy bridge with no token and no pairing did not start; stderr:\n%s", b.stderr)
	}
	b.rpc.initialize()
	cs := b.rpc.toolCall("connection_status", map[string]any{})
	if !strings.Contains(cs.text(), `"mode":"idle"`) || !strings.Contains(cs.text(), `"port":0`) {
		t.Errorf("connection_status of a lazy bridge: %s, want mode idle and port 0", cs.text())
	}
	if !closedPort(p1) || !closedPort(p2) || exists(sessionPath(b.configDir, p1)) {
		t.Fatal("a lazy bridge listens, or wrote a session file, before any agent asked")
	}

	// Two asks at once: wait_for_connection and pair.
	tok := newToken()
	w := b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 0.3}})
	pr := b.rpc.request("tools/call", map[string]any{"name": "pair", "arguments": map[string]any{"token": tok + ".", "timeoutSeconds": 5}})
	var wr toolResult
	b.rpc.result(b.rpc.response(w), &wr)
	if !strings.Contains(wr.text(), "Still waiting") || !strings.Contains(wr.text(), "port "+strconv.Itoa(p1)) {
		t.Errorf("wait_for_connection on a lazy bridge: %q, want it to listen on the first port and wait", wr.text())
	}
	b.port = p1
	b.awaitListening()
	p := openPage(t, p1, false)
	p.serve(defaultHandler)
	hello := p.handshake(map[string]any{"token": tok})
	wantHello(t, hello, p1)
	if hello.str("pairingSecret") == "" {
		t.Fatalf("hello to a tab with the token pair armed: %s, want a pairingSecret", hello.raw)
	}
	var res toolResult
	b.rpc.result(b.rpc.response(pr), &res)
	if res.IsError || !strings.Contains(res.text(), "redeemed the token") {
		t.Errorf("pair on a lazy bridge: %q, want it to say the tab redeemed the token", res.text())
	}
	if n := b.listenings(); n != 1 || !closedPort(p2) {
		t.Errorf("two parallel asks: %d listening lines, second port refused %v; want one bind", n, closedPort(p2))
	}
	if b.session().Origin != testOrigin {
		t.Errorf("session file origin %q, want %q", b.session().Origin, testOrigin)
	}
}

// A lazy bridge whose stdin ends before any MCP session can never be asked
// to listen: it says so and exits 1.
func TestRef_LazyWithoutClientExits(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{expectExit: true, args: []string{"--lazy"}})
	if code := b.awaitExit(); code != 1 || !strings.Contains(b.stderr.String(), "--lazy waits for an MCP client") {
		t.Errorf("lazy bridge, stdin /dev/null: exit %d, stderr:\n%s\nwant exit 1 and the reason", code, b.stderr)
	}
}

// Notes, Handshake details: a site with a stored pairing is admitted, and
// the bridge serves it from then on; an allowed site without one is
// refused at the upgrade and on record.
func TestRef_PairedLoopbackSiteAdmitted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	dev := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret()), devSite: pairingFor(dev)})
	b := startBridge(t, bridgeOpts{configDir: dir})

	if _, resp, _ := dialWS(b.port, originHeader("http://127.0.0.1:8080")); resp == nil || resp.StatusCode != 403 {
		t.Fatal("an unpaired loopback site was not refused at the upgrade")
	}
	_, st := b.ctl("GET", "/status", nil)
	if rs, _ := st["refusals"].([]any); len(rs) != 1 || !strings.Contains(string(mustJSON(rs[0])), `"reason":"site"`) ||
		!strings.Contains(string(mustJSON(rs[0])), "no stored pairing and no token") {
		t.Errorf("/status refusals %v, want one site refusal that says how to pair", st["refusals"])
	}

	p := openPageFrom(t, b.port, devSite, false)
	p.serve(defaultHandler)
	wantHello(t, p.handshake(map[string]any{"secret": dev}), b.port)
	b.awaitConnected(true)
	if _, st := b.ctl("GET", "/status", nil); st["origin"] != devSite || st["paired"] != true {
		t.Errorf("/status after the dev tab attached: origin %v paired %v, want %s, true", st["origin"], st["paired"], devSite)
	}
	if s := b.session(); s.Origin != devSite || s.Port != b.port {
		t.Errorf("session file %+v, want origin %s", s, devSite)
	}
}

// Notes, MCP face: pair arms a token for its site alone. The launch
// origin's tab cannot use it, another loopback site is not even admitted,
// and the named site pairs with it.
func TestRef_PairToolOneSiteOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret())})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true})
	b.rpc.initialize()

	for _, bad := range []map[string]any{
		{"token": "tok_nothex!"},
		{"token": newToken(), "origin": "https://evil.example"},
		{"token": newToken(), "colour": "red"},
		{},
	} {
		if r := b.rpc.toolCall("pair", bad); !r.IsError {
			t.Errorf("pair %v: %q, want isError", bad, r.text())
		}
	}
	if r := b.rpc.toolCall("pair", map[string]any{"token": "tok_nothex!"}); strings.Contains(r.text(), "nothex") {
		t.Errorf("pair repeats the token it refused: %q", r.text())
	}

	tok := newToken()
	id := b.rpc.request("tools/call", map[string]any{"name": "pair", "arguments": map[string]any{"token": tok, "origin": devSite + "/", "timeoutSeconds": 10}})
	b.rpc.call("ping", nil)
	// pair arms the token before it waits.
	b.awaitStatus("a token armed for "+devSite, func(st map[string]any) bool {
		a, _ := st["armedOrigins"].([]any)
		return len(a) == 1 && a[0] == devSite
	})
	q := openPage(t, b.port, false)
	wantRefusal(t, q, q.handshake(map[string]any{"token": tok}), "bad_credential")
	if _, resp, _ := dialWS(b.port, originHeader("http://localhost:3000")); resp == nil || resp.StatusCode != 403 {
		t.Error("a token armed for one loopback site admitted another")
	}

	p := openPageFrom(t, b.port, devSite, false)
	p.serve(defaultHandler)
	hello := p.handshake(map[string]any{"token": tok})
	wantHello(t, hello, b.port)
	var res toolResult
	b.rpc.result(b.rpc.response(id), &res)
	if res.IsError || !strings.Contains(res.text(), devSite) || !strings.Contains(res.text(), "redeemed the token") {
		t.Errorf("pair result: %q", res.text())
	}
	if e := spent(t, dir, devSite, tok); e.Secret != hello.str("pairingSecret") {
		t.Errorf("pairing for %s: secret %q, want the one in hello", devSite, e.Secret)
	}
	if s := b.session(); s.Origin != devSite {
		t.Errorf("session file origin %q after the %s tab paired, want it", s.Origin, devSite)
	}
}

// pair with a tab that is paired already: the stored pairing is enough and
// the token stays unspent. wait_for_connection with an origin waits for
// that site's tab, not any tab.
func TestRef_PairNotNeededAndWaitForSite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true})
	b.rpc.initialize()
	connectPage(t, b, map[string]any{"secret": secret})

	tok := newToken()
	r := b.rpc.toolCall("pair", map[string]any{"token": tok, "timeoutSeconds": 5})
	if r.IsError || !strings.Contains(r.text(), "Already connected") || !strings.Contains(r.text(), "left unspent") {
		t.Errorf("pair with the tab attached by its pairing: %q, want connected, token left unspent", r.text())
	}
	if e := readPairing(t, dir, testOrigin); contains(e.UsedTokens, fingerprint(tok)) {
		t.Error("the token pair did not need was spent")
	}

	r = b.rpc.toolCall("wait_for_connection", map[string]any{"origin": devSite, "timeoutSeconds": 0.3, "ownBridge": true})
	if r.IsError || !strings.Contains(r.text(), "Still waiting") || !strings.Contains(r.text(), devSite) {
		t.Errorf("wait_for_connection for another site while a tab is attached: %q, want still waiting for %s", r.text(), devSite)
	}
	if r := b.rpc.toolCall("wait_for_connection", map[string]any{"origin": "https://evil.example"}); !r.IsError || !strings.Contains(r.text(), "origin_not_allowed") {
		t.Errorf("wait_for_connection for a site not allowed: %q, want isError origin_not_allowed", r.text())
	}
}

// Notes, Control plane: POST /pair arms a token for an allowed site; 400
// origin_not_allowed otherwise; 405 for another method.
func TestRef_ControlPair(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret())})
	b := startBridge(t, bridgeOpts{configDir: dir})

	tok := newToken()
	for _, tt := range []struct {
		method string
		body   any
		status int
		code   string
	}{
		{"GET", nil, 405, "method_not_allowed"},
		{"POST", map[string]any{"token": tok, "origin": "https://evil.example"}, 400, "origin_not_allowed"},
		{"POST", map[string]any{"token": "tok_12"}, 400, "bad_token"},
		{"POST", map[string]any{"token": tok, "origin": devSite}, 200, ""},
	} {
		status, m := b.ctl(tt.method, "/pair", tt.body)
		if status != tt.status || (tt.code != "" && m["error"] != tt.code) {
			t.Errorf("%s /pair %v: %d %v, want %d %s", tt.method, tt.body, status, m, tt.status, tt.code)
		}
		if tt.status == 200 && (m["ok"] != true || m["armed"] != true || m["origin"] != devSite) {
			t.Errorf("POST /pair: %v, want ok, armed for %s", m, devSite)
		}
	}
	p := openPageFrom(t, b.port, devSite, false)
	p.serve(defaultHandler)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	spent(t, dir, devSite, tok)
}

// Notes, shell: the pair verb, with the token from the environment or
// stdin, never argv, and the protocol's exit codes.
func TestRef_CLIPair(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret())})
	b := startBridge(t, bridgeOpts{configDir: dir})
	at := []string{"--config-dir", dir, "--port", strconv.Itoa(b.port)}

	envTok, stdinTok := newToken(), newToken()
	tests := []struct {
		name string
		in   cliInput
		args []string
		code int
		err  string
	}{
		{"from the environment", cliInput{env: []string{"STITCHSLOP_TOKEN=" + envTok}}, []string{"pair"}, 0, ""},
		{"from stdin, pasted with a full stop", cliInput{stdin: stdinTok + ".\n"}, []string{"pair", "-", "--origin", devSite}, 0, ""},
		{"on the command line", cliInput{}, []string{"pair", newToken()}, 64, "usage"},
		{"malformed", cliInput{stdin: "tok_XYZ\n"}, []string{"pair", "-"}, 64, "usage"},
		{"none", cliInput{}, []string{"pair"}, 64, "usage"},
		{"site not allowed", cliInput{stdin: newToken()}, []string{"pair", "--origin", "https://evil.example"}, 1, "origin_not_allowed"},
	}
	for _, tt := range tests {
		r := runCLIWith(t, tt.in, append(at, tt.args...)...)
		doc := r.doc(t)
		if r.code != tt.code || (tt.err != "" && doc["error"] != tt.err) || (tt.code == 0 && doc["armed"] != true) {
			t.Errorf("pair %s: exit %d, %v; want exit %d %s\nstderr: %s", tt.name, r.code, doc, tt.code, tt.err, r.stderr)
		}
		for _, tok := range []string{envTok, stdinTok, "XYZ"} {
			if strings.Contains(r.stdout+r.stderr, tok) {
				t.Errorf("pair %s printed a token", tt.name)
			}
		}
	}
	if r := runCLIWith(t, cliInput{stdin: newToken()}, "--config-dir", t.TempDir(), "pair", "-"); r.code != 3 {
		t.Errorf("pair with no bridge running: exit %d, want 3", r.code)
	}
	p := openPageFrom(t, b.port, devSite, false)
	p.serve(defaultHandler)
	wantHello(t, p.handshake(map[string]any{"token": stdinTok}), b.port)
}

// Notes, MCP face: a page tool named like a bridge tool, or with a schema
// over 32 KB, is dropped, and the drop is reported with its reason on
// /status and by connection_status.
func TestRef_DroppedToolsReported(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	from := b.rpc.msgs.len()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	big := map[string]any{"type": "object", "description": strings.Repeat("x", 40<<10)}
	p.mustSend(map[string]any{"tools": []any{
		map[string]any{"name": "pair", "inputSchema": map[string]any{"type": "object"}},
		map[string]any{"name": "huge.schema", "inputSchema": big},
		map[string]any{"name": "scene.describe", "inputSchema": map[string]any{"type": "object"}},
	}})
	b.rpc.awaitListChanged(from)
	if got := sortedNames(b.rpc.toolNames()); !slices.Equal(got, withBridgeTools("scene.describe")) {
		t.Errorf("tools/list: %v, want only scene.describe besides the bridge's own", got)
	}
	reasons := func(dropped any) map[string]string {
		m := map[string]string{}
		list, _ := dropped.([]any)
		for _, d := range list {
			e, _ := d.(map[string]any)
			name, _ := e["name"].(string)
			m[name], _ = e["reason"].(string)
		}
		return m
	}
	_, st := b.ctl("GET", "/status", nil)
	got := reasons(st["droppedTools"])
	if len(got) != 2 || !strings.Contains(got["pair"], "bridge") || !strings.Contains(got["huge.schema"], "schema") {
		t.Errorf("/status droppedTools: %v, want pair (a bridge tool's name) and huge.schema (schema too large) with reasons", st["droppedTools"])
	}
	var cs map[string]any
	if err := jsonUnmarshal(b.rpc.toolCall("connection_status", map[string]any{}).text(), &cs); err != nil {
		t.Fatal(err)
	}
	if g := reasons(cs["droppedTools"]); len(g) != 2 || g["pair"] != got["pair"] {
		t.Errorf("connection_status droppedTools: %v, want the same as /status", cs["droppedTools"])
	}
}
