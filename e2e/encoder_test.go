package e2e

// One encoder per exit (issue 34): the bridge's own answers (the control
// plane's, which the shell prints, and MCP's) write a string as the tab's
// reply writes it, so that a model reading a tool's description or a
// dropped tool's name reads the bytes a call of the same string prints.

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestSpec4_2_AnswersWriteTheTabsStringsAsCallDoes: a tab's tool
// description in the shell's tools (protocol.md §4.2), a dropped tool's
// name in the shell's status and in connection_status (§7.7, §7.8), and a
// client's method named back in a JSON-RPC error (§3.5) are each written
// as the same bytes a call's reply of that string prints (§4.4). Before,
// the control plane and MCP answers were written by encoding/json, which
// wrote <, > and & as \u003c, \u003e and \u0026 where call prints them as
// they are.
func TestSpec4_2_AnswersWriteTheTabsStringsAsCallDoes(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true})
	b.rpc.initialize()
	from := b.rpc.msgs.len()
	const dropped = "x<y&z" // no tool name (§7.8): dropped, and named
	tools := append([]any{
		map[string]any{"name": "design.note", "description": plainText, "inputSchema": map[string]any{"type": "object"}},
		map[string]any{"name": dropped, "inputSchema": map[string]any{"type": "object"}},
	}, defaultTools...)
	// The page writes as a browser's JSON.stringify does: < and & as they
	// are (the harness's encoding/json would escape them).
	p := openPage(t, b.port, false)
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.note" {
			return nil // answered below, by hand
		}
		return defaultHandler(cmd, args)
	})
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	p.sendText(asStringify(t, map[string]any{"tools": tools}))
	b.rpc.awaitListChanged(from)

	at := p.frames.len()
	done := make(chan cliResult, 1)
	go func() { done <- b.cli("call", "design.note", "{}") }()
	f, _ := p.command(at)
	// droppedTools names a tool quoted, as Go quotes it.
	p.sendText(asStringify(t, map[string]any{"id": f.id, "ok": true, "description": plainText, "name": strconv.Quote(dropped)}))
	var call map[string]json.RawMessage
	if r := <-done; r.code != 0 || json.Unmarshal([]byte(r.stdout), &call) != nil {
		t.Fatalf("call: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	desc, name := call["description"], call["name"]
	if !strings.Contains(string(desc), "<") || !strings.Contains(string(name), "&") {
		t.Fatalf("call printed %s and %s; want the tab's < and & as they are", desc, name)
	}

	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description json.RawMessage `json:"description"`
		} `json:"tools"`
	}
	r := b.cli("tools")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil {
		t.Fatalf("tools: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	found := false
	for _, tl := range list.Tools {
		if tl.Name == "design.note" {
			found = true
			if string(tl.Description) != string(desc) {
				t.Errorf("tools printed the description %s, call printed %s; want the same bytes", tl.Description, desc)
			}
		}
	}
	if !found {
		t.Errorf("tools printed %s; want design.note listed", r.stdout)
	}

	// droppedTools' first entry's name, as raw bytes.
	droppedName := func(where string, doc []byte) json.RawMessage {
		t.Helper()
		var d struct {
			DroppedTools []struct {
				Name json.RawMessage `json:"name"`
			} `json:"droppedTools"`
		}
		if err := json.Unmarshal(doc, &d); err != nil || len(d.DroppedTools) != 1 {
			t.Fatalf("%s: %s (%v); want one dropped tool", where, doc, err)
		}
		return d.DroppedTools[0].Name
	}
	r = b.cli("status")
	if r.code != 0 {
		t.Fatalf("status: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := droppedName("status", []byte(r.stdout)); string(got) != string(name) {
		t.Errorf("status printed the dropped tool's name %s, call printed %s; want the same bytes", got, name)
	}
	if got := droppedName("connection_status", []byte(b.rpc.toolCall("connection_status", map[string]any{}).text())); string(got) != string(name) {
		t.Errorf("connection_status wrote the dropped tool's name %s, call printed %s; want the same bytes", got, name)
	}

	// The method a client sent, named back in the error, as it came.
	m := b.rpc.call("no<such&method", nil)
	if m.errCode() == 0 || !strings.Contains(string(m.fields["error"]), "method not found: no<such&method") {
		t.Errorf("an unknown method's answer %s; want an error naming no<such&method as it came", m.raw)
	}
}

// asStringify writes v as a browser's JSON.stringify does, < > & as they are.
func asStringify(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestSpec2_5_ShellArgsReachTheTabAsWritten: a call's JSON-ARGS reach the
// tab (protocol.md §2.5) as the agent wrote them but compact: < and & as
// they are, a number's digits kept, a name given twice passed on for the
// tab's reader to judge, as the MCP face passes a tools/call's arguments.
// Before, the shell's request was written by encoding/json, so the tab got
// \u003c and \u0026.
func TestSpec2_5_ShellArgsReachTheTabAsWritten(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	b.awaitConnected(true)
	at := p.frames.len()
	if r := b.cli("call", "scene.describe", `{ "t" : "a<b && c>d", "n" : [1, 2.50, -0e3], "d":1, "d":2 }`); r.code != 0 {
		t.Fatalf("call: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	f, _ := p.command(at)
	if want := `"args":{"t":"a<b && c>d","n":[1,2.50,-0e3],"d":1,"d":2}`; !strings.Contains(string(f.raw), want) {
		t.Errorf("the tab got %s; want the args as written, compact: %s", f.raw, want)
	}
}
