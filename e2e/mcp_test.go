package e2e

// The MCP face beyond protocol.md §3: cancellation, caller deadlines, both
// eras of MCP on one stdio connection (the 2025 era's initialize and the
// 2026-07-28 revision's stateless requests), and the bounds that keep a
// page or a client from growing the bridge. Field and method names are
// written from the MCP specification text, not imported.

import (
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const modernVersion = "2026-07-28"

// modernMeta is the _meta every 2026-07-28 request carries.
func modernMeta(version string) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "e2e", "version": "0"},
	}
}

// modernParams is params with the modern _meta added.
func modernParams(params map[string]any) map[string]any {
	out := map[string]any{"_meta": modernMeta(modernVersion)}
	for k, v := range params {
		out[k] = v
	}
	return out
}

// A cancelled call is never answered, its late page reply is dropped, and
// the next call works (MCP cancellation: "not send a response for the
// cancelled request").
func TestMCP_CancelledCallNeverAnswered(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)

	id := b.rpc.request("tools/call", map[string]any{"name": "slow.render", "arguments": map[string]any{}})
	f, at := p.command(0)
	b.rpc.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "the user pressed stop"})
	// stdin is read in order: once ping is answered, the cancel was handled.
	b.rpc.call("ping", nil)
	from := b.stderr.lines.len()
	if err := p.reply(f, map[string]any{"ok": true, "late": true}); err != nil {
		t.Fatalf("page reply: %v", err)
	}
	if _, _, ok := b.stderr.lines.await(from, guard, func(l string) bool { return strings.Contains(l, "nobody is waiting") }); !ok {
		t.Fatalf("the late reply to a cancelled call was not dropped; stderr:\n%s", b.stderr)
	}

	next := b.rpc.request("tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{}})
	f2, _ := p.command(at + 1)
	p.reply(f2, map[string]any{"ok": true, "n": 2})
	b.rpc.response(next)
	for _, m := range b.rpc.msgs.all() {
		if m.isResponse() && m.idIs(id) {
			t.Fatalf("the cancelled request %d was answered: %s", id, m.raw)
		}
	}
}

// protocol.md §2.8 with a call in flight: stdin EOF cancels a pending
// wait_for_connection at once; the bridge exits well under a second, with
// its session file removed, not after the wait's two minutes.
func TestSpec2_8_StdinEOFCancelsPendingWait(t *testing.T) {
	t.Parallel()
	b, _ := mcpBridge(t, "")
	b.rpc.initialize()
	b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 120}})
	b.rpc.call("ping", nil) // the wait has started
	start := time.Now()
	b.closeStdin()
	select {
	case <-b.done:
	case <-time.After(time.Second):
		t.Fatalf("bridge still running %v after stdin closed with a wait pending", time.Since(start))
	}
	if b.exitCode != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", b.exitCode, b.stderr)
	}
	if exists(sessionPath(b.configDir, b.port)) {
		t.Fatal("session file left behind after stdin EOF")
	}
}

// A caller sets a page call's deadline with _meta["com.stitchslop/timeoutMs"]
// (1 s to 10 min); a bad value is -32602, never ignored. The control plane
// takes the same bounds as timeoutMs on /call.
func TestMCP_CallerDeadline(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)

	for _, bad := range []any{500, 600001, "1000", 1500.5} {
		m := b.rpc.call("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{},
			"_meta": map[string]any{"com.stitchslop/timeoutMs": bad}})
		if m.errCode() != -32602 || !strings.Contains(m.raw, "timeoutMs") {
			t.Errorf("timeoutMs %v: got %s, want -32602 naming timeoutMs", bad, m.raw)
		}
	}
	m := b.rpc.call("tools/call", map[string]any{"name": "never.answers", "arguments": map[string]any{},
		"_meta": map[string]any{"com.stitchslop/timeoutMs": 1000}})
	var res toolResult
	b.rpc.result(m, &res)
	if !res.IsError || !strings.Contains(res.text(), `"timeout"`) || !strings.Contains(res.text(), "1s") {
		t.Fatalf("call with a 1 s deadline on a page that never answers: got %s, want isError with a timeout naming 1s", m.raw)
	}

	status, body := b.ctl("POST", "/call", map[string]any{"command": "x", "args": map[string]any{}, "timeoutMs": 10})
	if status != 400 || !strings.Contains(body["message"].(string), "timeoutMs") {
		t.Errorf("/call with timeoutMs 10: got %d %v, want 400 naming timeoutMs", status, body)
	}
	status, body = b.ctl("POST", "/call", map[string]any{"command": "never.answers", "args": map[string]any{}, "timeoutMs": 1000})
	if status != 200 || body["error"] != "timeout" {
		t.Errorf("/call with timeoutMs 1000 to a silent page: got %d %v, want the timeout envelope", status, body)
	}

	// The shell: call --timeout SECONDS, same bounds, exit 64 outside them.
	r := b.cli("call", "never.answers", "{}", "--timeout", "1")
	if doc := r.doc(t); r.code != 1 || doc["error"] != "timeout" {
		t.Errorf("call --timeout 1 to a silent page: exit %d, %v; want 1 and the timeout envelope", r.code, doc)
	}
	for _, bad := range []string{"0.5", "601", "soon"} {
		if r := b.cli("call", "x", "{}", "--timeout", bad); r.code != 64 || !strings.Contains(r.stderr, "--timeout") {
			t.Errorf("call --timeout %s: exit %d, stderr %q; want 64 naming --timeout", bad, r.code, r.stderr)
		}
	}
}

