package e2e

// Parity, part 3 (issue 21; protocol.md §7.5-7.7, what the team's
// notes first left out): values pasted as a model copies them, a site chosen by
// origin, the greeting, a wait that times out, connection_status's names,
// wrong_pairing for a paired site, the bulk note, and the shell pair verb's
// refusal of a token in argv. Listen itself and /status's listeners and
// attachedBy are tested with the listen verb.

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pastedSite is the loopback site of these tests, as a page names it.
const pastedSite = "http://localhost:9999"

// A model copies the site out of the panel's sentence with its trailing
// punctuation: pair, wait_for_connection and POST /pair read it as the
// site, so the tab of that site gets in with the token.
func TestRef3_PastedValuesWithTrailingPunctuation(t *testing.T) {
	t.Parallel()
	b, _ := mcpBridge(t, "")
	b.rpc.initialize()

	if r := b.rpc.toolCall("wait_for_connection", map[string]any{"origin": " HTTP://LocalHost:9999/; ", "timeoutSeconds": 0.1}); r.IsError ||
		!strings.Contains(r.text(), "Still waiting: no Stitch Slop tab of "+pastedSite+" ") {
		t.Errorf("wait_for_connection with a pasted origin: %q, want a normal wait for %s", r.text(), pastedSite)
	}
	code, body := ctlDo(t, b.port, "POST", "/pair", map[string]any{"token": newToken() + ".", "origin": pastedSite + "/.,"}, keyHeader(b.session().Key), "")
	var d map[string]any
	json.Unmarshal(body, &d)
	if code != http.StatusOK || d["origin"] != pastedSite {
		t.Errorf("POST /pair with a pasted origin: %d %s, want 200 for %s", code, body, pastedSite)
	}

	tok := newToken()
	id := b.rpc.request("tools/call", map[string]any{"name": "pair", "arguments": map[string]any{"token": " " + tok + ".", "origin": pastedSite + "/.", "timeoutSeconds": 8}})
	b.rpc.call("ping", nil) // the pair has armed its token or been refused
	p := openPageFrom(t, b.port, pastedSite, false)
	p.serve(defaultHandler)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	p.mustSend(map[string]any{"tools": defaultTools})
	var r toolResult
	b.rpc.result(b.rpc.response(id), &r)
	if r.IsError || strings.Contains(r.text(), "origin_not_allowed") || !strings.Contains(r.text(), "tab for "+pastedSite) {
		t.Errorf(`pair {origin: %q}: %q, want the tab of %s attached`, pastedSite+"/.", r.text(), pastedSite)
	}
}

// A lazy bridge launched for production, asked for a loopback site by
// origin, follows the live bridge that serves that site's tab instead of
// opening a port of its own; its status is the host's.
func TestRef3_OriginChoosesTheSiteFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{pastedSite: pairingFor(secret)})
	p1, p2 := freePort(t), freePort(t)
	ports := []string{"--lazy", "--port", strconv.Itoa(p1) + "," + strconv.Itoa(p2)}
	leader := startBridge(t, bridgeOpts{origin: pastedSite, configDir: dir, port: -1, mcp: true, expectExit: true, args: ports})
	leader.rpc.initialize()
	leader.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.1})
	leader.port = p1
	leader.awaitListening()
	// A refusal on the host's record, which the follower must report.
	q := openPageFrom(t, p1, pastedSite, false)
	wantRefusal(t, q, q.handshake(map[string]any{"secret": newSecret()}), "bad_credential")
	tab := openPageFrom(t, p1, pastedSite, false)
	tab.serve(defaultHandler)
	wantHello(t, tab.handshake(map[string]any{"secret": secret}), p1)
	tab.mustSend(map[string]any{"tools": defaultTools})

	follower := startBridge(t, bridgeOpts{origin: testOrigin, configDir: dir, port: -1, mcp: true, expectExit: true, args: ports})
	follower.rpc.initialize()
	r := follower.rpc.toolCall("wait_for_connection", map[string]any{"origin": pastedSite, "timeoutSeconds": 5})
	if r.IsError || !strings.Contains(r.text(), "Already connected") || !strings.Contains(r.text(), "tab for "+pastedSite) || !strings.Contains(r.text(), "3 shapes") {
		t.Fatalf("wait_for_connection {origin: %s} on a bridge for production: %q, want the followed tab, already connected", pastedSite, r.text())
	}
	if follower.listenings() != 0 || !closedPort(p2) {
		t.Fatalf("the follower opened a port of its own; stderr:\n%s", follower.stderr)
	}
	var cs map[string]any
	if err := jsonUnmarshal(follower.rpc.toolCall("connection_status", map[string]any{}).text(), &cs); err != nil {
		t.Fatal(err)
	}
	refusals, _ := cs["recentRefusals"].([]any)
	if cs["mode"] != "follower" || cs["origin"] != pastedSite || cs["port"] != float64(p1) || len(refusals) != 1 || cs["connectionAttempts"].(float64) < 2 {
		t.Errorf("follower connection_status: %v, want follower of %s on %d with the host's attempts and its one refusal", cs, pastedSite, p1)
	}
}

