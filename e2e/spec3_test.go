package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// mcpBridge starts a bridge driven over stdio, armed with a token.
func mcpBridge(t *testing.T, timings string) (*bridge, string) {
	t.Helper()
	tok := newToken()
	return startBridge(t, bridgeOpts{token: tok, mcp: true, timings: timings}), tok
}

// mcpTab is mcpBridge with its MCP session initialized and a tab attached
// by the token.
func mcpTab(t *testing.T, timings string) (*bridge, *page) {
	t.Helper()
	return mcpTabListing(t, timings, defaultTools)
}

// mcpTabListing is mcpTab with the tab listing tools.
func mcpTabListing(t *testing.T, timings string, tools []any) (*bridge, *page) {
	t.Helper()
	b, tok := mcpBridge(t, timings)
	b.rpc.initialize()
	p, _ := connectPageListing(t, b, map[string]any{"token": tok}, tools)
	return b, p
}

// §3.2: initialize.
func TestSpec3_2_Initialize(t *testing.T) {
	t.Parallel()
	// The 2025-era revisions are echoed; anything else (an unknown one, or
	// the stateless 2026-07-28, which has no initialize) gets the newest.
	cases := []struct{ client, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", "2025-11-25"},
		{"2026-07-28", "2025-11-25"},
	}
	for _, c := range cases {
		t.Run(c.client, func(t *testing.T) {
			t.Parallel()
			b, _ := mcpBridge(t, "")
			m := b.rpc.call("initialize", map[string]any{
				"protocolVersion": c.client, "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "e2e", "version": "0"},
			})
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
				Capabilities    struct {
					Tools struct {
						ListChanged bool `json:"listChanged"`
					} `json:"tools"`
				} `json:"capabilities"`
				ServerInfo struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"serverInfo"`
				Instructions string `json:"instructions"`
			}
			b.rpc.result(m, &res)
			if res.ProtocolVersion != c.want {
				t.Errorf("protocolVersion: got %q, want %q", res.ProtocolVersion, c.want)
			}
			if !res.Capabilities.Tools.ListChanged {
				t.Errorf("capabilities.tools.listChanged: got false, want true")
			}
			if res.ServerInfo.Name != "stitchslop-connector" || res.ServerInfo.Version == "" {
				t.Errorf("serverInfo: got %+v, want name stitchslop-connector and a version", res.ServerInfo)
			}
			low := strings.ToLower(res.Instructions)
			if !strings.Contains(low, "wait_for_connection") {
				t.Errorf("instructions %q: got no wait_for_connection, want it named", res.Instructions)
			}
			for _, bad := range []string{"click", "press connect", "press the", "ask the user to press", "tell the user to press"} {
				if strings.Contains(low, bad) {
					t.Errorf("instructions %q: sends the user to press something (%q)", res.Instructions, bad)
				}
			}
		})
	}
}

// §3.2: ping, unknown methods, malformed input, notifications.
func TestSpec3_2_JSONRPC(t *testing.T) {
	t.Parallel()
	b, _ := mcpBridge(t, "")
	b.rpc.initialize()

	t.Run("ping", func(t *testing.T) {
		m := b.rpc.call("ping", nil)
		if got := string(m.fields["result"]); got != "{}" {
			t.Errorf("ping result: got %s, want {}", got)
		}
	})
	t.Run("unknown method", func(t *testing.T) {
		if m := b.rpc.call("no/such/method", nil); m.errCode() != -32601 {
			t.Errorf("unknown method: got %s, want error -32601", m.raw)
		}
	})
	malformed := []struct {
		name, line string
		code       int
	}{
		{"unparsable", `{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{"garbage", `hello bridge`, -32700},
		{"no method", `{"jsonrpc":"2.0"}`, -32600},
		{"a number", `42`, -32600},
		{"an array of junk", `[1]`, -32600},
		{"method not a string", `{"jsonrpc":"2.0","id":900,"method":7}`, -32600},
	}
	for _, c := range malformed {
		t.Run(c.name, func(t *testing.T) {
			from := b.rpc.msgs.len()
			b.rpc.sendLine(c.line)
			m, _, ok := b.rpc.msgs.await(from, guard, func(m rpcMsg) bool { return m.has("error") })
			if !ok {
				t.Fatalf("%s: got no error response, want %d", c.line, c.code)
			}
			if m.errCode() != c.code {
				t.Errorf("%s: got %s, want error %d", c.line, m.raw, c.code)
			}
			if c.code == -32700 && string(m.fields["id"]) != "null" {
				t.Errorf("%s: got id %s, want null", c.line, m.fields["id"])
			}
			if got := string(b.rpc.call("ping", nil).fields["result"]); got != "{}" {
				t.Errorf("ping after %s: got %s, want {} (session continues)", c.name, got)
			}
		})
	}
	t.Run("notifications get no answer", func(t *testing.T) {
		from := b.rpc.msgs.len()
		b.rpc.notify("notifications/initialized", nil)
		b.rpc.notify("notifications/cancelled", map[string]any{"requestId": 12345})
		b.rpc.notify("no/such/notification", nil)
		id := b.rpc.request("ping", nil)
		_, at, ok := b.rpc.msgs.await(from, guard, func(m rpcMsg) bool { return m.idIs(id) })
		if !ok {
			t.Fatalf("got no answer to ping after notifications")
		}
		for _, m := range b.rpc.msgs.all()[from:at] {
			if m.isResponse() {
				t.Errorf("got %s after notifications, want no answer", m.raw)
			}
		}
	})
	b.mustRun()
}

// §3.3, §3.4: before a page: wait_for_connection only; the page's list
// arrives, is revised, and goes, each with list_changed.
func TestSpec3_3_ToolListLifecycle(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	if got := b.rpc.toolNames(); !slices.Equal(got, bridgeTools) {
		t.Errorf("tools/list before a page: got %v, want %v", got, bridgeTools)
	}
	from := b.rpc.msgs.len()
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	from = b.rpc.awaitListChanged(from) + 1
	want := withBridgeTools("render.png", "scene.describe")
	if got := sortedNames(b.rpc.toolNames()); !slices.Equal(got, want) {
		t.Errorf("tools/list with a page: got %v, want %v", got, want)
	}
	var listed struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	b.rpc.result(b.rpc.call("tools/list", nil), &listed)
	for _, tl := range listed.Tools {
		if tl.Name == "scene.describe" && (tl.Description != "Describe the design." || tl.InputSchema["type"] != "object") {
			t.Errorf("page tool scene.describe: got description %q inputSchema %v, want the page's", tl.Description, tl.InputSchema)
		}
		if tl.Name == "wait_for_connection" && tl.InputSchema["type"] != "object" {
			t.Errorf("wait_for_connection inputSchema: got %v, want an object schema", tl.InputSchema)
		}
	}

	p.mustSend(map[string]any{"tools": []any{map[string]any{"name": "stitch.fill", "inputSchema": map[string]any{"type": "object"}}}})
	from = b.rpc.awaitListChanged(from) + 1
	if got := sortedNames(b.rpc.toolNames()); !slices.Equal(got, withBridgeTools("stitch.fill")) {
		t.Errorf("tools/list after a revised list: got %v, want [stitch.fill wait_for_connection]", got)
	}

	p.conn.Close()
	b.rpc.awaitListChanged(from)
	if got := b.rpc.toolNames(); !slices.Equal(got, bridgeTools) {
		t.Errorf("tools/list after the page left: got %v, want %v", got, bridgeTools)
	}
}

func sortedNames(names []string) []string {
	names = slices.Clone(names)
	slices.Sort(names)
	return names
}

// §3.3 (reference notes): the page's tool list is untrusted: bad names and
// a wait_for_connection of its own are dropped.
func TestSpec3_3_PageToolNamesSanitised(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	from := b.rpc.msgs.len()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	long := "a" + strings.Repeat("b", 63)
	var tools []any
	for _, n := range []string{"good.tool", "Good_2-x", long, long + "c", "1bad", "bad name", "", "_x", "wait_for_connection", "a/b", "ünï",
		// The bridge's own tool names, today's and the next versions': a page
		// cannot shadow them, in any case or spelling.
		"pair", "Connection_Status", "call-with-file", "call_to_files", "WAIT.FOR.CONNECTION"} {
		tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
	}
	tools = append(tools, map[string]any{"inputSchema": map[string]any{"type": "object"}}, "not an object", map[string]any{"name": 7})
	p.mustSend(map[string]any{"tools": tools})
	b.rpc.awaitListChanged(from)
	want := withBridgeTools("good.tool", "Good_2-x", long)
	if got := sortedNames(b.rpc.toolNames()); !slices.Equal(got, want) {
		t.Errorf("tools/list: got %v, want %v", got, want)
	}
	b.mustRun()
}

// §3.2: tools/call: name -> command, arguments -> args, integer ids minted
// by the bridge.
func TestSpec3_2_ToolsCallTranslation(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		return map[string]any{"ok": true, "say": "Done: three shapes.", "shapes": 3, "nested": map[string]any{"a": []any{1, "b"}}}
	})
	r := b.rpc.toolCall("scene.describe", map[string]any{"limit": 5, "deep": map[string]any{"x": true}})
	f, _ := p.command(0)
	if f.str("command") != "scene.describe" {
		t.Errorf("page frame %s: got command %q, want scene.describe", f.raw, f.str("command"))
	}
	if got := string(mustJSON(f.m["args"])); got != `{"deep":{"x":true},"limit":5}` {
		t.Errorf("page frame args: got %s, want {\"deep\":{\"x\":true},\"limit\":5}", got)
	}
	var id json.Number
	if err := json.Unmarshal(f.id, &id); err != nil || strings.ContainsAny(id.String(), ".eE-") {
		t.Errorf("page frame id: got %s, want a non-negative JSON integer", f.id)
	}
	if r.IsError {
		t.Errorf("tools/call: got isError, want false")
	}
	if len(r.Content) != 1 {
		t.Errorf("content: got %d blocks, want 1 text block", len(r.Content))
	}
	say, env := r.envelope(t)
	if say != "Done: three shapes." {
		t.Errorf("say line: got %q, want %q", say, "Done: three shapes.")
	}
	if _, ok := env["id"]; ok {
		t.Errorf("envelope %v: got the transport id, want it removed", env)
	}
	if env["ok"] != true || env["shapes"] != float64(3) || fmt.Sprint(env["nested"]) != "map[a:[1 b]]" {
		t.Errorf("envelope: got %v, want the page's fields", env)
	}
}

// §3.5: result conversion of page envelopes.
func TestSpec3_5_Results(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\nnot-really-a-png")
	b, p := mcpTabListing(t, "", withTools("plain", "fail", "render"))
	p.serve(func(cmd string, args map[string]any) map[string]any {
		switch cmd {
		case "fail":
			return map[string]any{"ok": false, "error": "no_selection", "message": "Select a shape first."}
		case "render":
			return map[string]any{"ok": true, "width": 2, "dataUrl": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}
		default:
			return map[string]any{"ok": true, "plain": "yes"}
		}
	})
	t.Run("no say", func(t *testing.T) {
		r := b.rpc.toolCall("plain", map[string]any{})
		if !strings.HasPrefix(r.Content[0].Text, "{") {
			t.Errorf("text %q: got a lead line, want the JSON alone when there is no say", r.Content[0].Text)
		}
		if _, env := r.envelope(t); r.IsError || env["plain"] != "yes" {
			t.Errorf("result: got isError %v env %v, want ok", r.IsError, env)
		}
	})
	t.Run("ok false is isError", func(t *testing.T) {
		r := b.rpc.toolCall("fail", map[string]any{})
		_, env := r.envelope(t)
		if !r.IsError || env["ok"] != false || env["message"] != "Select a shape first." {
			t.Errorf("result: got isError %v env %v, want isError true with the page's message", r.IsError, env)
		}
	})
	t.Run("dataUrl becomes an image block", func(t *testing.T) {
		r := b.rpc.toolCall("render", map[string]any{})
		if len(r.Content) != 2 || r.Content[1].Type != "image" {
			t.Fatalf("content: got %+v, want a text block and an image block", r.Content)
		}
		img := r.Content[1]
		if img.MimeType != "image/png" || img.Data != base64.StdEncoding.EncodeToString(png) {
			t.Errorf("image block: got mimeType %q data %q, want image/png and the page's bytes", img.MimeType, img.Data)
		}
		_, env := r.envelope(t)
		if _, ok := env["dataUrl"]; ok || env["width"] != float64(2) {
			t.Errorf("text envelope: got %v, want width kept and dataUrl removed", env)
		}
	})
}

// §3.2: concurrent calls are answered by id, in whatever order the page
// replies.
func TestSpec3_2_ConcurrentCalls(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	p.mustSend(map[string]any{"tools": withTools("echo")})
	const n = 4
	ids := make([]int64, n)
	for i := range n {
		ids[i] = b.rpc.request("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"n": i}})
	}
	var cmds []frame
	from := 0
	for range n {
		f, i := p.command(from)
		cmds = append(cmds, f)
		from = i + 1
	}
	seen := map[string]bool{}
	for _, f := range cmds {
		if seen[string(f.id)] {
			t.Errorf("page frame id %s: got it twice, want unique ids", f.id)
		}
		seen[string(f.id)] = true
	}
	for i := n - 1; i >= 0; i-- { // reply in reverse order
		args, _ := cmds[i].m["args"].(map[string]any)
		if err := p.reply(cmds[i], map[string]any{"ok": true, "n": args["n"]}); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range ids {
		var r toolResult
		b.rpc.result(b.rpc.response(id), &r)
		if _, env := r.envelope(t); env["n"] != float64(i) {
			t.Errorf("call %d: got envelope %v, want n=%d", i, env, i)
		}
	}
}

// §3.5: a call with no page: isError with text naming wait_for_connection,
// not a JSON-RPC error.
func TestSpec3_5_NoPage(t *testing.T) {
	t.Parallel()
	b, _ := mcpBridge(t, "")
	b.rpc.initialize()
	m := b.rpc.call("tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{}})
	if m.has("error") {
		t.Fatalf("tools/call with no page: got JSON-RPC error %s, want a result", m.raw)
	}
	var r toolResult
	b.rpc.result(m, &r)
	if !r.IsError || !strings.Contains(r.text(), "wait_for_connection") {
		t.Errorf("result: got isError %v text %q, want isError true naming wait_for_connection", r.IsError, r.text())
	}
}

// §3.4: wait_for_connection.
func TestSpec3_4_WaitForConnection(t *testing.T) {
	t.Parallel()
	t.Run("times out as a normal result", func(t *testing.T) {
		t.Parallel()
		b, _ := mcpBridge(t, "")
		b.rpc.initialize()
		start := time.Now()
		r := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.5})
		if el := time.Since(start); el < 400*time.Millisecond {
			t.Errorf("wait returned after %v, want about 0.5 s", el)
		}
		low := strings.ToLower(r.text())
		if r.IsError || !strings.Contains(low, "waiting") || !strings.Contains(low, "again") {
			t.Errorf("result: got isError %v text %q, want a normal result saying still waiting, call again", r.IsError, r.text())
		}
	})
	t.Run("returns on connect with scene.describe", func(t *testing.T) {
		t.Parallel()
		b, tok := mcpBridge(t, "")
		b.rpc.initialize()
		id := b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 8}})
		p, _ := connectPage(t, b, map[string]any{"token": tok})
		var r toolResult
		b.rpc.result(b.rpc.response(id), &r)
		if r.IsError || !strings.Contains(r.text(), "3 shapes") {
			t.Errorf("result: got isError %v text %q, want the page's scene.describe answer", r.IsError, r.text())
		}
		wantDescribe8(t, p)
	})
	t.Run("already connected", func(t *testing.T) {
		t.Parallel()
		b, tok := mcpBridge(t, "")
		b.rpc.initialize()
		p, _ := connectPage(t, b, map[string]any{"token": tok})
		b.awaitConnected(true)
		start := time.Now()
		r := b.rpc.toolCall("wait_for_connection", map[string]any{})
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("wait with a page attached took %v, want at once", el)
		}
		if r.IsError || !strings.Contains(r.text(), "3 shapes") {
			t.Errorf("result: got isError %v text %q, want the page's scene.describe answer", r.IsError, r.text())
		}
		wantDescribe8(t, p)
	})
}