// Unknown or misspelt arguments are refused with the right spelling, and
// nothing reaches the page.
func TestMCP_MisspeltArguments(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	r := b.rpc.toolCall("wait_for_connection", map[string]any{"timeout_seconds": 1})
	if !r.IsError || !strings.Contains(r.text(), `"timeoutSeconds"`) {
		t.Fatalf("wait_for_connection {timeout_seconds}: got %+v, want isError naming \"timeoutSeconds\"", r)
	}
	r = b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": "soon"})
	if !r.IsError || !strings.Contains(r.text(), "number") {
		t.Fatalf("wait_for_connection {timeoutSeconds: \"soon\"}: got %+v, want isError", r)
	}

	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	from := b.rpc.msgs.len()
	p.mustSend(map[string]any{"tools": []any{map[string]any{"name": "scene.describe",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"limit": map[string]any{"type": "number"}}}}}})
	b.rpc.awaitListChanged(from)
	r = b.rpc.toolCall("scene.describe", map[string]any{"Limit": 3})
	if !r.IsError || !strings.Contains(r.text(), `"limit"`) {
		t.Fatalf("scene.describe {Limit}: got %+v, want isError naming \"limit\"", r)
	}
	if _, _, ok := p.frames.await(1, 0, func(f frame) bool { _, ok := f.m["command"]; return ok }); ok {
		t.Fatal("a call refused for a misspelt argument reached the page")
	}
}

// The 2026-07-28 revision on the wire: discovery, cache hints, a
// subscription that sees the tab's tools arrive and go, calls, version
// errors; and the era is pinned, so initialize is refused afterwards.
func TestMCP_ModernEra(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	rpc := b.rpc

	m := rpc.call("tools/list", map[string]any{"_meta": modernMeta("1999-01-01")})
	var e struct {
		Code int `json:"code"`
		Data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		} `json:"data"`
	}
	json.Unmarshal(m.fields["error"], &e)
	// supported is what a request with _meta may name (the 2025 revisions
	// are reached through initialize instead), as server/discover says.
	if e.Code != -32022 || len(e.Data.Supported) != 1 || e.Data.Supported[0] != modernVersion || e.Data.Requested != "1999-01-01" {
		t.Fatalf("unsupported version: got %s, want -32022 with supported [%s] and requested", m.raw, modernVersion)
	}
	m = rpc.call("tools/list", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion}})
	if m.errCode() != -32602 || !strings.Contains(m.raw, "clientCapabilities") {
		t.Fatalf("no clientCapabilities: got %s, want -32602 naming it", m.raw)
	}

	var disc struct {
		ResultType        string   `json:"resultType"`
		SupportedVersions []string `json:"supportedVersions"`
		Capabilities      struct {
			Tools *struct{} `json:"tools"`
		} `json:"capabilities"`
		Meta struct {
			ServerInfo struct{ Name, Version string } `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
		Instructions string `json:"instructions"`
		TTLMs        *int   `json:"ttlMs"`
		CacheScope   string `json:"cacheScope"`
	}
	rpc.result(rpc.call("server/discover", modernParams(nil)), &disc)
	if disc.ResultType != "complete" || !contains(disc.SupportedVersions, modernVersion) || disc.Capabilities.Tools == nil ||
		disc.Meta.ServerInfo.Name != "stitchslop-connector" || !strings.Contains(disc.Instructions, "wait_for_connection") ||
		disc.TTLMs == nil || disc.CacheScope == "" {
		t.Fatalf("server/discover: got %+v", disc)
	}

	var list struct {
		ResultType string `json:"resultType"`
		Tools      []struct{ Name string }
		TTLMs      *int   `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
	}
	rpc.result(rpc.call("tools/list", modernParams(nil)), &list)
	if list.ResultType != "complete" || list.TTLMs == nil || *list.TTLMs != 0 || list.CacheScope != "private" ||
		len(list.Tools) != len(bridgeTools) || list.Tools[0].Name != "wait_for_connection" {
		t.Fatalf("tools/list before the tab: got %+v, want the bridge's own tools alone, ttlMs 0, cacheScope private", list)
	}

	// Two subscriptions: one for tool changes, one for nothing we offer.
	subTools := rpc.request("subscriptions/listen", modernParams(map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
	subOther := rpc.request("subscriptions/listen", modernParams(map[string]any{"notifications": map[string]any{"promptsListChanged": true}}))
	ack := func(id int64) map[string]any {
		t.Helper()
		m, _, ok := rpc.msgs.await(0, guard, func(m rpcMsg) bool {
			return m.method() == "notifications/subscriptions/acknowledged" && subscriptionID(m) == strconv.FormatInt(id, 10)
		})
		if !ok {
			t.Fatalf("no acknowledgement for subscription %d", id)
		}
		var p struct {
			Notifications map[string]any `json:"notifications"`
		}
		json.Unmarshal(m.fields["params"], &p)
		return p.Notifications
	}
	if n := ack(subTools); n["toolsListChanged"] != true || len(n) != 1 {
		t.Fatalf("acknowledged filter %v, want exactly toolsListChanged", n)
	}
	if n := ack(subOther); len(n) != 0 {
		t.Fatalf("acknowledged filter %v for prompts, want it empty (not offered)", n)
	}

	from := rpc.msgs.len()
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	changed := func(from int) int {
		t.Helper()
		m, i, ok := rpc.msgs.await(from, guard, func(m rpcMsg) bool { return m.method() == "notifications/tools/list_changed" })
		if !ok {
			t.Fatal("no notifications/tools/list_changed on the subscription")
		}
		if got := subscriptionID(m); got != strconv.FormatInt(subTools, 10) {
			t.Fatalf("list_changed %s: subscriptionId %q, want %d", m.raw, got, subTools)
		}
		return i
	}
	at := changed(from)
	rpc.result(rpc.call("tools/list", modernParams(nil)), &list)
	if len(list.Tools) != len(bridgeTools)+2 {
		t.Fatalf("tools/list with the tab: got %+v, want the bridge's tools and the tab's two", list)
	}

	var res struct {
		ResultType string `json:"resultType"`
		toolResult
	}
	rpc.result(rpc.call("tools/call", modernParams(map[string]any{"name": "scene.describe", "arguments": map[string]any{"limit": 2}})), &res)
	if res.ResultType != "complete" || res.IsError || !strings.Contains(res.text(), "The design has 3 shapes.") {
		t.Fatalf("tools/call: got %+v", res)
	}

	m = rpc.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}})
	if !m.has("error") {
		t.Fatalf("initialize on a connection pinned to %s: got %s, want an error", modernVersion, m.raw)
	}
	m = rpc.call("tools/list", nil)
	if m.errCode() != -32602 {
		t.Fatalf("a request without _meta on a %s connection: got %s, want -32602", modernVersion, m.raw)
	}

	// Ending the subscription stops its notifications.
	rpc.notify("notifications/cancelled", map[string]any{"requestId": subTools})
	rpc.call("server/discover", modernParams(nil))
	from = rpc.msgs.len()
	p.conn.Close()
	b.awaitConnected(false)
	rpc.call("server/discover", modernParams(nil))
	for _, m := range rpc.msgs.all()[max(from, at+1):] {
		if m.method() != "" {
			t.Fatalf("after the subscription ended: got %s, want no notification", m.raw)
		}
	}
	for _, m := range rpc.msgs.all() {
		if m.isResponse() && (m.idIs(subTools) || m.idIs(subOther)) {
			t.Fatalf("a subscription got a response before shutdown: %s", m.raw)
		}
	}
}