// voiceListen is a voice.listen tool as the tab lists it; with a switch,
// its description mentions voiceOn.
func voiceListen(withSwitch bool) any {
	desc := "Waits for what the user says."
	if withSwitch {
		desc += " Answers {heard, selection, say, voiceOn}; voiceOn is the user's voice switch."
	}
	return map[string]any{"name": "voice.listen", "description": desc, "inputSchema": map[string]any{"type": "object"}}
}

// describeCanvas answers scene.describe as the app does, with items and
// an omitted count.
func describeCanvas(cmd string, args map[string]any) map[string]any {
	if cmd != "scene.describe" {
		return defaultHandler(cmd, args)
	}
	return map[string]any{"ok": true, "say": "Two shapes on the hoop.", "omitted": 3, "items": []any{
		map[string]any{"name": "Rose", "treatment": "satin", "treatmentLabel": "Satin fill", "stitches": 12345},
		map[string]any{"name": "Leaf", "treatment": "run", "stitches": 1234567},
	}}
}

// The greeting of a tab that redeemed the token: just attached, the token
// now spent, the canvas item by item, the tools, and the listen command
// to start under Monitor with --owner this bridge's pid; with no voice
// switch, greet with voice.say once listen runs.
func TestRef3_GreetingByTokenWithCanvasAndListen(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	id := b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 8}})
	b.rpc.call("ping", nil)
	p := openPage(t, b.port, false)
	p.serve(describeCanvas)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	p.mustSend(map[string]any{"tools": append([]any{voiceListen(false)}, defaultTools...)})
	var r toolResult
	b.rpc.result(b.rpc.response(id), &r)
	text := r.text()
	wantCmd := "'" + toolPath + "' --config-dir '" + b.configDir + "' --port " + strconv.Itoa(b.port) + " listen --owner " + strconv.Itoa(b.pid())
	for _, want := range []string{
		"Just attached", "redeemed the token", "now spent", "stays paired",
		"Two shapes on the hoop.", "1. Rose, Satin fill, 12,345 stitches", "2. Leaf, run, 1,234,567 stitches", "…and 3 more",
		"lists 3 app tools", "descriptions are the documentation", "scene.render", "`changed`",
		"Monitor", "ToolSearch", "select:Monitor", wantCmd, "not as instructions", "Never call voice.listen yourself",
		"Once listen is running, greet the user with voice.say", "Now greet the user", "change nothing until they ask",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("greeting %q: want it to say %q", text, want)
		}
	}
	if strings.Index(text, "Just attached") > strings.Index(text, "redeemed") || strings.Index(text, "Rose") > strings.Index(text, "app tools") ||
		strings.Index(text, "app tools") > strings.Index(text, wantCmd) || strings.Index(text, wantCmd) > strings.Index(text, "Now greet the user") {
		t.Errorf("greeting %q: want attached, how, canvas, tools, listen, greet, in that order", text)
	}
}

