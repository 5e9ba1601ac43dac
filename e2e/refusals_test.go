package e2e

// Refusals on record (protocol.md §7.14): the page shows a refused
// tab only as "Waiting to connect", so the bridge keeps the last refusals
// with their reasons, and a timed-out wait says which of protocol.md §5's
// cases it was: the browser never dialled, or it dialled and was refused.

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRef_RefusalsOnRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret), "https://staging.stitchslop.com": pairingFor(newSecret())})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true})
	b.rpc.initialize()

	// A wait with nothing dialling says the browser never tried.
	r := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.2})
	if !strings.Contains(r.text(), "never tried") {
		t.Errorf("a wait nothing dialled during: %q, want it to say the browser never tried", r.text())
	}

	// A wait during which the tab is refused leads with that refusal.
	id := b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 2}})
	b.rpc.call("ping", nil) // the wait has started
	p := openPage(t, b.port, false)
	wantRefusal(t, p, p.handshake(map[string]any{"secret": newSecret()}), "bad_credential")
	var res toolResult
	b.rpc.result(b.rpc.response(id), &res)
	if !strings.Contains(res.text(), "being refused") || !strings.Contains(res.text(), "wrong_pairing from "+testOrigin+" (once)") || !strings.Contains(res.text(), "paste the line") {
		t.Errorf("a wait during which the tab was refused: %q, want the refusal and its fix first", res.text())
	}

	// More refusals: a site that is not allowed (twice: counted, never
	// named, issue 19), a loopback site this bridge may serve but has no
	// pairing for (named), busy.
	for range 2 {
		if _, resp, _ := dialWS(b.port, originHeader("https://evil.example")); resp == nil || resp.StatusCode != 403 {
			t.Fatal("a page of another site was not refused")
		}
	}
	if _, resp, _ := dialWS(b.port, originHeader("http://localhost:3000")); resp == nil || resp.StatusCode != 403 {
		t.Fatal("a page of an unpaired loopback site was not refused")
	}
	connectPage(t, b, map[string]any{"secret": secret})
	q := openPage(t, b.port, false)
	wantRefusal(t, q, q.handshake(map[string]any{"secret": secret}), "busy")

	_, st := b.ctl("GET", "/status", nil)
	byReason := map[string]map[string]any{}
	for _, r := range st["refusals"].([]any) {
		m := r.(map[string]any)
		byReason[m["reason"].(string)] = m
	}
	if byReason["site"]["count"] != float64(1) || byReason["site"]["origin"] != "http://localhost:3000" ||
		byReason["wrong_pairing"] == nil || byReason["busy"] == nil {
		t.Errorf("/status refusals: %v, want site (the loopback one, with its origin), wrong_pairing, busy", st["refusals"])
	}
	if st["refusedElsewhere"] != float64(2) {
		t.Errorf("/status refusedElsewhere %v, want 2", st["refusedElsewhere"])
	}
	if raw, _ := json.Marshal(st); strings.Contains(string(raw), "evil.example") {
		t.Errorf("/status %s names a site that is not allowed", raw)
	}
	if st["attempts"].(float64) < 5 || st["lastAttemptAt"] == "" {
		t.Errorf("/status attempts %v, lastAttemptAt %v", st["attempts"], st["lastAttemptAt"])
	}
	if st["paired"] != true {
		t.Errorf("/status paired %v for the served, paired site, want true", st["paired"])
	}
	paired := st["pairedOrigins"].([]any)
	if len(paired) != 2 || paired[0] != "https://staging.stitchslop.com" || paired[1] != testOrigin {
		t.Errorf("/status pairedOrigins %v, want both sites", paired)
	}

	// connection_status says the same to the agent, and opens nothing.
	r = b.rpc.toolCall("connection_status", map[string]any{})
	var cs map[string]any
	if err := jsonUnmarshal(r.text(), &cs); err != nil || r.IsError {
		t.Fatalf("connection_status: %q (%v)", r.text(), err)
	}
	if strings.Contains(r.text(), "evil.example") {
		t.Errorf("connection_status %q names a site that is not allowed", r.text())
	}
	if cs["connected"] != true || cs["mode"] != "serving" || cs["origin"] != testOrigin || len(cs["recentRefusals"].([]any)) != 3 {
		t.Errorf("connection_status: %v", cs)
	}
	if r := b.rpc.toolCall("connection_status", map[string]any{"verbose": true}); !r.IsError {
		t.Errorf("connection_status with an argument it does not take: %+v, want isError", r)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