func subscriptionID(m rpcMsg) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(m.fields["params"], &p)
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

// A subscription still open when the bridge is told to stop gets its
// completion result, the graceful end the revision asks for.
func TestMCP_SubscriptionEndsGracefully(t *testing.T) {
	t.Parallel()
	b, _ := mcpBridge(t, "")
	sub := b.rpc.request("subscriptions/listen", modernParams(map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
	b.rpc.call("server/discover", modernParams(nil))
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM, want 0", code)
	}
	m, _, ok := b.rpc.msgs.await(0, guard, func(m rpcMsg) bool { return m.isResponse() && m.idIs(sub) })
	if !ok {
		t.Fatal("the open subscription got no completion result at shutdown")
	}
	var r struct {
		ResultType string                     `json:"resultType"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(m.fields["result"], &r)
	if r.ResultType != "complete" || string(r.Meta["io.modelcontextprotocol/subscriptionId"]) != strconv.FormatInt(sub, 10) {
		t.Fatalf("completion %s: want resultType complete and the subscriptionId", m.raw)
	}
}

// protocol.md §2.8: answers already made before stdin ends still reach the
// client, as from `printf '...' | stitchslop-bridge`.
func TestSpec2_8_AnswersBeforeEOFAreWritten(t *testing.T) {
	t.Parallel()
	b, _ := mcpBridge(t, "")
	b.rpc.sendLine(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	b.rpc.sendLine(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	b.closeStdin()
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	b.rpc.response(1)
	b.rpc.response(2)
}

// A tab that listed no tools at all has listed them: a call of a tool in
// neither list is -32602 and never reaches the tab (issue 23).
func TestMCP_UnknownToolOfATabThatListsNothing(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	from := b.rpc.msgs.len()
	p, _ := connectPageListing(t, b, map[string]any{"token": tok}, []any{})
	b.rpc.awaitListChanged(from)
	m := b.rpc.call("tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{}})
	if m.errCode() != -32602 {
		t.Errorf("tools/call of an unlisted tool, the tab's empty list here: %s, want -32602", m.raw)
	}
	for _, f := range p.frames.all() {
		if f.str("command") == "scene.describe" {
			t.Errorf("the unknown tool reached the tab: %s", f.raw)
		}
	}
}