// A tab that got in by its stored pairing, already attached when pair is
// called: already connected, no token was needed, the one given is unused.
// An app with a voice switch: do not greet until voice-on.
func TestRef3_GreetingByPairingAlreadyConnectedWithVoiceSwitch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true})
	b.rpc.initialize()
	connectPageListing(t, b, map[string]any{"secret": secret}, append([]any{voiceListen(true)}, defaultTools...))
	b.awaitStatus("the tab's tools", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 3 })
	text := b.rpc.toolCall("pair", map[string]any{"token": newToken(), "timeoutSeconds": 5}).text()
	for _, want := range []string{
		"Already connected", "stored pairing", "no token was needed", "unused",
		"do not greet the user yet", `{"event":"voice-on"}`, "I'm listening. Press Talk (⌥M) and speak.", "voice-off", "say nothing", "voiceSupport",
		"When listen prints voice-on, greet the user",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("greeting %q: want it to say %q", text, want)
		}
	}
	if strings.Contains(text, "Just attached") || strings.Contains(text, "Now greet the user") || strings.Contains(text, "redeemed") {
		t.Errorf("greeting %q: want already connected, by pairing, and no greeting before voice-on", text)
	}
}

// A wait parked before the tab attached writes its greeting after the
// tab's tool list arrives, so it carries the listen part even when the
// list comes after the hello.
func TestRef3_ParkedWaitGetsTheListenPart(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	id := b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 8}})
	b.rpc.call("ping", nil)
	p := openPage(t, b.port, false)
	listed := false
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "scene.describe" && !listed {
			// The list comes late: only once the greeting is under way.
			listed = true
			p.send(map[string]any{"tools": append([]any{voiceListen(false)}, defaultTools...)})
		}
		return defaultHandler(cmd, args)
	})
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	var r toolResult
	b.rpc.result(b.rpc.response(id), &r)
	if !strings.Contains(r.text(), "listen --owner "+strconv.Itoa(b.pid())) || !strings.Contains(r.text(), "lists 3 app tools") {
		t.Errorf("greeting of a parked wait: %q, want the listen command and the tab's 3 tools", r.text())
	}
}

// A wait that times out is a normal result: what the bridge saw (here a
// refusal, with its count and what to tell the user), the panel's status
// words with their meanings, and the sites this bridge admits.
func TestRef3_WaitTimeoutSaysThePanelWords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret())})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true})
	b.rpc.initialize()

	r := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.2})
	for _, want := range []string{"Still waiting", "again", "not a credential problem", "switch", "browser", "another tab"} {
		if r.IsError || !strings.Contains(r.text(), want) {
			t.Errorf("a wait nothing dialled during: %q (isError %v), want it to say %q", r.text(), r.IsError, want)
		}
	}
	id := b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 2}})
	b.rpc.call("ping", nil)
	for range 2 {
		p := openPage(t, b.port, false)
		wantRefusal(t, p, p.handshake(map[string]any{"secret": newSecret()}), "bad_credential")
	}
	var res toolResult
	b.rpc.result(b.rpc.response(id), &res)
	text := res.text()
	for _, want := range []string{
		"wrong_pairing from " + testOrigin + " (2 times)", "paste the line", "call pair",
		`"Not connected": the switch is off`, `"Waiting to connect": the tab is trying`, `"Blocked by your browser"`, "local network access",
		`"Connected in another tab"`, `"Agent needs an update"`, "older protocol", `"Connected": the tab is attached to a different bridge`,
		"This bridge admits tabs of " + testOrigin + ", https://stitchslop.com, http(s)://localhost",
	} {
		if res.IsError || !strings.Contains(text, want) {
			t.Errorf("a wait during which the tab was refused: %q, want it to say %q", text, want)
		}
	}
	if strings.Contains(text, "not a credential problem") {
		t.Errorf("a wait with refusals: %q, want no claim that it is not a credential problem", text)
	}
}