func wantDescribe8(t *testing.T, p *page) {
	t.Helper()
	f, _ := p.frameAt(0, func(f frame) bool { return f.str("command") == "scene.describe" })
	if got := string(mustJSON(f.m["args"])); got != `{"limit":8}` {
		t.Errorf("greeting scene.describe args: got %s, want {\"limit\":8}", got)
	}
}

// §3.5 (reference notes): a call the page never answers fails after the
// `call` deadline with the bridge's timeout envelope.
func TestSpec3_5_CallTimeout(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "call=400ms")
	p.serve(func(string, map[string]any) map[string]any { return nil })
	r := b.rpc.toolCall("scene.describe", map[string]any{})
	_, env := r.envelope(t)
	if !r.IsError || env["ok"] != false || env["error"] != "timeout" {
		t.Errorf("unanswered call: got isError %v env %v, want isError and {ok:false,error:timeout}", r.IsError, env)
	}
}

// §2.9, §3.5: the page leaving fails pending calls at once.
func TestSpec3_5_DisconnectedWhilePending(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "call=60s")
	p.serve(func(string, map[string]any) map[string]any { return nil })
	id := b.rpc.request("tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{}})
	p.command(0)
	p.conn.Close()
	var r toolResult
	b.rpc.result(b.rpc.responseWithin(id, 5*time.Second), &r)
	_, env := r.envelope(t)
	if !r.IsError || env["ok"] != false || env["error"] != "disconnected" {
		t.Errorf("call pending when the page left: got isError %v env %v, want {ok:false,error:disconnected}", r.IsError, env)
	}
}

