package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestSpec7_8_ToolListWrittenByTheOneEncoder: the tab's tools reach
// tools/list (protocol.md §7.8) as the MCP exit's one encoder writes a
// tab's strings (security/gate: <, > and & as they are, invisible
// characters removed), in the tab's order of keys. Before, encoding/json
// wrote the list, each <, > and & as six bytes, its keys sorted.
func TestSpec7_8_ToolListWrittenByTheOneEncoder(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	from := b.rpc.msgs.len()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	list := `[{"name":"scene.describe","title":"Describe <it>","description":"Make <it> red & bigger\u202e.",` +
		`"inputSchema":{"type":"object","properties":{"size":{"type":"string","description":"<small> & <large>"},"at":{"type":"number"}}},` +
		`"annotations":{"readOnlyHint":true}}]`
	p.sendText(`{"tools":` + list + `}`)
	b.rpc.awaitListChanged(from)
	m := b.rpc.call("tools/list", nil)
	want := `{"name":"scene.describe","title":"Describe <it>","description":"Make <it> red & bigger.",` +
		`"inputSchema":{"type":"object","properties":{"size":{"type":"string","description":"<small> & <large>"},"at":{"type":"number"}}},` +
		`"annotations":{"readOnlyHint":true}}`
	if !strings.Contains(m.raw, want) {
		t.Errorf("tools/list = %s, want the tab's tool written as %s", m.raw, want)
	}
	if strings.Contains(m.raw, `\u003c`) || strings.Contains(m.raw, `\u0026`) {
		t.Errorf("tools/list = %s: < or & escaped, as the one encoder does not", m.raw)
	}
	b.mustRun()
}

// TestSpec2_5_ToolListKeepsTheDoorsRuleForNames: the door hands a tab's
// tool list to the tool list's own reader as it meets it, so that it is
// read once (envelope.DecodeTools); the door's rule for names holds in it
// all the same, wherever a name is: in a schema, in a member the list does
// not read, in annotations, in annotations it drops. A list with
// one it refuses is ignored whole, as any frame the door refuses, and the
// list before it stands. (Read by d.SkipValue, the skipped names passed.)
func TestSpec2_5_ToolListKeepsTheDoorsRuleForNames(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	b.awaitStatus("the tab's tools", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	var many strings.Builder
	for i := range 10_001 { // gate.MaxMembers, and one more
		fmt.Fprintf(&many, `"m%d":0,`, i)
	}
	for name, tool := range map[string]string{
		"a schema key that does not print":  `"inputSchema":{"type":"object","properties":{"a\u200b":{}}}`,
		"a name given twice, unread":        `"x":{"a":1,"\u0061":2}`,
		"too many members, unread":          `"x":{` + strings.TrimSuffix(many.String(), ",") + `}`,
		"a long annotation name":            `"annotations":{"` + strings.Repeat("k", 1025) + `":true}`,
		"a bidi name in annotations no map": `"annotations":[{"\u202eb":1}]`,
	} {
		p.sendText(`{"tools":[{"name":"evil.tool",` + tool + `}]}`)
		// The tab answers after the list: once the answer is in, so is the list.
		if _, env := b.ctl("POST", "/call", map[string]any{"command": "scene.describe", "args": map[string]any{}}); env["ok"] != true {
			t.Fatalf("%s: /call = %v, want the tab's answer", name, env)
		}
		_, st := b.ctl("GET", "/status", nil)
		if tools := fmt.Sprint(st["tools"]); strings.Contains(tools, "evil.tool") {
			t.Errorf("%s: the bridge lists %s, want the list before it: the door refuses the frame", name, tools)
		}
		p.mustSend(map[string]any{"tools": defaultTools})
	}
	b.mustRun()
}
