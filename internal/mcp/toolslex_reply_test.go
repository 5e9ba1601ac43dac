//go:build lexcount

package mcp

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// TestOneLexPerReplyCarryingTools: a reply of the tab that carries a
// member named "tools" (a design tool's palette, say) is read once, as any
// reply: the door hands a "tools" value to toollist.Sanitize only in a
// frame with no "id" before it (envelope.DecodeTools). An outside attack
// found it read twice on bf91d3c: the member recorded with a zero
// gate.Seen, walked again by the gate, and a tool list nothing used built
// of it.
func TestOneLexPerReplyCarryingTools(t *testing.T) {
	env := []byte(`{"id":3,"ok":true,"say":"Listed.","tools":[{"id":"pen","name":"Pen"},{"id":"brush","name":"Brush","sizes":[1,2,3]}],"text":"hi"}`)
	var list toollist.List
	before := envelope.Lexes()
	r, err := envelope.DecodeTools(env, toollist.Sanitize(&list, ReservedWords))
	if err != nil {
		t.Fatal(err)
	}
	m := toolResponse([]byte("3"), r, ownWords{}, false)
	if got := envelope.Lexes() - before; got != 1 {
		t.Errorf("a reply carrying a tools member read %d times, want once, as one without it", got)
	}
	if b := m.join(); !strings.Contains(string(b), `\"sizes\":[1,2,3]`) {
		t.Errorf("result = %s, want the reply's tools member", b)
	}
}