// §2.9: a page silent for `dead` is dropped like a close: tools emptied,
// list_changed sent, pending calls failed.
func TestSpec2_9_DeadPageLikeClose(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "ping=50ms,dead=500ms,stale=400ms,call=60s")
	b.rpc.initialize()
	p := openPage(t, b.port, true)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	from := b.rpc.msgs.len()
	p.mustSend(map[string]any{"tools": defaultTools})
	from = b.rpc.awaitListChanged(from) + 1
	id := b.rpc.request("tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{}})
	p.command(0)
	var r toolResult
	b.rpc.result(b.rpc.responseWithin(id, 5*time.Second), &r)
	if _, env := r.envelope(t); !r.IsError || env["ok"] != false {
		t.Errorf("call pending when the page went silent: got isError %v env %v, want a failure", r.IsError, env)
	}
	p.awaitClosed()
	b.rpc.awaitListChanged(from)
	if got := b.rpc.toolNames(); !slices.Equal(got, bridgeTools) {
		t.Errorf("tools/list after the page died: got %v, want %v", got, bridgeTools)
	}
}

// §3.1, §3.5: a large page reply reaches the MCP client whole, as one line.
func TestSpec3_5_LargeReplyWhole(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	big := strings.Repeat("0123456789", 9000) // 90 KB, passed through whole
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(string, map[string]any) map[string]any { return map[string]any{"ok": true, "big": big} })
	r := b.rpc.toolCall("scene.describe", map[string]any{})
	if _, env := r.envelope(t); env["big"] != big {
		t.Errorf("large reply: got %d chars, want %d intact", len(fmt.Sprint(env["big"])), len(big))
	}
}
