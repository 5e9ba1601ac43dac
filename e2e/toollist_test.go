package e2e

import (
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