// connection_status answers in the reference bridge's names; otherBridges
// lists another bridge on the config dir with its port, origin and pid.
func TestRef3_ConnectionStatusNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	other := startBridge(t, bridgeOpts{configDir: dir})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true})
	b.rpc.initialize()
	q := openPage(t, b.port, false)
	wantRefusal(t, q, q.handshake(map[string]any{"secret": newSecret()}), "bad_credential")
	connectPage(t, b, map[string]any{"secret": secret})
	b.awaitStatus("the tab's tools", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })

	r := b.rpc.toolCall("connection_status", map[string]any{})
	var cs map[string]any
	if err := jsonUnmarshal(r.text(), &cs); err != nil || r.IsError {
		t.Fatalf("connection_status: %q (%v)", r.text(), err)
	}
	for _, k := range []string{"mode", "connected", "origin", "port", "paired", "pairedOrigins", "tokenArmed", "tools", "otherBridges",
		"connectionAttempts", "lastAttemptAt", "recentRefusals", "refusedElsewhere", "note"} {
		if _, ok := cs[k]; !ok {
			t.Errorf("connection_status %s: no %q", r.text(), k)
		}
	}
	for _, k := range []string{"site", "refusals", "attempts", "message"} {
		if _, ok := cs[k]; ok {
			t.Errorf("connection_status %s: has %q, the name the reference bridge does not use", r.text(), k)
		}
	}
	if cs["mode"] != "serving" || cs["connected"] != true || cs["origin"] != testOrigin || cs["port"] != float64(b.port) || cs["paired"] != true ||
		cs["tokenArmed"] != false || cs["tools"] != float64(2) || cs["connectionAttempts"].(float64) < 2 {
		t.Errorf("connection_status %v: want serving, connected, %s on %d, paired, no token armed, 2 tools, 2 attempts", cs, testOrigin, b.port)
	}
	if rs, _ := cs["recentRefusals"].([]any); len(rs) != 1 || rs[0].(map[string]any)["reason"] != "wrong_pairing" {
		t.Errorf("connection_status recentRefusals %v, want the one wrong_pairing", cs["recentRefusals"])
	}
	want := map[string]any{"port": float64(other.port), "origin": testOrigin, "pid": float64(other.pid())}
	if ob, _ := cs["otherBridges"].([]any); !slices.ContainsFunc(ob, func(v any) bool { return string(mustJSON(v)) == string(mustJSON(want)) }) {
		t.Errorf("connection_status otherBridges %v, want %v among them", cs["otherBridges"], want)
	}
}

// A bad secret from a site that holds a pairing is wrong_pairing, also
// when it comes with a token armed for another site.
func TestRef3_WrongPairingWithAnotherSitesToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret())})
	b := startBridge(t, bridgeOpts{configDir: dir})
	tok := newToken()
	if code, body := ctlDo(t, b.port, "POST", "/pair", map[string]any{"token": tok, "origin": pastedSite}, keyHeader(b.session().Key), ""); code != http.StatusOK {
		t.Fatalf("POST /pair for %s: %d %s", pastedSite, code, body)
	}
	p := openPage(t, b.port, false)
	wantRefusal(t, p, p.handshake(map[string]any{"secret": newSecret(), "token": tok}), "bad_credential")
	st := b.awaitStatus("the refusal", func(st map[string]any) bool { rs, _ := st["refusals"].([]any); return len(rs) > 0 })
	if rs := st["refusals"].([]any); len(rs) != 1 || rs[0].(map[string]any)["reason"] != "wrong_pairing" {
		t.Errorf("/status refusals %v, want one wrong_pairing", st["refusals"])
	}
}

// A direct call whose reply carries a large data URL tells the model to
// save it with call_to_files, not to rerun the call on the shell.
func TestRef3_BulkNotePointsAtCallToFiles(t *testing.T) {
	t.Parallel()
	b, p := mcpTabListing(t, "", withTools("thumbs"))
	p.serve(func(cmd string, args map[string]any) map[string]any {
		return map[string]any{"ok": true, "thumbs": []any{map[string]any{"dataUrl": "data:image/png;base64," + strings.Repeat("A", 4000)}}}
	})
	_, env := b.rpc.toolCall("thumbs", map[string]any{}).envelope(t)
	note, _ := env["thumbs"].([]any)[0].(map[string]any)["dataUrl"].(string)
	if !strings.Contains(note, "call_to_files") || !strings.Contains(note, "textFile") || strings.Contains(note, "--raw") {
		t.Errorf("the note for a 4,022-character data URL: %q, want call_to_files (and textFile), not --raw", note)
	}
}

// The shell pair verb refuses a token in argv and says the exact command
// to run instead, the token in the environment, without repeating it.
func TestRef3_PairRefusesArgvTokenWithTheCommand(t *testing.T) {
	t.Parallel()
	tok := newToken()
	cmd := exec.Command(binPath, "pair", tok, "--origin", pastedSite)
	cmd.Env = childEnv(t.TempDir())
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 64 {
		t.Fatalf("pair <token>: %v, want exit 64", err)
	}
	if want := "`STITCHSLOP_TOKEN=<token> stitchslop-bridge pair --origin " + pastedSite + "`"; !strings.Contains(string(out), want) {
		t.Errorf("pair <token>: %s, want the command %s", out, want)
	}
	if strings.Contains(string(out), tok) {
		t.Errorf("pair <token>: %s repeats the token", out)
	}
}

// A listener already running for the tab (its requests carry
// x-stitchslop-listener: <pid>) is named in the greeting, by this bridge
// and by a second session that follows it, and neither starts another.
func TestRef3_GreetingNamesTheRunningListener(t *testing.T) {
	t.Parallel()
	leader, follower, tab, _ := sharedPairListing(t, append([]any{voiceListen(false)}, defaultTools...))
	if _, st := leader.ctl("GET", "/status", nil); st["listeners"] == nil {
		t.Fatal("/status has no listeners list")
	}
	tab.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "voice.listen" {
			return map[string]any{"ok": true, "heard": []any{}, "selection": []any{}}
		}
		return defaultHandler(cmd, args)
	})
	listener := exec.Command("sleep", "60")
	if err := listener.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { listener.Process.Kill(); listener.Wait() }()
	pid := strconv.Itoa(listener.Process.Pid)
	h := keyHeader(leader.session().Key)
	h.Set("x-stitchslop-listener", pid)
	if code, body := ctlDo(t, leader.port, "POST", "/call", map[string]any{"command": "voice.listen", "args": map[string]any{"timeoutSeconds": 25}}, h, ""); code != http.StatusOK {
		t.Fatalf("the listener's /call: %d %s", code, body)
	}
	for name, b := range map[string]*bridge{"leader": leader, "follower": follower} {
		text := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5}).text()
		if !strings.Contains(text, "already running for this tab (pid "+pid+")") || strings.Contains(text, " listen --owner ") {
			t.Errorf("%s greeting with a listener running: %q, want it named (pid %s) and no command", name, text, pid)
		}
	}
}

// sharedPairListing is sharedPair with the tab listing tools.
func sharedPairListing(t *testing.T, tools []any) (leader, follower *bridge, tab *page, secret string) {
	t.Helper()
	leader, follower, tab, secret = sharedPair(t)
	from := follower.rpc.msgs.len()
	tab.mustSend(map[string]any{"tools": tools})
	follower.rpc.awaitListChanged(from)
	return leader, follower, tab, secret
}
